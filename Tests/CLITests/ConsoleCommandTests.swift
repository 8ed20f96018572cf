import Foundation
import TestSupport
import Testing

/// `ccai sandbox serve --console` and `ccai run --console`, as the real binary serves them
/// (the page driven in a browser is Tests/Browser/console_test.py).
@Suite struct ConsoleCommandTests {
    @Test func sandboxServeServesTheConsoleBehindItsSession() async throws {
        let server = try await SandboxCommandTests.Server.start(["--console"])
        defer { server.terminate() }
        func status(_ path: String) async throws -> String {
            try await runTool("/usr/bin/curl", ["-s", "--max-time", "30", "-o", "/dev/null", "-w", "%{http_code}", server.url + path])
        }
        #expect(try await status("/console") == "200")
        #expect(try await status("/console/api/state") == "401", "no session, no state")
        let plain = try await SandboxCommandTests.Server.start([])
        defer { plain.terminate() }
        #expect(try await runTool("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", plain.url + "/console"]) == "404",
                "no console without --console")
    }

    @Test(arguments: [
        (["--console", "--virtual-time"], "does not wait for a person at the console"),
        (["--console", "--host", "127.0.0.1:9", "--company-key", "k", "--company-secret", "s"], "a platform at --host has its own"),
        (["--console=nowhere"], "--console expects HOST:PORT"),
    ])
    func runConsoleIsForTheEmbeddedSandboxInRealTime(_ arguments: [String], _ message: String) async throws {
        let script = try CLI.script("return { run = function() end }")
        defer { try? FileManager.default.removeItem(atPath: script) }
        let output = try await CLI.run(["run", script] + arguments)
        #expect(output.status == 2 && output.stderr.contains(message), "\(output.stderr)")
    }
}
