import Foundation
import Testing

/// `ccai run` and the other commands, through the real executable.
@Suite struct RunCommandTests {
    private func script(_ source: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString).lua")
        try source.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test(arguments: ["tasks.lua", "sandbox.lua", "modules.lua", "menus.lua", "chat.lua", "conversation.lua",
                      "fuzz_arguments.lua"])
    func luaScenariosPass(_ name: String) throws {
        let output = try CLI.run(["run", "Tests/Scenarios/\(name)", "--env", "NAME=Ana"])
        #expect(output.status == 0, "\(name): \(output.stderr)")
        #expect((output.stderr + output.stdout).contains("scenario passed"))
    }

    @Test func postSessionFlowsRunEndToEnd() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("post-session-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CLI.run(["run", "Tests/Scenarios/post_session/scenario.lua", "--sandbox", "Tests/Scenarios/post_session/sandbox.lua",
                                  "--out-dir", folder.path, "--env", "TRANSCRIPT=transcript.pdf"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("post_session scenario passed"))
        let pdf = folder.appendingPathComponent("transcript.pdf").path
        let text = try CLI.runTool("/usr/bin/pdftotext", ["-enc", "UTF-8", pdf, "-"])
        #expect(text.contains("Feedback Co · Chat transcript") && text.contains("Sage (virtual agent)"), "\(text)")
        #expect(text.contains("Thanks, noted: Shorter waits"), "the post-session virtual agent's messages are in it")
        #expect(try CLI.run(["run", "Tests/Scenarios/chat.lua", "--out-dir", folder.appendingPathComponent("none").path]).status == 2,
                "--out-dir needs a folder")
    }

    @Test func pluginsRunThePostSessionFlows() throws {
        let output = try CLI.run(["run", "Tests/Scenarios/post_session/plugins.lua", "--sandbox", "Tests/Scenarios/post_session/sandbox.lua"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("post_session plugins scenario passed"))
        #expect(output.stderr.contains("plugin 'broken' failed: post_session:") && output.stderr.contains("no feedback database"),
                "a failing hook is reported with its plugin's name")
    }

    @Test func theLogoutRecipeClearsAllThree() throws {
        let output = try CLI.run(["run", "examples/logout.lua", "--quiet"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "signed in as vu-1\nended chat 1\nlogged out; the old token is revoked\n", "\(output.stdout)")
    }

    @Test func thePostSessionExampleRoutesAndSavesTranscripts() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CLI.run(["run", "examples/post_session/scenario.lua", "--sandbox", "examples/post_session/sandbox.lua",
                                  "--out-dir", folder.path, "--quiet"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == """
            chat 1: rated 4 (Quick answer); transcript transcript-1.pdf
            chat 2: survey answered (4 questions); transcript transcript-2.pdf

            """, "\(output.stdout)")
        let text = try CLI.runTool("/usr/bin/pdftotext", ["-enc", "UTF-8", folder.appendingPathComponent("transcript-2.pdf").path, "-"])
        #expect(text.contains("Léa (agent)") && text.contains("Je suis client VIP") && text.contains("Northwind"), "\(text)")
    }

    @Test func theQuickStartRuns() throws {
        let output = try CLI.run(["run", "examples/quickstart.lua", "--env", "CUSTOMERS=2"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("connected") && output.stderr.contains("company=Acme"))
        #expect(output.stderr.contains("by=night-shift"), "the plugin beside the script decides")
        #expect(output.stderr.contains("customer done"))
        #expect(output.stdout.contains("\"customers\""), "the summary is the script's print: \(output.stdout)")
    }

    @Test func theSupportBotExampleRuns() throws {
        let output = try CLI.run(["run", "examples/support_bot/scenario.lua", "--sandbox", "examples/support_bot/sandbox.lua"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("Claim for policy POL-20931") && output.stderr.contains("[card]"), "\(output.stderr)")
        #expect(output.stderr.contains("smart_actions=2 text=POL-20931"))
    }

    @Test func theMenuBrowserRuns() throws {
        let output = try CLI.run(["run", "examples/menu_browser.lua", "--env", "LANGUAGE=es"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("Facturación [1]") && output.stdout.contains("Internet [22]"), "\(output.stdout)")
        let direct = try CLI.run(["run", "examples/menu_browser.lua", "--env", "KEY=vip"])
        #expect(direct.stdout.contains("direct access point: VIP"))
    }

    @Test func aFailingScriptExitsOneWithItsErrorAndTraceback() throws {
        let path = try script("local function broken() local t = nil; return t.x end\nbroken()")
        let output = try CLI.run(["run", path])
        #expect(output.status == 1)
        #expect(output.stderr.contains("error: "))
        #expect(output.stderr.contains("attempt to index a nil value (local 't')"))
        #expect(output.stderr.contains("stack traceback:"))
    }

    @Test func structuredErrorsShowTheirCode() throws {
        let path = try script("ccai.sleep('soon')")
        let output = try CLI.run(["run", path])
        #expect(output.status == 1)
        #expect(output.stderr.contains(
            "error: ccai.sleep: bad argument #1 'seconds' to 'sleep' (number expected, got string) [invalid_argument]"))
    }

    @Test(arguments: [
        ("while true do end", "instruction limit exceeded"),
        ("while true do pcall(function() while true do end end) end", "instruction limit exceeded"),
        ("local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(64) .. i end", "memory limit exceeded"),
        ("local s = string.rep('x', 1024 * 1024 * 1024)", "memory limit exceeded"),
        ("local function f() return 1 + f() end f()", "memory limit exceeded"),  // the stack outgrows 16M first
        ("local c = {} for i = 1, 1e9 do c[i] = coroutine.create(print) end", "memory limit exceeded"),
        ("local x <close> = setmetatable({}, { __close = function() while true do end end })", "instruction limit exceeded"),
    ])
    func scriptsThatExhaustTheSandboxEndCleanly(_ source: String, _ message: String) throws {
        let path = try script(source)
        let output = try CLI.run(["run", path, "--memory-limit", "16M", "--instruction-limit", "5000000"])
        #expect(output.status == 1, "\(output.stderr)")
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }

    @Test func theTimeLimitEndsLongRuns() throws {
        let path = try script("while true do end")
        let output = try CLI.run(["run", path, "--instruction-limit", "0", "--time-limit", "0.3"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("time limit exceeded"))
    }

    @Test func logLevelsFilter() throws {
        let path = try script("ccai.log.debug('dbg'); ccai.log.info('inf'); ccai.log.warn('wrn')")
        let quiet = try CLI.run(["run", path, "--quiet"])
        #expect(quiet.status == 0)
        #expect(!quiet.stderr.contains("inf") && quiet.stderr.contains("wrn"))
        let debug = try CLI.run(["run", path, "--log-level", "debug"])
        #expect(debug.stderr.contains("dbg"))
    }

    @Test(arguments: [
        (["run"], "run needs a script"),
        (["run", "a.lua", "b.lua"], "unexpected argument 'b.lua'"),
        (["run", "x.lua", "--env", "NOEQUALS"], "--env expects KEY=VALUE"),
        (["run", "x.lua", "--env"], "--env needs a value"),
        (["run", "x.lua", "--log-level", "loud"], "--log-level must be"),
        (["run", "x.lua", "--memory-limit", "lots"], "--memory-limit expects a size"),
        (["run", "x.lua", "--bogus"], "unknown option '--bogus'"),
        (["fly"], "unknown command 'fly'"),
        (["help", "fly"], "unknown command 'fly'"),
    ])
    func usageErrorsExitTwo(_ arguments: [String], _ message: String) throws {
        let output = try CLI.run(arguments)
        #expect(output.status == 2)
        #expect(output.stderr.contains(message), "\(output.stderr)")
        #expect(output.stderr.contains("Run 'ccai help"))
    }

    @Test func aMissingScriptIsAnError() throws {
        let output = try CLI.run(["run", "no/such/script.lua"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("cannot read script 'no/such/script.lua'"))
    }

    @Test func typesWritesStubsAndConfigurations() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("types-\(UUID().uuidString)").path
        let output = try CLI.run(["types", "--out", folder])
        #expect(output.status == 0, "\(output.stderr)")
        for name in ["ccai.lua", "agent.lua", "plugin.lua", "sandbox.lua", ".luarc.json", ".luacheckrc", "agent.luacheckrc"] {
            #expect(FileManager.default.fileExists(atPath: folder + "/" + name), "\(name)")
        }
        let agent = try String(contentsOfFile: folder + "/agent.lua", encoding: .utf8)
        for name in ["send(text)", "request_smart_action(options)", "send_form(options)", "send_web_form(options)",
                     "send_file(file)", "request_screen_share(options)", "transfer(options)", "escalate()", "end_session()"] {
            #expect(agent.contains("function ccai.Agent.\(name) end"), "\(name)")
        }
        #expect(agent.contains("---@class ccai.AgentSession: ccai.Chat"))
        #expect(try CLI.run(["types"]).status == 2)
    }

    /// docs/reference/ is what the code generates: a changed signature, hook, agent
    /// function or configuration field shows here until the reference is regenerated.
    @Test func theReferenceAgreesWithTheCode() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reference-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CLI.run(["reference", "--out", folder.path])
        #expect(output.status == 0, "\(output.stderr)")
        let committed = CLI.root.appendingPathComponent("docs/reference")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["README.md", "agents.md", "lua-api.md", "plugins.md", "sandbox-configuration.md"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: committed.path).sorted() == names)
        for name in names {
            let generated = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let kept = try String(contentsOf: committed.appendingPathComponent(name), encoding: .utf8)
            #expect(generated == kept, "docs/reference/\(name) is out of date: run 'ccai reference --out docs/reference'")
        }
        let api = try String(contentsOf: folder.appendingPathComponent("lua-api.md"), encoding: .utf8)
        for function in ["`start_post_session`", "`get_survey`", "`run_post_session`", "`evaluate_deflection`"] {
            #expect(api.contains("| \(function) |"), "\(function)")
        }
    }

    /// luacheck (Debian's lua-check, from scripts/bootstrap) with the generated settings:
    /// the examples pass, and an agent script that reaches for `ccai` is flagged.
    @Test func theLuacheckSettingsFitScriptsPluginsAndAgents() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lint-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try CLI.run(["types", "--out", folder.path]).status == 0)
        let luacheck = "/usr/bin/luacheck"
        try #require(FileManager.default.isExecutableFile(atPath: luacheck), "scripts/bootstrap installs lua-check")
        func lint(_ config: String, _ files: [String]) throws -> String {
            try CLI.runTool(luacheck, ["--no-color", "--config", folder.appendingPathComponent(config).path] + files)
        }
        let examples = ["examples/quickstart.lua", "examples/logout.lua", "examples/menu_browser.lua",
                        "examples/post_session/scenario.lua", "examples/post_session/plugins/feedback.lua",
                        "examples/support_bot/scenario.lua", "examples/support_bot/plugins/support.lua",
                        "examples/plugins/night_shift.lua"].map { CLI.root.appendingPathComponent($0).path }
        let report = try lint(".luacheckrc", examples)
        #expect(report.contains("Total: 0 warnings / 0 errors"), "\(report)")
        let agent = folder.appendingPathComponent("agent.lua.test")
        try "return function(agent, session)\n  ccai.log.info(\"hi\")\n  agent.send(\"Hi\")\nend\n"
            .write(to: agent, atomically: true, encoding: .utf8)
        let flagged = try lint("agent.luacheckrc", [agent.path])
        #expect(flagged.contains("accessing undefined variable 'ccai'"), "agent scripts have no ccai: \(flagged)")
        let agents = try lint("agent.luacheckrc", [CLI.root.appendingPathComponent("examples/support_bot/agents/claims_agent.lua").path])
        #expect(agents.contains("Total: 0 warnings / 0 errors"), "\(agents)")
    }

    @Test func versionAndHelp() throws {
        let version = try CLI.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("ccai ") && version.stdout.contains("Lua 5.4"))
        let help = try CLI.run(["help"])
        #expect(help.status == 0 && help.stdout.contains("Usage: ccai COMMAND"))
        let runHelp = try CLI.run(["help", "run"])
        #expect(runHelp.status == 0 && runHelp.stdout.contains("--env KEY=VALUE"))
        let noArguments = try CLI.run([])
        #expect(noArguments.status == 2)
    }
}

