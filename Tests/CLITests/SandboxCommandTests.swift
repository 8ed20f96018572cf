import Foundation
import TestSupport
import Testing

/// `ccai sandbox serve`, as a server process.
@Suite struct SandboxCommandTests {
    /// A running `ccai sandbox serve` and the URL it printed.
    final class Server {
        let process = Process()
        let url: String
        /// Standard error, when captured.
        let errors: Pipe?

        init(_ arguments: [String], capturingErrors: Bool = false) throws {
            process.executableURL = CLI.binary
            process.arguments = ["sandbox", "serve", "--listen", "127.0.0.1:0"] + arguments
            let output = Pipe()
            process.standardOutput = output
            errors = capturingErrors ? Pipe() : nil
            process.standardError = errors ?? FileHandle.nullDevice
            try process.run()
            var line = Data()
            while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
                line.append(byte)
            }
            url = String(decoding: line, as: UTF8.self)
        }

        /// The next line of standard error that contains `text` (captured errors only).
        func errorLine(containing text: String) throws -> String? {
            guard let errors else { return nil }
            while true {
                var line = Data()
                while let byte = try errors.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
                    line.append(byte)
                }
                guard !line.isEmpty else { return nil }
                let found = String(decoding: line, as: UTF8.self)
                if found.contains(text) { return found }
            }
        }

        /// Sends SIGTERM and returns the exit status.
        func stop() -> Int32 {
            process.terminate()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    private func curl(_ arguments: [String]) throws -> String {
        try runTool("/usr/bin/curl", ["-s", "--max-time", "10"] + arguments)
    }

    /// `sandbox check` validates configurations and compiles their agent scripts; `serve`
    /// refuses to start on a script with a syntax error (not at the first chat).
    @Test func configurationsAreCheckedAndAgentScriptsCompiledAtStart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "return function(agent)\n  agent.send(\"hi\"\nend\n".write(to: folder.appendingPathComponent("bad.lua"), atomically: true, encoding: .utf8)
        try """
            return { company = { name = "Acme", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                     menus = { { id = 1, name = "Help", channels = { chat = {} } } },
                     agents = { { name = "Ava", menus = { 1 }, script = "bad.lua" } } }
            """.write(to: folder.appendingPathComponent("config.lua"), atomically: true, encoding: .utf8)
        let config = folder.appendingPathComponent("config.lua").path
        let checked = try CLI.run(["sandbox", "check", config, "examples/support_bot/sandbox.lua"])
        #expect(checked.status == 1, "\(checked.stdout)")
        #expect(checked.stdout.contains("FAIL  \(config): agents[Ava].script: ") && checked.stdout.contains("bad.lua:3:"), "\(checked.stdout)")
        #expect(checked.stdout.contains("ok    examples/support_bot/sandbox.lua"), "\(checked.stdout)")
        let served = try CLI.run(["sandbox", "serve", "--listen", "127.0.0.1:0", "--config", config], timeout: 20)
        #expect(served.status == 1 && served.stderr.contains("bad.lua:3:"), "\(served.stderr)")
    }

    /// A file error is a sentence naming the file, not Foundation's dump.
    @Test func fileErrorsAreSentences() throws {
        let output = try CLI.run(["sandbox", "serve", "--listen", "127.0.0.1:0", "--data", "/proc/no-such-folder/data"], timeout: 20)
        #expect(output.status == 1 && output.stderr.contains("no such file: '/proc/no-such-folder'"), "\(output.stderr)")
        #expect(!output.stderr.contains("Error Domain="))
    }

    @Test func servesAuthenticatesAndKeepsItsDataAcrossRestarts() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let jwt = try CLI.run(["jwt", "sign", "--secret", "dev-secret", "--claims", #"{"identifier":"cli-1"}"#])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let first = try Server(["--data", data])
        #expect(first.url.hasPrefix("http://127.0.0.1:"))
        let auth = try curl(["-X", "POST", "\(first.url)/auth/end_user", "-d", #"{"company_key":"dev-key","jwt":"\#(jwt)"}"#])
        let token = try #require((try JSONSerialization.jsonObject(with: Data(auth.utf8)) as? [String: Any])?["auth_token"] as? String)
        #expect(first.stop() == 0)

        let second = try Server(["--data", data])
        let me = try curl(["-H", "Authorization: Bearer \(token)", "\(second.url)/end_user"])
        #expect(me.contains(#""identifier":"cli-1""#))
        #expect(second.stop() == 0)
    }

    @Test func printsTheAdminTokenItMadeUp() throws {
        let server = try Server([], capturingErrors: true)
        let line = try #require(try server.errorLine(containing: "admin token"))
        let token = String(try #require(line.split(separator: " ").last))
        #expect(token.count >= 32)
        #expect(try curl(["-H", "Authorization: Bearer \(token)", "\(server.url)/admin/ratings"]) == #"{"ratings":[],"surveys":[]}"#)
        #expect(try curl(["-H", "Authorization: Bearer nope", "\(server.url)/admin/ratings"]).contains("not this sandbox's"))
        #expect(server.stop() == 0)
    }

    @Test func usesAConfigurationFile() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("company-\(UUID().uuidString).lua")
        try """
            return { company = { name = "Globex", languages = { "en" }, time_zone = "UTC", key = "gx", secret = "gx-secret" } }
            """.write(to: config, atomically: true, encoding: .utf8)
        let server = try Server(["--config", config.path])
        let refused = try curl(["-X", "POST", "\(server.url)/auth/end_user", "-d", #"{"company_key":"dev-key","jwt":"x.y.z"}"#])
        #expect(refused.contains("unknown company key 'dev-key'"))
        #expect(server.stop() == 0)
    }

    @Test(arguments: [
        (["sandbox"], "sandbox needs a command: serve", Int32(2)),
        (["sandbox", "serve", "--listen", "nowhere"], "--listen expects HOST:PORT", Int32(2)),
        (["sandbox", "serve", "--config", "/no/such/config.lua"], "cannot read '/no/such/config.lua'", Int32(1)),
    ])
    func reportsProblems(_ arguments: [String], _ message: String, _ status: Int32) throws {
        let output = try CLI.run(arguments)
        #expect(output.status == status)
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }
}
