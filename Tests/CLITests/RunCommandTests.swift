import Foundation
import TestSupport
import Testing

/// `ccai run` and the other commands, through the real executable: arguments, exit
/// statuses and output. The Lua scenarios themselves run in process (LuaScenarioTests).
@Suite struct RunCommandTests {
    private func script(_ source: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString).lua")
        try source.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test(arguments: ["tasks.lua", "chat.lua"])
    func luaScenariosPassThroughTheBinary(_ name: String) async throws {
        let output = try await CLI.run(["run", "Tests/Scenarios/\(name)", "--env", "NAME=Ana"])
        #expect(output.status == 0, "\(name): \(output.stderr)")
        #expect((output.stderr + output.stdout).contains("scenario passed"))
    }

    @Test func theOutputFolderMustExist() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID().uuidString)").path
        let output = try await CLI.run(["run", "Tests/Scenarios/chat.lua", "--out-dir", missing])
        #expect(output.status == 2 && output.stderr.contains("--out-dir"), "\(output.stderr)")
    }

    /// A script run from a home folder cannot replace `.bashrc`: without `--out-dir` files
    /// go to `./ccai-out/` (made 0700 on the first write), new files are 0600, and what
    /// was in the working directory stays as it was.
    @Test func transcriptsGoToCcaiOutNotTheWorkingDirectory() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let bashrc = home.appendingPathComponent(".bashrc")
        try "export PS1='$ '\n".write(to: bashrc, atomically: true, encoding: .utf8)
        let path = try script("""
            ccai.initialize_chat()
            ccai.chat.start{ menu_id = 7 }
            print(ccai.chat.download_chat_transcript{ to = ".bashrc" })
            ccai.chat.end_chat()
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("ccai-out").path), "not made before a write")
        let output = try await CLI.run(["run", path, "--quiet"], directory: home)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try String(contentsOf: bashrc, encoding: .utf8) == "export PS1='$ '\n", "the working directory's .bashrc is untouched")
        let written = home.appendingPathComponent("ccai-out/.bashrc")
        #expect(try Data(contentsOf: written).starts(with: Data("%PDF-".utf8)))
        #expect(output.stdout == written.resolvingSymlinksInPath().path + "\n", "the path it returns opens the file from anywhere")
        let folderMode = try FileManager.default.attributesOfItem(atPath: home.appendingPathComponent("ccai-out").path)[.posixPermissions]
        let fileMode = try FileManager.default.attributesOfItem(atPath: written.path)[.posixPermissions]
        #expect((folderMode as? NSNumber)?.intValue == 0o700 && (fileMode as? NSNumber)?.intValue == 0o600)
    }

    /// `--host 127.attacker.example` is a remote host: HTTPS, as for any name; only
    /// literal loopback addresses and localhost get plain HTTP unless the URL says `http://`.
    @Test func aLoopbackLookalikeHostIsReachedOverHTTPS() async throws {
        let path = try script("print(ccai.options.get().base_url)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        for (host, expected) in [("127.attacker.example", "https://127.attacker.example"), ("127.0.0.1:9", "http://127.0.0.1:9"),
                                 ("[::1]:9", "http://[::1]:9"), ("http://platform.test:9", "http://platform.test:9")] {
            let output = try await CLI.run(["run", path, "--host", host, "--company-key", "k", "--company-secret", "s"])
            #expect(output.status == 0 && output.stdout == expected + "\n", "\(host): \(output.stdout)\(output.stderr)")
        }
    }

    @Test func theLogoutRecipeClearsAllThree() async throws {
        let output = try await CLI.run(["run", "examples/logout.lua", "--quiet"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "signed in as vu-1\nended chat 1\nlogged out; the old token is revoked\n", "\(output.stdout)")
    }

    @Test func thePostSessionExampleRoutesAndSavesTranscripts() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try await CLI.run(["run", "examples/post_session/scenario.lua", "--sandbox", "examples/post_session/sandbox.lua",
                                  "--out-dir", folder.path, "--quiet"])
        #expect(output.status == 0, "\(output.stderr)")
        let written = folder.resolvingSymlinksInPath().path
        #expect(output.stdout == """
            chat 1: rated 4 (Quick answer); transcript \(written)/transcript-1.pdf
            chat 2: survey answered (4 questions); transcript \(written)/transcript-2.pdf

            """, "\(output.stdout)")
        let text = try await runTool("/usr/bin/pdftotext", ["-enc", "UTF-8", folder.appendingPathComponent("transcript-2.pdf").path, "-"])
        #expect(text.contains("Léa (agent)") && text.contains("Je suis client VIP") && text.contains("Northwind"), "\(text)")
    }

    /// The scheduling example books, moves and cancels, then the callback rings when its
    /// slot comes and Sam takes it. The embedded sandbox lives as long as the run: its
    /// chore rings the booked call back (it went with the sandbox's last reference once,
    /// and no callback came). In virtual time: business time starts 15 s before the queue
    /// opens, and on a busy machine the booking of the first slot could come after it.
    @Test func theSchedulingExampleRingsBackInARun() async throws {
        let output = try await CLI.run(["run", "examples/calls/scheduling.lua", "--sandbox", "examples/calls/scheduling-sandbox.lua",
                                        "--virtual-time"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("scheduling scenario passed"), "\(output.stdout)")
        #expect(output.stderr.contains("incoming call") && output.stderr.contains("via=event_stream"), "\(output.stderr)")
        #expect(output.stderr.contains("agent=Sam"), "\(output.stderr)")
    }

    @Test func theQuickStartRuns() async throws {
        let output = try await CLI.run(["run", "examples/quickstart.lua", "--env", "CUSTOMERS=2"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("connected") && output.stderr.contains("company=Acme"))
        #expect(output.stderr.contains("by=night-shift"), "the plugin beside the script decides")
        #expect(output.stderr.contains("customer done"))
        #expect(output.stdout.contains("\"customers\""), "the summary is the script's print: \(output.stdout)")
    }

    @Test func theSupportBotExampleRuns() async throws {
        let output = try await CLI.run(["run", "examples/support_bot/scenario.lua", "--sandbox", "examples/support_bot/sandbox.lua"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("Claim for policy POL-20931") && output.stderr.contains("[card]"), "\(output.stderr)")
        #expect(output.stderr.contains("smart_actions=2 text=POL-20931"))
    }

    @Test func theMenuBrowserRuns() async throws {
        let output = try await CLI.run(["run", "examples/menu_browser.lua", "--env", "LANGUAGE=es"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("Facturación [1]") && output.stdout.contains("Internet [22]"), "\(output.stdout)")
        let direct = try await CLI.run(["run", "examples/menu_browser.lua", "--env", "KEY=vip"])
        #expect(direct.stdout.contains("direct access point: VIP"))
    }

    @Test func aFailingScriptExitsOneWithItsErrorAndTraceback() async throws {
        let path = try script("local function broken() local t = nil; return t.x end\nbroken()")
        let output = try await CLI.run(["run", path])
        #expect(output.status == 1)
        #expect(output.stderr.contains("error: "))
        #expect(output.stderr.contains("attempt to index a nil value (local 't')"))
        #expect(output.stderr.contains("stack traceback:"))
    }

    @Test func structuredErrorsShowTheirCode() async throws {
        let path = try script("ccai.sleep('soon')")
        let output = try await CLI.run(["run", path])
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
    func scriptsThatExhaustTheSandboxEndCleanly(_ source: String, _ message: String) async throws {
        let path = try script(source)
        let output = try await CLI.run(["run", path, "--memory-limit", "16M", "--instruction-limit", "5000000"])
        #expect(output.status == 1, "\(output.stderr)")
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }

    @Test func theTimeLimitEndsLongRuns() async throws {
        let path = try script("while true do end")
        let output = try await CLI.run(["run", path, "--instruction-limit", "0", "--time-limit", "0.3"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("time limit exceeded"))
    }

    @Test func logLevelsFilter() async throws {
        let path = try script("ccai.log.debug('dbg'); ccai.log.info('inf'); ccai.log.warn('wrn')")
        let quiet = try await CLI.run(["run", path, "--quiet"])
        #expect(quiet.status == 0)
        #expect(!quiet.stderr.contains("inf") && quiet.stderr.contains("wrn"))
        let debug = try await CLI.run(["run", path, "--log-level", "debug"])
        #expect(debug.stderr.contains("dbg"))
    }

    @Test(arguments: [
        (["run"], "run needs a script"),
        (["run", "a.lua", "b.lua"], "unexpected argument 'b.lua'"),
        (["run", "x.lua", "--env", "NOEQUALS"], "--env expects KEY=VALUE"),
        (["run", "x.lua", "--env"], "--env needs a value"),
        (["sandbox", "show", "--env", "AGENTS"], "--env expects KEY=VALUE, got 'AGENTS'"),
        (["sandbox", "check", "x.lua", "--env", "=8"], "--env expects KEY=VALUE, got '=8'"),
        (["sandbox", "serve", "--env", "AGENTS"], "--env expects KEY=VALUE, got 'AGENTS'"),
        (["run", "x.lua", "--log-level", "loud"], "--log-level must be"),
        (["run", "x.lua", "--memory-limit", "lots"], "--memory-limit expects a size"),
        (["run", "x.lua", "--bogus"], "unknown option '--bogus'"),
        (["fly"], "unknown command 'fly'"),
        (["help", "fly"], "unknown command 'fly'"),
    ])
    func usageErrorsExitTwo(_ arguments: [String], _ message: String) async throws {
        let output = try await CLI.run(arguments)
        #expect(output.status == 2)
        #expect(output.stderr.contains(message), "\(output.stderr)")
        #expect(output.stderr.contains("Run 'ccai help"))
    }

    /// Issue 34, item 9: the embedded sandbox's configuration reads the run's `--env` as
    /// `env`, as the scenario reads it as `ccai.env`.
    @Test func theEmbeddedSandboxsConfigurationReadsTheRunsEnvironment() async throws {
        let configuration = try script("""
            return { company = { name = "Acme", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = env.QUEUE or "Help", channels = { chat = {} } } } }
            """)
        let path = try script("print(ccai.env.QUEUE .. ': ' .. ccai.queue_menu.get():find_menu(1).name)")
        defer { for file in [configuration, path] { try? FileManager.default.removeItem(atPath: file) } }
        let output = try await CLI.run(["run", path, "--sandbox", configuration, "--env", "QUEUE=Claims", "--quiet"])
        #expect(output.status == 0 && output.stdout.contains("Claims: Claims"), "\(output.stdout)\n\(output.stderr)")
    }

    /// A file named on the command line that is not there is a usage error (exit 2) that
    /// says which file it is, as the README's exit statuses say.
    @Test func aMissingScriptOrSandboxIsAUsageError() async throws {
        let output = try await CLI.run(["run", "no/such/script.lua"])
        #expect(output.status == 2 && output.stderr.contains("cannot read script 'no/such/script.lua'"), "\(output.stderr)")
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("present-\(UUID().uuidString).lua").path
        try "print('never runs')".write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let sandbox = try await CLI.run(["run", script, "--sandbox", "missing.lua"])
        #expect(sandbox.status == 2 && sandbox.stderr.contains("--sandbox: cannot read the sandbox configuration 'missing.lua'")
                && !sandbox.stdout.contains("never runs"), "\(sandbox.stderr)")
    }

    /// A platform that cannot be reached is named in the error.
    @Test func aServerThatCannotBeReachedIsNamed() async throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("reach-\(UUID().uuidString).lua").path
        try "ccai.company.get()".write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let output = try await CLI.run(["run", script, "--host", "http://127.0.0.1:1", "--company-key", "k", "--company-secret", "s"])
        #expect(output.status == 1 && output.stderr.contains("the server is unavailable: ")
                && output.stderr.contains(" at http://127.0.0.1:1"), "\(output.stderr)")
    }

    /// An error raised with a table reads as the table's contents, not its address.
    @Test func aTableRaisedAsAnErrorReadsAsItsContents() async throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("raise-\(UUID().uuidString).lua").path
        try #"error({ code = 7, reason = "no stock", items = { 1, 2 }, ["not a name"] = true })"#
            .write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let output = try await CLI.run(["run", script])
        #expect(output.status == 1)
        #expect(output.stderr.contains(#"error: { code = 7, items = { 1, 2 }, ["not a name"] = true, reason = "no stock" }"#),
                "\(output.stderr)")
    }

    @Test func typesWritesStubsAndConfigurations() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("types-\(UUID().uuidString)").path
        let output = try await CLI.run(["types", "--out", folder])
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
        #expect(try await CLI.run(["types"]).status == 2)
    }

    /// docs/reference/ is what the code generates: a changed signature, hook, agent
    /// function or configuration field shows here until the reference is regenerated.
    @Test func theReferenceAgreesWithTheCode() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reference-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try await CLI.run(["reference", "--out", folder.path])
        #expect(output.status == 0, "\(output.stderr)")
        let committed = CLI.root.appendingPathComponent("docs/reference")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["README.md", "agents.md", "built-in-company.md", "events.md", "lua-api.md", "plugins.md", "sandbox-configuration.md"])
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
    @Test func theLuacheckSettingsFitScriptsPluginsAndAgents() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lint-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await CLI.run(["types", "--out", folder.path]).status == 0)
        let luacheck = "/usr/bin/luacheck"
        try #require(FileManager.default.isExecutableFile(atPath: luacheck), "scripts/bootstrap installs lua-check")
        func lint(_ config: String, _ files: [String]) async throws -> String {
            try await runTool(luacheck, ["--no-color", "--config", folder.appendingPathComponent(config).path] + files)
        }
        // Every Lua file of the examples, configurations included; agent scripts apart.
        let root = CLI.root.appendingPathComponent("examples")
        let files = (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".lua") }.sorted()
        let (agentFiles, scriptFiles) = (files.filter { $0.contains("agents/") }, files.filter { !$0.contains("agents/") })
        #expect(scriptFiles.contains("post_session/sandbox.lua") && !agentFiles.isEmpty)
        let report = try await lint(".luacheckrc", scriptFiles.map { root.appendingPathComponent($0).path })
        #expect(report.contains("Total: 0 warnings / 0 errors"), "\(report)")
        let agentReport = try await lint("agent.luacheckrc", agentFiles.map { root.appendingPathComponent($0).path })
        #expect(agentReport.contains("Total: 0 warnings / 0 errors"), "\(agentReport)")
        let agent = folder.appendingPathComponent("agent.lua.test")
        try "return function(agent, session)\n  ccai.log.info(\"hi\")\n  agent.send(\"Hi\")\nend\n"
            .write(to: agent, atomically: true, encoding: .utf8)
        let flagged = try await lint("agent.luacheckrc", [agent.path])
        #expect(flagged.contains("accessing undefined variable 'ccai'"), "agent scripts have no ccai: \(flagged)")
    }

    @Test func versionAndHelp() async throws {
        let version = try await CLI.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("ccai ") && version.stdout.contains("Lua 5.4"))
        let help = try await CLI.run(["help"])
        #expect(help.status == 0 && help.stdout.contains("Usage: ccai COMMAND"))
        let runHelp = try await CLI.run(["help", "run"])
        #expect(runHelp.status == 0 && runHelp.stdout.contains("--env KEY=VALUE"))
        let noArguments = try await CLI.run([])
        #expect(noArguments.status == 2)
    }
}