/// `ccai jwt sign`.
@Suite struct CommandHelpTests {
    @Test(arguments: [["run", "-h"], ["run", "--help"], ["sandbox", "serve", "--help"], ["jwt", "sign", "-h"], ["plugins", "-h"]])
    func everyCommandShowsItsHelp(_ arguments: [String]) throws {
        let output = try CLI.run(arguments)
        #expect(output.status == 0 && output.stdout.hasPrefix("Usage: ccai \(arguments[0])"), "\(output.stdout) \(output.stderr)")
    }
}

@Suite struct LogSafetyTests {
    /// What a script writes to the log cannot fake a line or send escape sequences to the
    /// terminal; a traceback keeps its lines; `print` is the script's standard output.
    @Test func controlCharactersInLogsAreEscaped() throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("log-injection-\(UUID().uuidString).lua")
        try #"""
            ccai.log.info("one\n00:00:00.000 ERROR forged", { ["key\n"] = "v\27[2J", other = "\27]0;title\7" })
            print("printed\27[31m red")
            error("boom\n00:00:00.000 INFO forged too")
            """#.write(to: script, atomically: true, encoding: .utf8)
        let output = try CLI.run(["run", script.path])
        #expect(output.status == 1)
        #expect(!output.stderr.contains("\u{1b}") && !output.stderr.contains("\u{7}"), "no raw ESC or BEL")
        let lines = output.stderr.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("00:00:00.000") }, "no forged line: \(output.stderr)")
        #expect(output.stderr.contains(#"one\n00:00:00.000 ERROR forged"#))
        #expect(output.stdout == "printed\u{1b}[31m red\n", "print writes the script's own output, as stock Lua does")
        #expect(output.stderr.contains("stack traceback:\n"), "a traceback keeps its lines")
    }
}

@Suite struct JWTCommandTests {
    @Test func signsTokensWithClaims() throws {
        let output = try CLI.run(["jwt", "sign", "--secret", "dev-secret", "--alg", "HS256",
                                  "--claims", #"{"identifier":"user-1"}"#, "--ttl", "60"])
        #expect(output.status == 0, "\(output.stderr)")
        let parts = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
        #expect(parts.count == 3)
        var payload = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        let claims = try JSONSerialization.jsonObject(with: Data(base64Encoded: payload)!) as! [String: Any]
        #expect(claims["identifier"] as? String == "user-1")
        #expect((claims["exp"] as! Int) - (claims["iat"] as! Int) == 60)
    }

    /// The safe pattern for --jwt-command: the identity document goes through whole, so an
    /// identifier cannot add claims (it could when the JSON was built in the shell).
    @Test func claimsFromStandardInputCannotBeInjected() throws {
        let hostile = #"{"identifier":"x\",\"admin\":true,\"y\":\""}"#
        let output = try CLI.run(["jwt", "sign", "--claims", "-"], environment: ["CCAI_COMPANY_SECRET": "dev-secret"],
                                 input: Data(hostile.utf8))
        #expect(output.status == 0, "\(output.stderr)")
        let parts = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
        var payload = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        let claims = try JSONSerialization.jsonObject(with: Data(base64Encoded: payload)!) as! [String: Any]
        #expect(claims["identifier"] as? String == #"x","admin":true,"y":""#)
        #expect(claims["admin"] == nil)
    }

    @Test(arguments: [
        (["jwt"], "jwt needs a command: sign"),
        (["jwt", "verify"], "unknown jwt command 'verify'"),
        (["jwt", "sign"], "jwt sign needs --secret"),
        (["jwt", "sign", "--secret", "s", "--alg", "RS256"], "--alg must be HS384 or HS256"),
        (["jwt", "sign", "--secret", "s", "--claims", "[1]"], "--claims must be a JSON object"),
        (["jwt", "sign", "--secret", "s", "--ttl", "-5"], "--ttl expects a positive number"),
        (["jwt", "sign", "--secret", "s", "--ttl", "1e300"], "at most 100 years"),
        (["jwt", "sign", "--secret", "s", "--ttl", "inf"], "--ttl expects a positive number"),
        (["jwt", "sign", "--secret", "s", "--secret-file", "f"], "exclude each other"),
        (["jwt", "sign", "--secret-file", "/nonexistent/secret"], "cannot read"),
    ])
    func usageErrors(_ arguments: [String], _ message: String) throws {
        let output = try CLI.run(arguments)
        #expect(output.status == 2)
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }
}

/// `ccai run` with the SDK: embedded sandbox, a configuration, or a remote platform.
@Suite struct RunWithPlatformTests {
    /// Writes a sandbox configuration to a temporary file and returns its path.
    private func configurationFile(_ name: String, _ text: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).lua")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func unansweredRequestsOfAnAgentTimeOutOrEndWithTheChat() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("waits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
            return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Help", channels = { chat = {} } } },
                     agents = { { name = "Wes", menus = { 1 }, script = "agent.lua" } },
                     custom_forms = { { id = 1, questions = { { id = 1, type = "text", text = "Name" } } } },
                     web_forms = { { external_form_id = "w" } } }
            """.write(to: folder.appendingPathComponent("sandbox.lua"), atomically: true, encoding: .utf8)
        try """
            return function(agent)
              local action = agent.request_smart_action{ type = "photo", timeout = 0.3 }
              local form = agent.send_form{ id = 1, timeout = 0.3 }
              local web = agent.send_web_form{ external_form_id = "w", timeout = 0.3 }
              agent.send(string.format("photo=%s form=%s web=%s", action.status, tostring(form), tostring(web)))
              local last = agent.request_smart_action{ type = "text", timeout = 30 }
              print("after the chat ended: " .. tostring(last))
            end
            """.write(to: folder.appendingPathComponent("agent.lua"), atomically: true, encoding: .utf8)
        try """
            ccai.initialize_chat()
            ccai.chat.start{ menu_id = 1 }
            local report = ccai.chat.wait_for("messages_received", { timeout = 10, match = function(m)
              return m[1].sender.type == "agent" and (m[1].text or ""):find("^photo=") end })[1]
            assert(report.text == "photo=requested form=nil web=nil", report.text)
            ccai.smart_action.wait_for("requested", { timeout = 10, match = function(a) return a.type == "text" end })
            ccai.chat.end_chat()
            ccai.sleep(0.5)
            """.write(to: folder.appendingPathComponent("customer.lua"), atomically: true, encoding: .utf8)
        let output = try CLI.run(["run", folder.appendingPathComponent("customer.lua").path,
                                  "--sandbox", folder.appendingPathComponent("sandbox.lua").path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("after the chat ended: nil"), "the agent's wait ends with the chat: \(output.stderr)")
    }

