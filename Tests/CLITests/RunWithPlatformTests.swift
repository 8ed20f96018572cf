import Foundation
import Testing

/// `ccai run` with the SDK: embedded sandbox, a configuration, or a remote platform.
@Suite struct RunWithPlatformTests {
    /// Writes a sandbox configuration to a temporary file and returns its path.
    private func configurationFile(_ name: String, _ text: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).lua")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func unansweredRequestsOfAnAgentTimeOutOrEndWithTheChat() async throws {
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
        let output = try await CLI.run(["run", folder.appendingPathComponent("customer.lua").path,
                                  "--sandbox", folder.appendingPathComponent("sandbox.lua").path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("after the chat ended: nil"), "the agent's wait ends with the chat: \(output.stderr)")
    }

    /// The embedded sandbox serves the SDK through its router in the process, and over
    /// HTTP on a loopback port with `--loopback`: the same scenario passes both ways.
    @Test(arguments: [[], ["--loopback"]])
    func theEmbeddedSandboxServesTheSDK(_ flags: [String]) async throws {
        let output = try await CLI.run(["run", "Tests/Scenarios/company.lua"] + flags)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("company scenario passed"))
        let misplaced = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--loopback", "--host", "127.0.0.1:1",
                                           "--company-key", "k", "--company-secret", "s"])
        #expect(misplaced.status == 2 && misplaced.stderr.contains("--loopback is for the embedded sandbox"))
    }

    @Test func aSandboxClockMakesItAfterHours() async throws {
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
        let output = try await CLI.run(["run", script.path, "--sandbox", config.path])
        #expect(output.status == 0, "\(output.stderr)")
    }

    @Test func smartActionsAndFormsAreAnsweredThroughPluginsAndAttachmentsKeepTheLimits() async throws {
        let output = try await CLI.run(["run", "Tests/Scenarios/smart_actions/scenario.lua",
                                  "--sandbox", "Tests/Scenarios/smart_actions/sandbox.lua"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("smart actions scenario passed") && output.stderr.contains("forms scenario passed"))
        #expect(output.stderr.contains("plugin loaded name=claims-answers"), "the plugins folder beside the scenario is loaded")
    }

    @Test func impossibleAgentAndTimeoutSettingsAreConfigurationErrors() async throws {
        let config = try configurationFile("va", """
            return { company = { name = "Lost", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                     menus = { { id = 1, name = "Help", channels = { chat = { virtual_agent = "nobody" } } } } }
            """)
        let output = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--sandbox", config.path])
        #expect(output.status == 1)
        #expect(output.stderr.contains("channels.chat.virtual_agent: there is no virtual agent 'nobody'"), "\(output.stderr)")
        let busy = try configurationFile("capacity", """
            return { company = { name = "Busy", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                     menus = { { id = 1, name = "Help", channels = { chat = {} } } },
                     agents = { { name = "Zed", menus = { 1 }, max_chats = 0 } } }
            """)
        let refused = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--sandbox", busy.path])
        #expect(refused.status == 1 && refused.stderr.contains("agents[Zed].max_chats: at least 1, got 0"), "\(refused.stderr)")
        let hasty = try configurationFile("timeout", """
            return { company = { name = "Hasty", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                     chat_timeout_seconds = 0 }
            """)
        let rejected = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--sandbox", hasty.path])
        #expect(rejected.status == 1 && rejected.stderr.contains("chat_timeout_seconds: a positive number"), "\(rejected.stderr)")
    }

    @Test func aMissingAgentScriptIsAConfigurationError() async throws {
        let config = try configurationFile("agents", """
            return { company = { name = "Lost", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                     menus = { { id = 1, name = "Help", channels = { chat = {} } } },
                     agents = { { name = "Ghost", menus = { 1 }, script = "no-such-agent.lua" } } }
            """)
        let output = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--sandbox", config.path])
        #expect(output.status == 1)
        #expect(output.stderr.contains("agents[Ghost].script: cannot read"), "\(output.stderr)")
        #expect(output.stderr.contains(config.deletingLastPathComponent().appendingPathComponent("no-such-agent.lua").path),
                "the path is resolved next to the configuration")
    }

    @Test func aSandboxConfigurationChangesTheCompany() async throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("globex-\(UUID().uuidString).lua")
        try """
            return { company = { name = "Globex", languages = { "en" }, time_zone = "UTC", key = "gx", secret = "s3",
                                 jwt_algorithms = { "HS256" } } }
            """.write(to: config, atomically: true, encoding: .utf8)
        let output = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--sandbox", config.path, "--env", "COMPANY=Globex"])
        #expect(output.status == 0, "\(output.stderr)")
    }

    @Test func aRemotePlatformWithASecretOrAJWTCommand() async throws {
        let server = try await SandboxCommandTests.Server.start([])
        defer { server.terminate() }
        let host = server.url
        // The scenario names its second end user: the operator lets the host sign the name.
        let withSecret = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--host", host, "--company-key", "dev-key",
                                      "--company-secret", "dev-secret", "--signed-claims", "name"])
        #expect(withSecret.status == 0, "\(withSecret.stderr)")
        let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)")
        try "dev-secret\n".write(to: secretFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secretFile) }
        let command = "\(CLI.binary.path) jwt sign --secret-file \(secretFile.path) --claims -"
        let withCommand = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--host", host, "--company-key", "dev-key",
                                       "--jwt-command", command, "--signed-claims", "name"])
        #expect(withCommand.status == 0, "\(withCommand.stderr)")
        let fromFile = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--host", host, "--company-key", "dev-key",
                                    "--company-secret-file", secretFile.path, "--signed-claims", "name"])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let fromEnvironment = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--host", host, "--company-key", "dev-key",
                                                 "--signed-claims", "name"],
                                          environment: ["CCAI_COMPANY_SECRET": "dev-secret"])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        let wrongSecret = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--host", host, "--company-key", "dev-key",
                                       "--company-secret", "nope"])
        #expect(wrongSecret.status == 1)
        #expect(wrongSecret.stderr.contains("[unauthenticated]"), "\(wrongSecret.stderr)")
    }

    /// One clock: with `clock_start`, the script's `ccai.now()` and a deflection plugin's
    /// `ctx.now_local` read the sandbox's time, so "after 18:00" can be tried at noon.
    @Test func scriptsPluginsAndTheSandboxReadOneClock() async throws {
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
        let output = try await CLI.run(["run", folder.appendingPathComponent("clock.lua").path, "--sandbox",
                                  folder.appendingPathComponent("sandbox.lua").path])
        #expect(output.status == 0, "\(output.stderr)")
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && (Int(lines[0]) ?? 999) >= 0 && (Int(lines[0]) ?? 999) < 60,
                "ccai.now() is the sandbox's 20:00 (seconds since): \(lines)")
        #expect(lines.last == "20:00", "the plugin's local time is the sandbox's: \(lines)")
    }

    /// Runs against a long-lived sandbox see their own session only: three runs in a row of
    /// the same end user, each gets its own chat's events, none of the earlier runs'.
    @Test func eachRunSeesOnlyItsOwnEvents() async throws {
        let server = try await SandboxCommandTests.Server.start([])
        defer { server.terminate() }
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
            let run = try await CLI.run(["run", script.path, "--host", server.url, "--company-key", "dev-key", "--company-secret", "dev-secret"])
            #expect(run.status == 0, "\(run.stderr)")
            chats.append(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(Set(chats).count == 3, "three chats: \(chats)")
    }

    /// A first contact that fails says why: the platform's refusal or the transport's error,
    /// not only "no auth token"; a platform that takes HS256 only gets HS256.
    @Test func authenticationFailuresSayWhy() async throws {
        let server = try await SandboxCommandTests.Server.start([])
        defer { server.terminate() }
        let wrongSecret = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--host", server.url, "--company-key", "dev-key",
                                       "--company-secret", "nope"])
        #expect(wrongSecret.status == 1 && wrongSecret.stderr.contains("the signature does not match"), "\(wrongSecret.stderr)")
        let wrongKey = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--host", server.url, "--company-key", "other",
                                    "--company-secret", "dev-secret"])
        #expect(wrongKey.stderr.contains("unknown company key 'other'"), "\(wrongKey.stderr)")
        let refused = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--host", "127.0.0.1:1", "--company-key", "dev-key",
                                   "--company-secret", "dev-secret"])
        #expect(refused.status == 1 && refused.stderr.contains("[unavailable]"), "\(refused.stderr)")

        let config = FileManager.default.temporaryDirectory.appendingPathComponent("hs256-\(UUID().uuidString).lua")
        try """
            return { company = { name = "Acme", languages = { "en", "es" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret",
                                 jwt_algorithms = { "HS256" } } }
            """.write(to: config, atomically: true, encoding: .utf8)
        let hs256 = try await SandboxCommandTests.Server.start(["--config", config.path])
        defer { hs256.terminate() }
        let fallback = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--host", hs256.url, "--company-key", "dev-key",
                                    "--company-secret", "dev-secret", "--signed-claims", "name"])
        #expect(fallback.status == 0, "HS384 refused as unsupported: the host signs HS256: \(fallback.stderr)")
        let pinned = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--host", hs256.url, "--company-key", "dev-key",
                                  "--company-secret", "dev-secret", "--jwt-alg", "HS384"])
        #expect(pinned.status == 1 && pinned.stderr.contains("unsupported signing algorithm 'HS384'"), "\(pinned.stderr)")
        let chosen = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--host", hs256.url, "--company-key", "dev-key",
                                  "--company-secret", "dev-secret", "--jwt-alg", "hs256", "--signed-claims", "name"])
        #expect(chosen.status == 0, "\(chosen.stderr)")
    }

    /// With `--host` and the company secret a script cannot sign in as a real customer nor
    /// have the host sign reserved CRM flags: only `--identities` (default `vu-*`) and
    /// `--signed-claims` (default none) say whom and what the host signs.
    @Test func aScriptSignsInOnlyAsTheOperatorAllows() async throws {
        let server = try await SandboxCommandTests.Server.start([])
        defer { server.terminate() }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("identities-\(UUID().uuidString).lua")
        try """
            ccai.company.get()
            ccai.end_user.update_end_user({ identifier = "real-customer-42" })
            ccai.auth.update_auth_token(nil)
            local ok, err = pcall(ccai.company.get)
            print(ok and "signed in as " .. ccai.end_user.get_end_user().identifier or err.code .. ": " .. err.message)
            ccai.initialize_chat()
            local started, refusal = pcall(ccai.chat.start, { menu_id = 7, custom_data = { signed = {
              reserved_verified_customer = { label = "Verified", value = true, type = "boolean" } } } })
            print(started and "chat started" or refusal.code .. ": " .. refusal.message)
            if started then ccai.chat.end_chat() end
            """.write(to: script, atomically: true, encoding: .utf8)
        let remote = ["run", script.path, "--host", server.url, "--company-key", "dev-key", "--company-secret", "dev-secret"]
        let refused = try await CLI.run(remote)
        #expect(refused.status == 0, "\(refused.stderr)")
        let lines = refused.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0].hasPrefix("forbidden: ") && lines[0].contains("--identities"), "\(lines)")
        #expect(lines.count == 2 && lines[1].hasPrefix("forbidden: ") && lines[1].contains("--signed-claims")
                && lines[1].contains("reserved_verified_customer"), "\(lines)")
        let allowed = try await CLI.run(remote + ["--identities", "vu-*", "--identities", "real-customer-*",
                                                  "--signed-claims", "reserved_verified_customer"])
        #expect(allowed.stdout == "signed in as real-customer-42\nchat started\n", "\(allowed.stdout)\(allowed.stderr)")
        let embedded = try await CLI.run(["run", script.path])
        #expect(embedded.stdout == "signed in as real-customer-42\nchat started\n", "the embedded sandbox: unchanged")
    }

    @Test(arguments: [
        (["run", "x.lua", "--host", "h", "--company-key", "k", "--company-secret", "s", "--jwt-alg", "RS256"], "--jwt-alg must be"),
        (["run", "x.lua", "--jwt-alg", "HS256"], "go with --host"),
        (["run", "x.lua", "--host", "h"], "--host needs --company-key"),
        (["run", "x.lua", "--host", "h", "--company-key", "k"], "exactly one of a company secret"),
        (["run", "x.lua", "--company-secret", "s"], "go with --host"),
        (["run", "x.lua", "--sandbox", "c.lua", "--host", "h"], "exclude each other"),
        (["run", "x.lua", "--identities", "vu-*"], "--identities and --signed-claims go with --host"),
        (["run", "x.lua", "--signed-claims", "order_id"], "--identities and --signed-claims go with --host"),
        (["run", "x.lua", "--host", "h", "--company-key", "k", "--company-secret", "s", "--identities", "vu-[0-9"], "no ']' closes"),
        (["run", "x.lua", "--host", "h", "--company-key", "k", "--company-secret", "s", "--identities", ""], "--identities: the pattern is empty"),
        (["run", "x.lua", "--host", "h", "--company-key", "k", "--company-secret", "s", "--signed-claims", "a,,b"], "--signed-claims expects KEY"),
        (["run", "x.lua", "--apps-credentials-file", "f"], "--apps-credentials-file goes with --apps-host"),
        (["run", "x.lua", "--apps-host", "https://acme.example.test", "--apps-credentials-file", "/nonexistent/credentials"],
         "--apps-credentials-file: cannot read"),
    ])
    func connectionUsageErrors(_ arguments: [String], _ message: String) async throws {
        let output = try await CLI.run(arguments, environment: ["CCAI_APPS_CREDENTIALS": ""])
        #expect(output.status == 2)
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }

    /// `--apps-host` takes its credentials from a file or the environment, never a flag,
    /// and refuses to send them in clear text to anything but loopback.
    @Test(arguments: [
        ("https://acme.example.test", "", "--apps-host needs credentials"),
        ("https://acme.example.test", "no-colon", "CCAI_APPS_CREDENTIALS must be SUBDOMAIN:TOKEN"),
        ("http://acme.example.test", "acme:0123456789abcdef", "clear text"),
        ("ftp://acme.example.test", "acme:0123456789abcdef", "must be http(s)"),
        ("https://user:pass@acme.example.test", "acme:0123456789abcdef", "without credentials"),
    ])
    func appsHostUsageErrors(_ host: String, _ credentials: String, _ message: String) async throws {
        let output = try await CLI.run(["run", "x.lua", "--apps-host", host], environment: ["CCAI_APPS_CREDENTIALS": credentials])
        #expect(output.status == 2)
        #expect(output.stderr.contains(message), "\(output.stderr)")
        #expect(credentials.isEmpty || !output.stderr.contains(credentials.split(separator: ":").last.map(String.init) ?? "-"),
                "the token is not echoed")
    }
}
