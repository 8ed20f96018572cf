import CCAIScripting
import Foundation
import TestSupport
import Testing

/// `ccai sandbox serve`, as a server process.
@Suite struct SandboxCommandTests {
    /// A running `ccai sandbox serve` and the URL it printed.
    final class Server: @unchecked Sendable {
        let process: ChildProcess
        let url: String

        /// Starts the server and reads the URL it prints (on a thread of its own).
        static func start(_ arguments: [String], listen: String = "127.0.0.1:0", capturingErrors: Bool = false) async throws
            -> Server
        {
            try await offThePool { try Server(arguments, listen: listen, capturingErrors: capturingErrors) }
        }

        private init(_ arguments: [String], listen: String, capturingErrors: Bool) throws {
            process = try ChildProcess(CLI.binary.path, ["sandbox", "serve", "--listen", listen] + arguments,
                                       output: .pipe, errors: capturingErrors ? .pipe : .null)
            var line = Data()
            while let byte = try process.standardOutput?.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
                line.append(byte)
            }
            url = String(decoding: line, as: UTF8.self)
        }

        /// The next line of standard error that contains `text` (captured errors only).
        func errorLine(containing text: String) async throws -> String? {
            try await offThePool { try self.readErrorLine(containing: text) }
        }

        private func readErrorLine(containing text: String) throws -> String? {
            guard let errors = process.standardError else { return nil }
            while true {
                var line = Data()
                while let byte = try errors.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
                    line.append(byte)
                }
                guard !line.isEmpty else { return nil }
                let found = String(decoding: line, as: UTF8.self)
                if found.contains(text) { return found }
            }
        }

        /// Sends SIGTERM and waits for the exit, in a `defer` (the server exits at once).
        func terminate() {
            process.terminate()
            process.wait()
        }

        /// Kills the server at once (`SIGKILL`: no cleanup, as a crash) and waits for it.
        func crash() async throws {
            process.terminate(signal: SIGKILL)
            _ = try await offThePool { self.process.wait() }
        }

        /// Sends SIGTERM and returns the exit status.
        func stop() async throws -> Int32 {
            process.terminate()
            return try await offThePool { self.process.wait() }
        }
    }

    private func curl(_ arguments: [String]) async throws -> String {
        try await runTool("/usr/bin/curl", ["-s", "--max-time", "60"] + arguments)
    }

    /// `sandbox check` validates configurations and compiles their agent scripts; `serve`
    /// refuses to start on a script with a syntax error (not at the first chat).
    @Test func configurationsAreCheckedAndAgentScriptsCompiledAtStart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "return function(agent)\n  agent.send(\"hi\"\nend\n".write(to: folder.appendingPathComponent("bad.lua"), atomically: true, encoding: .utf8)
        try """
            return { company = { name = "Acme", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                     menus = { { id = 1, name = "Help", channels = { chat = {} } } },
                     agents = { { name = "Ava", menus = { 1 }, script = "bad.lua" } } }
            """.write(to: folder.appendingPathComponent("config.lua"), atomically: true, encoding: .utf8)
        let config = folder.appendingPathComponent("config.lua").path
        let checked = try await CLI.run(["sandbox", "check", config, "examples/support_bot/sandbox.lua"])
        #expect(checked.status == 1, "\(checked.stdout)")
        #expect(checked.stdout.contains("FAIL  \(config): agents[Ava].script: ") && checked.stdout.contains("bad.lua:3:"), "\(checked.stdout)")
        #expect(checked.stdout.contains("ok    examples/support_bot/sandbox.lua"), "\(checked.stdout)")
        let served = try await CLI.run(["sandbox", "serve", "--listen", "127.0.0.1:0", "--config", config], timeout: 20)
        #expect(served.status == 1 && served.stderr.contains("bad.lua:3:"), "\(served.stderr)")
    }

    /// Writes, in a folder of its own, `bad.lua` (a syntax error on line 3) and
    /// `config.lua` (Acme, a chat queue with id 1, and `fields`); returns the configuration's path.
    private func configurationBesideABadScript(_ fields: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "return function(agent)\n  agent.send(\"hi\"\nend\n".write(to: folder.appendingPathComponent("bad.lua"), atomically: true, encoding: .utf8)
        try """
            return { company = { name = "Acme", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                     menus = { { id = 1, name = "Help", channels = { chat = {} } } },
                     \(fields) }
            """.write(to: folder.appendingPathComponent("config.lua"), atomically: true, encoding: .utf8)
        return folder.appendingPathComponent("config.lua").path
    }

    /// Issue 20, item 1: a type error, a misspelt key and an agent script's syntax error
    /// are three problems of one run, each on its line, not three runs.
    @Test func everyProblemOfAFileIsListedInOneCheck() async throws {
        let config = try configurationBesideABadScript("""
            agents = { { name = "Ava", menus = { 1 }, max_chats = "two", script = "bad.lua" } },
            chat_timeout_second = 60
            """)
        defer { try? FileManager.default.removeItem(atPath: (config as NSString).deletingLastPathComponent) }
        let checked = try await CLI.run(["sandbox", "check", config])
        #expect(checked.status == 1)
        let lines = checked.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "FAIL  \(config): 3 problems:", "\(checked.stdout)")
        #expect(lines.contains("  - agents[1].max_chats: integer expected, got string"), "\(checked.stdout)")
        #expect(lines.contains("  - chat_timeout_second: unknown field (did you mean 'chat_timeout_seconds'?)"), "\(checked.stdout)")
        #expect(lines.contains { $0.hasPrefix("  - agents[Ava].script: ") && $0.contains("bad.lua:3:") }, "\(checked.stdout)")
        let served = try await CLI.run(["sandbox", "serve", "--listen", "127.0.0.1:0", "--config", config], timeout: 20)
        #expect(served.status == 1 && served.stderr.contains("3 problems:\n  - "), "the list keeps its lines: \(served.stderr)")
    }

    /// Issue 33: an agent entry's type error does not hide its script's syntax error, nor
    /// a wrong field elsewhere; each is reported once, and the check fails as before.
    @Test func anAgentsTypeErrorDoesNotHideItsScriptsSyntaxError() async throws {
        let config = try configurationBesideABadScript("""
            agents = { { name = "Ava", menus = "one", script = "bad.lua" } },
            limits = { burst = "lots" }
            """)
        defer { try? FileManager.default.removeItem(atPath: (config as NSString).deletingLastPathComponent) }
        let checked = try await CLI.run(["sandbox", "check", config])
        #expect(checked.status == 1)
        let lines = checked.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "FAIL  \(config): 3 problems:", "\(checked.stdout)")
        #expect(lines.filter { $0.hasPrefix("  - agents[1].menus: ") }.count == 1, "\(checked.stdout)")
        #expect(lines.filter { $0.hasPrefix("  - limits.burst: ") }.count == 1, "\(checked.stdout)")
        #expect(lines.filter { $0.hasPrefix("  - agents[Ava].script: ") && $0.contains("bad.lua:3:") }.count == 1, "\(checked.stdout)")
    }

    /// A file error is a sentence naming the file, not Foundation's dump.
    @Test func fileErrorsAreSentences() async throws {
        let output = try await CLI.run(["sandbox", "serve", "--listen", "127.0.0.1:0", "--data", "/proc/no-such-folder/data"], timeout: 20)
        #expect(output.status == 1 && output.stderr.contains("no such file: '/proc/no-such-folder'"), "\(output.stderr)")
        #expect(!output.stderr.contains("Error Domain="))
    }

    @Test func servesAuthenticatesAndKeepsItsDataAcrossRestarts() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let jwt = try await CLI.run(["jwt", "sign", "--secret", "dev-secret", "--claims", #"{"identifier":"cli-1"}"#])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let first = try await Server.start(["--data", data])
        #expect(first.url.hasPrefix("http://127.0.0.1:"))
        let auth = try await curl(["-X", "POST", "\(first.url)/auth/end_user", "-d", #"{"company_key":"dev-key","jwt":"\#(jwt)"}"#])
        let token = try #require((try JSONSerialization.jsonObject(with: Data(auth.utf8)) as? [String: Any])?["auth_token"] as? String)
        #expect(try await first.stop() == 0)

        let second = try await Server.start(["--data", data])
        let me = try await curl(["-H", "Authorization: Bearer \(token)", "\(second.url)/end_user"])
        #expect(me.contains(#""identifier":"cli-1""#))
        #expect(try await second.stop() == 0)
    }

    /// `--data` of one company opened with another company's key is a configuration error
    /// naming the folder and both keys.
    @Test func refusesTheDataOfAnotherCompany() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("company-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let jwt = try await CLI.run(["jwt", "sign", "--secret", "dev-secret", "--claims", #"{"identifier":"cli-company"}"#])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let first = try await Server.start(["--data", data])
        let auth = try await curl(["-X", "POST", "\(first.url)/auth/end_user", "-d", #"{"company_key":"dev-key","jwt":"\#(jwt)"}"#])
        #expect(auth.contains("auth_token"), "\(auth)")
        #expect(try await first.stop() == 0)
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("other-\(UUID().uuidString).lua").path
        defer { try? FileManager.default.removeItem(atPath: config) }
        try """
            return { company = { name = "Other", languages = { "en" }, time_zone = "UTC", key = "other-key", secret = "s" },
                     menus = { { id = 1, name = "Help", channels = { chat = {} } } } }
            """
            .write(toFile: config, atomically: true, encoding: .utf8)
        let served = try await CLI.run(["sandbox", "serve", "--listen", "127.0.0.1:0", "--config", config, "--data", data], timeout: 20)
        #expect(served.status == 1, "\(served.stderr)")
        #expect(served.stderr.contains(data) && served.stderr.contains("'dev-key'") && served.stderr.contains("'other-key'"),
                "\(served.stderr)")
    }

    @Test func printsTheAdminTokenItMadeUp() async throws {
        let server = try await Server.start([], capturingErrors: true)
        let line = try #require(try await server.errorLine(containing: "admin token"))
        let token = String(try #require(line.split(separator: " ").last))
        #expect(token.count >= 32)
        #expect(try await curl(["-H", "Authorization: Bearer \(token)", "\(server.url)/admin/ratings"]) == #"{"ratings":[],"surveys":[]}"#)
        #expect(try await curl(["-H", "Authorization: Bearer nope", "\(server.url)/admin/ratings"]).contains("not this sandbox's"))
        #expect(try await server.stop() == 0)
    }

    /// Without `api_credentials`, a served sandbox makes up an Apps API token and prints
    /// it with the user name (the company's subdomain); the configuration's refuse it.
    @Test func printsTheAppsAPITokenItMadeUp() async throws {
        let server = try await Server.start([], capturingErrors: true)
        let line = try #require(try await server.errorLine(containing: "Apps API token"))
        #expect(line.contains("user acme"), "\(line)")
        let token = String(try #require(line.split(separator: " ").last))
        #expect(token.count >= 32)
        #expect(try await curl(["-u", "acme:\(token)", "\(server.url)/apps/api/v1/end_users?identifier=nobody"]).contains("not_found"))
        #expect(try await curl(["-u", "acme:nope", "\(server.url)/apps/api/v1/end_users?identifier=nobody"]).contains("unauthenticated"))
        #expect(try await server.stop() == 0)
    }

    /// Issue 20: the admin token survives restarts, kept under `--data` (mode 0600), or
    /// read from `--admin-token-file`.
    @Test func theAdminTokenSurvivesRestarts() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try await Server.start(["--data", data], capturingErrors: true)
        let line = try #require(try await first.errorLine(containing: "admin token"))
        #expect(line.hasSuffix("(kept in \(data)/admin-token for later runs)"), "\(line)")
        #expect(try await first.stop() == 0)
        let kept = "\(data)/admin-token"
        let token = try String(contentsOfFile: kept, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try FileManager.default.attributesOfItem(atPath: kept)[.posixPermissions] as? Int == 0o600)
        #expect(line.contains(token))

        let second = try await Server.start(["--data", data], capturingErrors: true)
        let again = try #require(try await second.errorLine(containing: "admin token"))
        #expect(again.hasSuffix("kept in \(kept)") && !again.contains(token), "the secret is not printed again: \(again)")
        #expect(try await curl(["-H", "Authorization: Bearer \(token)", "\(second.url)/admin/ratings"]) == #"{"ratings":[],"surveys":[]}"#)
        #expect(try await second.stop() == 0)

        let file = "\(data)/given-token"
        try "operator-token-1\n".write(toFile: file, atomically: true, encoding: .utf8)
        let given = try await Server.start(["--data", data, "--admin-token-file", file], capturingErrors: true)
        #expect(try await given.errorLine(containing: "admin token")?.hasSuffix("read from \(file)") == true)
        #expect(try await curl(["-H", "Authorization: Bearer operator-token-1", "\(given.url)/admin/ratings"]).contains("ratings"))
        #expect(try await given.stop() == 0)

        let link = "\(data)/mounted-token"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        let linked = try await Server.start(["--admin-token-file", link], capturingErrors: true)
        #expect(try await linked.errorLine(containing: "admin token")?.hasSuffix("read from \(link)") == true,
                "a given token file may be a link, as a mounted secret is")
        #expect(try await linked.stop() == 0)

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: kept)
        let loose = try await CLI.run(["sandbox", "serve", "--listen", "127.0.0.1:0", "--data", data], timeout: 20)
        #expect(loose.status == 1 && loose.stderr.contains("must belong to this user and be readable by them alone"), "\(loose.stderr)")

        let missing = try await CLI.run(["sandbox", "serve", "--listen", "127.0.0.1:0", "--admin-token-file", "/no/such-token"])
        #expect(missing.status == 2 && missing.stderr.contains("--admin-token-file: cannot read '/no/such-token'"), "\(missing.stderr)")
        try "\n".write(toFile: file, atomically: true, encoding: .utf8)
        let empty = try await CLI.run(["sandbox", "serve", "--listen", "127.0.0.1:0", "--admin-token-file", file], timeout: 20)
        #expect(empty.status == 1 && empty.stderr.contains("the token file '\(file)' is empty"), "\(empty.stderr)")
    }

    @Test func usesAConfigurationFile() async throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("company-\(UUID().uuidString).lua")
        try """
            return { company = { name = "Globex", languages = { "en" }, time_zone = "UTC", key = "gx", secret = "gx-secret" } }
            """.write(to: config, atomically: true, encoding: .utf8)
        let server = try await Server.start(["--config", config.path])
        let refused = try await curl(["-X", "POST", "\(server.url)/auth/end_user", "-d", #"{"company_key":"dev-key","jwt":"x.y.z"}"#])
        #expect(refused.contains("unknown company key 'dev-key'"))
        #expect(try await server.stop() == 0)
    }

    /// `sandbox show` prints the effective configuration as a tree: the built-in company
    /// without a file (the menu ids a new user looks for), or the file's.
    @Test func showPrintsTheConfigurationAsATree() async throws {
        let builtIn = try await CLI.run(["sandbox", "show"])
        #expect(builtIn.status == 0, "\(builtIn.stderr)")
        for line in ["Acme (company key dev-key)", "  7 Night Desk (es: Turno de noche)", "      channels: chat (virtual agent night-va)",
                     "    21 Devices", "  Ben: menus 3, 7, 8; no script: takes a chat at once", "  billing-survey (survey 1): 1 csat (required)"] {
            #expect(builtIn.stdout.contains(line), "\(line)")
        }
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("show-\(UUID().uuidString).lua")
        defer { try? FileManager.default.removeItem(at: config) }
        try """
            return { company = { name = "Globex", languages = { "en" }, time_zone = "UTC", key = "gk", secret = "s" },
                     menus = { { id = 4, name = "Claims", channels = { chat = {} } } },
                     agents = { { name = "Zoe", menus = { 4 }, max_chats = 2 } } }
            """.write(to: config, atomically: true, encoding: .utf8)
        let own = try await CLI.run(["sandbox", "show", config.path])
        #expect(own.status == 0 && own.stdout.contains("Globex (company key gk)") && own.stdout.contains("hours: always open")
                && own.stdout.contains("  4 Claims") && own.stdout.contains("Zoe: menus 4, at most 2 chats at once"), "\(own.stdout)")
        let missing = try await CLI.run(["sandbox", "show", "/no/such.lua"])
        #expect(missing.status == 2 && missing.stderr.contains("cannot read the sandbox configuration '/no/such.lua'"))
    }

    /// Issue 34, item 9: `show` and `check` read `--env` as the configuration's `env` (one
    /// file, several staffing plans), and `show` lists each agent's shifts.
    @Test func showAndCheckReadTheEnvironmentAndShowShifts() async throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString).lua")
        defer { try? FileManager.default.removeItem(at: config) }
        try """
            local agents = {}
            for number = 1, tonumber(env.AGENTS) or 5 do
              agents[number] = { name = "Agent " .. number, menus = { 4 },
                                 shifts = { { from = "08:00", to = "16:00" }, { from = "22:00", to = "06:00" } } }
            end
            return { company = { name = "Globex", languages = { "en" }, time_zone = "UTC", key = "gk", secret = "s" },
                     menus = { { id = 4, name = "Claims", channels = { chat = {} } } }, agents = agents }
            """.write(to: config, atomically: true, encoding: .utf8)
        let shown = try await CLI.run(["sandbox", "show", config.path, "--env", "AGENTS=2"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("  Agent 2: menus 4; shifts 08:00-16:00, 22:00-06:00; no script"), "\(shown.stdout)")
        #expect(!shown.stdout.contains("Agent 3"), "\(shown.stdout)")
        let checked = try await CLI.run(["sandbox", "check", "-e", "AGENTS=8", config.path])
        #expect(checked.status == 0 && checked.stdout.contains("1 queue(s), 8 agent(s)"), "\(checked.stdout)")
    }

    @Test(arguments: [
        (["sandbox"], "sandbox needs a command: serve", Int32(2)),
        (["sandbox", "serve", "--listen", "nowhere"], "--listen expects HOST:PORT", Int32(2)),
        (["sandbox", "serve", "--config", "/no/such/config.lua"], "--config: cannot read the sandbox configuration '/no/such/config.lua'",
         Int32(2)),
    ])
    func reportsProblems(_ arguments: [String], _ message: String, _ status: Int32) async throws {
        let output = try await CLI.run(arguments)
        #expect(output.status == status)
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }

    /// SIGTERM is acted on while transcripts of a heavy chat (30 messages of 10,000
    /// characters on a redacting queue) render: renderings hold no thread the server's
    /// shutdown needs. The exit is waited for with a generous deadline (it took minutes).
    @Test(.timeLimit(.minutes(2)))
    func stopsOnSIGTERMWhileTranscriptsRender() async throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("heavy-\(UUID().uuidString).lua")
        try """
            return { company = { name = "Acme", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Billing", channels = { chat = { redaction = true } } } },
                     limits = { requests_per_second = 10000, burst = 10000 } }
            """.write(to: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: config) }
        let server = try await Server.start(["--config", config.path])
        let jwt = try await CLI.run(["jwt", "sign", "--secret", "dev-secret", "--claims", #"{"identifier":"heavy-1"}"#])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let auth = try await curl(["-X", "POST", "\(server.url)/auth/end_user", "-d", #"{"company_key":"dev-key","jwt":"\#(jwt)"}"#])
        let token = try #require((try JSONSerialization.jsonObject(with: Data(auth.utf8)) as? [String: Any])?["auth_token"] as? String)
        let bearer = ["-H", "Authorization: Bearer \(token)"]
        let chat = try await curl(bearer + ["-X", "POST", "\(server.url)/chats", "-d", #"{"menu_id": 1}"#])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(chat.utf8)) as? [String: Any])?["id"] as? Int)
        let text = String(repeating: "a", count: 10_000)
        for index in 1...30 {
            _ = try await curl(bearer + ["-X", "POST", "\(server.url)/chats/\(id)/messages",
                                         "-d", #"{"text": "\#(text)", "client_message_id": "m\#(index)"}"#])
        }
        let transcripts = (0..<2).map { _ in Task { try await curl(bearer + ["-o", "/dev/null", "\(server.url)/chats/\(id)/transcript"]) } }
        let status = try await offThePool { () -> Int32? in
            let exited = DispatchSemaphore(value: 0)
            server.process.terminate()
            Thread {
                server.process.wait()
                exited.signal()
            }.start()
            guard exited.wait(timeout: .now() + 30) == .success else {
                kill(server.process.pid, SIGKILL)
                return nil
            }
            return server.process.wait()
        }
        #expect(status == 0, "the server stopped on SIGTERM within 30 seconds")
        for transcript in transcripts { _ = try? await transcript.value }
    }
}