    @Test func theEmbeddedSandboxServesTheSDK() throws {
        let output = try CLI.run(["run", "Tests/Scenarios/company.lua"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("company scenario passed"))
    }

    @Test func aSandboxClockMakesItAfterHours() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("evening-\(UUID().uuidString).lua")
        try """
            return { company = { name = "Late", languages = { "en" }, time_zone = "America/New_York", key = "k", secret = "s" },
                     clock_start = "2026-11-30T20:00:00-05:00",
                     hours = { mon = "09:00-17:00" },
                     menus = { { id = 1, name = "Day", channels = { chat = {} }, deflection = { after_hours = 2 },
                                 after_hours_message = "Closed for the night" },
                               { id = 2, name = "Night", hours = { mon = true }, channels = { chat = {} } } } }
            """.write(to: config, atomically: true, encoding: .utf8)
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("evening-\(UUID().uuidString).lua")
        try """
            local menus = ccai.queue_menu.get{}
            local day, night = menus:find_menu(1), menus:find_menu(2)
            assert(day.channels.chat.deflected and day.redirection_extra.menu_id == 2, "deflected after hours")
            assert(day.redirection_extra.message == "Closed for the night")
            assert(night.deflection_from[1].menu_id == 1 and night.deflection_from[1].deflection_type == "after_hour_deflection")
            assert(#day:get_enabled_channels() == 0 and night:get_enabled_channels()[1].type == "chat")
            """.write(to: script, atomically: true, encoding: .utf8)
        let output = try CLI.run(["run", script.path, "--sandbox", config.path])
        #expect(output.status == 0, "\(output.stderr)")
    }

    @Test func agentScriptsDriveTheSandboxAgents() throws {
        let output = try CLI.run(["run", "Tests/Scenarios/scripted_agents.lua", "--sandbox", "Tests/Scenarios/agents/sandbox.lua"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("scripted agents scenario passed"))
        #expect(output.stderr.contains("agent Oops"), "a failing agent script is logged with the agent's name")
        #expect(output.stderr.contains("broken.lua:8: the agent script broke on purpose"))
    }

    @Test func smartActionsAndFormsAreAnsweredThroughPluginsAndAttachmentsKeepTheLimits() throws {
        let output = try CLI.run(["run", "Tests/Scenarios/smart_actions/scenario.lua",
                                  "--sandbox", "Tests/Scenarios/smart_actions/sandbox.lua"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("smart actions scenario passed") && output.stderr.contains("forms scenario passed"))
        #expect(output.stderr.contains("plugin loaded name=claims-answers"), "the plugins folder beside the scenario is loaded")
    }

    @Test func virtualAgentsAnswerAndEscalate() throws {
        let output = try CLI.run(["run", "Tests/Scenarios/virtual_agents.lua", "--sandbox", "Tests/Scenarios/agents/sandbox.lua"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("virtual agents scenario passed"))
    }

    @Test func impossibleAgentAndTimeoutSettingsAreConfigurationErrors() throws {
        let config = try configurationFile("va", """
            return { company = { name = "Lost", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                     menus = { { id = 1, name = "Help", channels = { chat = { virtual_agent = "nobody" } } } } }
            """)
        let output = try CLI.run(["run", "Tests/Scenarios/company.lua", "--sandbox", config.path])
        #expect(output.status == 1)
        #expect(output.stderr.contains("channels.chat.virtual_agent: there is no virtual agent 'nobody'"), "\(output.stderr)")
        let busy = try configurationFile("capacity", """
            return { company = { name = "Busy", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                     menus = { { id = 1, name = "Help", channels = { chat = {} } } },
                     agents = { { name = "Zed", menus = { 1 }, max_chats = 0 } } }
            """)
        let refused = try CLI.run(["run", "Tests/Scenarios/company.lua", "--sandbox", busy.path])
        #expect(refused.status == 1 && refused.stderr.contains("agents[Zed].max_chats: at least 1, got 0"), "\(refused.stderr)")
        let hasty = try configurationFile("timeout", """
            return { company = { name = "Hasty", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                     chat_timeout_seconds = 0 }
            """)
        let rejected = try CLI.run(["run", "Tests/Scenarios/company.lua", "--sandbox", hasty.path])
        #expect(rejected.status == 1 && rejected.stderr.contains("chat_timeout_seconds: a positive number"), "\(rejected.stderr)")
    }

    @Test func aMissingAgentScriptIsAConfigurationError() throws {
        let config = try configurationFile("agents", """
            return { company = { name = "Lost", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                     menus = { { id = 1, name = "Help", channels = { chat = {} } } },
                     agents = { { name = "Ghost", menus = { 1 }, script = "no-such-agent.lua" } } }
            """)
        let output = try CLI.run(["run", "Tests/Scenarios/company.lua", "--sandbox", config.path])
        #expect(output.status == 1)
        #expect(output.stderr.contains("agents[Ghost].script: cannot read"), "\(output.stderr)")
        #expect(output.stderr.contains(config.deletingLastPathComponent().appendingPathComponent("no-such-agent.lua").path),
                "the path is resolved next to the configuration")
    }

    @Test func aSandboxConfigurationChangesTheCompany() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("globex-\(UUID().uuidString).lua")
        try """
            return { company = { name = "Globex", languages = { "en" }, time_zone = "UTC", key = "gx", secret = "s3",
                                 jwt_algorithms = { "HS256" } } }
            """.write(to: config, atomically: true, encoding: .utf8)
        let output = try CLI.run(["run", "Tests/Scenarios/company.lua", "--sandbox", config.path, "--env", "COMPANY=Globex"])
        #expect(output.status == 0, "\(output.stderr)")
    }

    @Test func aRemotePlatformWithASecretOrAJWTCommand() throws {
        let server = try SandboxCommandTests.Server([])
        defer { _ = server.stop() }
        let host = server.url
        let withSecret = try CLI.run(["run", "Tests/Scenarios/company.lua", "--host", host, "--company-key", "dev-key",
                                      "--company-secret", "dev-secret"])
        #expect(withSecret.status == 0, "\(withSecret.stderr)")
        let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)")
        try "dev-secret\n".write(to: secretFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secretFile) }
        let command = "\(CLI.binary.path) jwt sign --secret-file \(secretFile.path) --claims -"
        let withCommand = try CLI.run(["run", "Tests/Scenarios/company.lua", "--host", host, "--company-key", "dev-key",
                                       "--jwt-command", command])
        #expect(withCommand.status == 0, "\(withCommand.stderr)")
        let fromFile = try CLI.run(["run", "Tests/Scenarios/company.lua", "--host", host, "--company-key", "dev-key",
                                    "--company-secret-file", secretFile.path])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let fromEnvironment = try CLI.run(["run", "Tests/Scenarios/company.lua", "--host", host, "--company-key", "dev-key"],
                                          environment: ["CCAI_COMPANY_SECRET": "dev-secret"])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        let wrongSecret = try CLI.run(["run", "Tests/Scenarios/company.lua", "--host", host, "--company-key", "dev-key",
                                       "--company-secret", "nope"])
        #expect(wrongSecret.status == 1)
        #expect(wrongSecret.stderr.contains("[unauthenticated]"), "\(wrongSecret.stderr)")
    }

    /// One clock: with `clock_start`, the script's `ccai.now()` and a deflection plugin's
    /// `ctx.now_local` read the sandbox's time, so "after 18:00" can be tried at noon.
    @Test func scriptsPluginsAndTheSandboxReadOneClock() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("one-clock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("plugins"), withIntermediateDirectories: true)
        try """
            return { company = { name = "Acme", languages = { "en" }, time_zone = "America/Los_Angeles", key = "dev-key",
                                 secret = "dev-secret" },
                     clock_start = "2026-11-30T20:00:00-08:00",
                     menus = { { id = 1, name = "Help", channels = { chat = {} } } } }
            """.write(to: folder.appendingPathComponent("sandbox.lua"), atomically: true, encoding: .utf8)
        try """
            return { name = "evening", deflection = function(menu, ctx)
              return { action = "message", text = string.format("%d:%02d", ctx.now_local.hour, ctx.now_local.min) }
            end }
            """.write(to: folder.appendingPathComponent("plugins/evening.lua"), atomically: true, encoding: .utf8)
        try """
            print(string.format("%.0f", ccai.now() - 1796097600))  -- 2026-12-01T04:00Z: 20:00 in Los Angeles
            local decision = ccai.plugins.evaluate_deflection(ccai.queue_menu.get{}[1], { channel = "chat" })
            print(decision.text)
            """.write(to: folder.appendingPathComponent("clock.lua"), atomically: true, encoding: .utf8)
        let output = try CLI.run(["run", folder.appendingPathComponent("clock.lua").path, "--sandbox",
                                  folder.appendingPathComponent("sandbox.lua").path])
        #expect(output.status == 0, "\(output.stderr)")
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && (Int(lines[0]) ?? 999) >= 0 && (Int(lines[0]) ?? 999) < 60,
                "ccai.now() is the sandbox's 20:00 (seconds since): \(lines)")
        #expect(lines.last == "20:00", "the plugin's local time is the sandbox's: \(lines)")
    }

    /// Runs against a long-lived sandbox see their own session only: three runs in a row of
    /// the same end user, each gets its own chat's events, none of the earlier runs'.
    @Test func eachRunSeesOnlyItsOwnEvents() throws {
        let server = try SandboxCommandTests.Server([])
        defer { _ = server.stop() }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("own-events-\(UUID().uuidString).lua")
        try """
            ccai.initialize_chat()
            local chat = ccai.chat.start{ menu_id = 7 }
            ccai.chat.send_message("hello")
            local first = ccai.chat.wait_for("messages_received", { timeout = 10 })
            assert(first[1].chat_id == chat.id, "the first event is of this run's chat " .. chat.id .. ", not of chat " .. first[1].chat_id)
            local received = ccai.chat.wait_for("chat_received", { timeout = 10 })
            assert(received.id == chat.id, "chat_received is this run's chat")
            ccai.chat.end_chat()
            print("own chat " .. chat.id)
            """.write(to: script, atomically: true, encoding: .utf8)
        var chats: [String] = []
        for _ in 1...3 {
            let run = try CLI.run(["run", script.path, "--host", server.url, "--company-key", "dev-key", "--company-secret", "dev-secret"])
            #expect(run.status == 0, "\(run.stderr)")
            chats.append(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(Set(chats).count == 3, "three chats: \(chats)")
    }

    /// A first contact that fails says why: the platform's refusal or the transport's error,
    /// not only "no auth token"; a platform that takes HS256 only gets HS256.
    @Test func authenticationFailuresSayWhy() throws {
        let server = try SandboxCommandTests.Server([])
        defer { _ = server.stop() }
        let wrongSecret = try CLI.run(["run", "Tests/Scenarios/company.lua", "--host", server.url, "--company-key", "dev-key",
                                       "--company-secret", "nope"])
        #expect(wrongSecret.status == 1 && wrongSecret.stderr.contains("the signature does not match"), "\(wrongSecret.stderr)")
        let wrongKey = try CLI.run(["run", "Tests/Scenarios/company.lua", "--host", server.url, "--company-key", "other",
                                    "--company-secret", "dev-secret"])
        #expect(wrongKey.stderr.contains("unknown company key 'other'"), "\(wrongKey.stderr)")
        let refused = try CLI.run(["run", "Tests/Scenarios/company.lua", "--host", "127.0.0.1:1", "--company-key", "dev-key",
                                   "--company-secret", "dev-secret"])
        #expect(refused.status == 1 && refused.stderr.contains("[unavailable]"), "\(refused.stderr)")

        let config = FileManager.default.temporaryDirectory.appendingPathComponent("hs256-\(UUID().uuidString).lua")
        try """
            return { company = { name = "Acme", languages = { "en", "es" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret",
                                 jwt_algorithms = { "HS256" } } }
            """.write(to: config, atomically: true, encoding: .utf8)
        let hs256 = try SandboxCommandTests.Server(["--config", config.path])
        defer { _ = hs256.stop() }
        let fallback = try CLI.run(["run", "Tests/Scenarios/company.lua", "--host", hs256.url, "--company-key", "dev-key",
                                    "--company-secret", "dev-secret"])
        #expect(fallback.status == 0, "HS384 refused as unsupported: the host signs HS256: \(fallback.stderr)")
        let pinned = try CLI.run(["run", "Tests/Scenarios/company.lua", "--host", hs256.url, "--company-key", "dev-key",
                                  "--company-secret", "dev-secret", "--jwt-alg", "HS384"])
        #expect(pinned.status == 1 && pinned.stderr.contains("unsupported signing algorithm 'HS384'"), "\(pinned.stderr)")
        let chosen = try CLI.run(["run", "Tests/Scenarios/company.lua", "--host", hs256.url, "--company-key", "dev-key",
                                  "--company-secret", "dev-secret", "--jwt-alg", "hs256"])
        #expect(chosen.status == 0, "\(chosen.stderr)")
    }

    @Test(arguments: [
        (["run", "x.lua", "--host", "h", "--company-key", "k", "--company-secret", "s", "--jwt-alg", "RS256"], "--jwt-alg must be"),
        (["run", "x.lua", "--jwt-alg", "HS256"], "go with --host"),
        (["run", "x.lua", "--host", "h"], "--host needs --company-key"),
        (["run", "x.lua", "--host", "h", "--company-key", "k"], "exactly one of a company secret"),
        (["run", "x.lua", "--company-secret", "s"], "go with --host"),
        (["run", "x.lua", "--sandbox", "c.lua", "--host", "h"], "exclude each other"),
    ])
    func connectionUsageErrors(_ arguments: [String], _ message: String) throws {
        let output = try CLI.run(arguments)
        #expect(output.status == 2)
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }
}

/// `ccai plugins check` and `ccai run --plugins`.
@Suite struct PluginCommandTests {
    private func folder(_ files: [String: String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cli-plugins-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, source) in files { try source.write(toFile: path + "/" + name, atomically: true, encoding: .utf8) }
        return path
    }

    @Test func checkReportsEveryPlugin() throws {
        let good = try CLI.run(["plugins", "check", "examples/plugins"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.contains("ok    night-shift 1.0.0") && good.stdout.contains("1 loaded, 0 failed"))
        let bad = try folder(["broken.lua": "return {", "fine.lua": "return { name = 'fine' }"])
        let checked = try CLI.run(["plugins", "check", bad])
        #expect(checked.status == 1)
        #expect(checked.stdout.contains("FAIL") && checked.stdout.contains("broken.lua") && checked.stdout.contains("1 loaded, 1 failed"))
        #expect(try CLI.run(["plugins", "check"]).status == 2)
        #expect(try CLI.run(["plugins", "verify", "x"]).status == 2)
    }

    /// A failing plugin is reported once; a plugin file can be checked on its own; a
    /// `--plugins` folder that does not exist is a usage error, not a silent run without it.
    @Test func pluginFailuresAreReportedOnceAndFoldersMustExist() throws {
        let plugins = try folder(["broken.lua": "return {", "fine.lua": "return { name = 'fine' }"])
        let checked = try CLI.run(["plugins", "check", plugins])
        #expect(checked.status == 1)
        let mentions = (checked.stdout + checked.stderr).components(separatedBy: "unexpected symbol").count - 1
        #expect(mentions == 1, "the error once: \(checked.stdout) \(checked.stderr)")
        let typo = try folder(["typo.lua": "return { name = 'typo', deflecton = function() end }"])
        let flagged = try CLI.run(["plugins", "check", typo])
        #expect(flagged.status == 1 && flagged.stdout.contains("unknown field 'deflecton' (did you mean 'deflection'?)"),
                "\(flagged.stdout)")
        let file = try CLI.run(["plugins", "check", plugins + "/fine.lua"])
        #expect(file.status == 0 && file.stdout.contains("1 loaded, 0 failed"), "\(file.stdout) \(file.stderr)")
        let lenient = try CLI.run(["run", "Tests/Scenarios/company.lua", "--plugins", plugins])
        #expect(lenient.status == 0, "a broken plugin is reported and the run goes on: \(lenient.stderr)")
        let strict = try CLI.run(["run", "Tests/Scenarios/company.lua", "--plugins", plugins, "--strict-plugins"])
        #expect(strict.status == 1 && strict.stderr.contains("broken.lua"), "\(strict.stderr)")
        let missing = try CLI.run(["run", "Tests/Scenarios/company.lua", "--plugins", plugins + "/no-such-folder"])
        #expect(missing.status == 2 && missing.stderr.contains("there is no folder"), "\(missing.stderr)")
    }

    /// The review's file write: a plugin's on_load staged a video under a name that climbed
    /// out of the temporary folder, and `plugins check` ran it.
    @Test func checkingAPluginWritesNothingOutside() throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("pwned-\(UUID().uuidString).txt").path
        let plugins = try folder(["writer.lua": """
            return { name = "writer", on_load = function(ctx)
              local ok, err = pcall(ccai.chat.send_message, { videos = { { data = "x", mime_type = "text/plain",
                name = "../../../../..\(target)" } } })
              assert(not ok and err.code == "invalid_argument", tostring(err))
              local read_ok, read_err = pcall(ccai.chat.send_message, { images = { { path = "/etc/passwd", mime_type = "image/png" } } })
              assert(not read_ok and read_err.message:find("absolute"), tostring(read_err))
            end }
            """])
        let checked = try CLI.run(["plugins", "check", plugins])
        #expect(checked.status == 0, "\(checked.stdout) \(checked.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func runUsesThePluginsItIsGiven() throws {
        let plugins = try folder(["always_phone.lua": """
            return { name = "always-phone", deflection = function() return { action = "phone", number = "+15550100" } end }
            """])
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("use-plugins-\(UUID().uuidString).lua")
        try """
            local menus = ccai.queue_menu.get{}
            local decision = ccai.plugins.evaluate_deflection(menus[1], { channel = "voice_call" })
            assert(decision.action == "phone" and decision.number == "+15550100" and decision.plugin == "always-phone")
            assert(ccai.plugins.list()[1].name == "always-phone")
            """.write(to: script, atomically: true, encoding: .utf8)
        let output = try CLI.run(["run", script.path, "--plugins", plugins])
        #expect(output.status == 0, "\(output.stderr)")
    }
}
