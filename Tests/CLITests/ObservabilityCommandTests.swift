import CCAIScripting
import Foundation
import TestSupport
import Testing

/// `ccai run --out prometheus=HOST:PORT` and `ccai sandbox serve --metrics`, as Prometheus
/// meets them: the real binary, scraped over HTTP.
@Suite struct ObservabilityCommandTests {
    private func scrape(_ url: String, token: String? = nil) async throws -> String {
        try await runTool("/usr/bin/curl", ["-sf", "--max-time", "30"] + (token.map { ["-H", "Authorization: Bearer \($0)"] } ?? []) + [url])
    }

    @Test func aRunServesItsMetricsWhileItLivesAndStopsOnCtrlC() async throws {
        let script = try CLI.script("""
            ccai.initialize_chat()
            return {
              options = { vus = 2, duration = "2m", thresholds = { iterations = "count > 0" } },
              run = function()
                ccai.chat.start{ menu_id = 7 }
                ccai.check(true, "started")
                ccai.chat.end_chat()
                ccai.sleep(0.2)
              end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let process = try ChildProcess(CLI.binary.path, ["run", script, "--quiet", "--out", "prometheus=127.0.0.1:0"],
                                       output: .null, errors: .pipe)
        defer { process.terminate(signal: SIGKILL); process.wait() }
        let line = try #require(try await process.errorLine(containing: "prometheus: scrape "))
        let url = try #require(line.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init))
        #expect(url.hasSuffix("/metrics"), "\(line)")

        var samples = try PrometheusSamples("")
        #expect(try await eventually(timeout: 60) {
            samples = try PrometheusSamples(try await scrape(url))
            return (samples.value("ccai_iterations_total") ?? 0) > 0
        }, "iterations counted while the run lives")
        #expect(samples.value("ccai_checks_true_total", ["check": "started"]) ?? 0 > 0)
        #expect(samples.value("ccai_threshold_holds", ["metric": "iterations", "threshold": "count > 0"]) == 1)
        #expect(samples.types["ccai_chat_start_seconds"] == "summary")

        process.terminate(signal: SIGINT)
        #expect(try await offThePool { process.wait() } == 130, "a first Ctrl-C ends the run as always")
    }

    @Test func theSandboxServesItsMetricsBehindTheAdminToken() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tokenFile = folder.appendingPathComponent("admin-token")
        try "metrics-admin-token\n".write(to: tokenFile, atomically: true, encoding: .utf8)
        let server = try await SandboxCommandTests.Server.start(["--metrics", "--admin-token-file", tokenFile.path])
        defer { server.terminate() }
        _ = try? await scrape(server.url + "/queue_menus")
        let samples = try PrometheusSamples(try await scrape(server.url + "/admin/metrics", token: "metrics-admin-token"))
        #expect(samples.value("ccai_sandbox_requests_total", ["route": "GET /queue_menus", "status": "401"]) == 1)
        #expect(samples.value("ccai_sandbox_agents") == 2, "the built-in company's Ava and Ben")
        #expect(try await runTool("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", server.url + "/admin/metrics"])
            == "401")
    }

    @Test(arguments: [
        (["run", "x.lua", "--out", "prometheus=nowhere"], "--out prometheus expects HOST:PORT"),
        (["run", "x.lua", "--out", "prometheus=127.0.0.1:1", "--out", "prometheus=127.0.0.1:2"], "--out prometheus= is given twice"),
        (["report", "merge", "a.json", "--out", "prometheus=127.0.0.1:9464"], "'report merge' writes files only"),
    ])
    func addressesAreChecked(_ arguments: [String], _ message: String) async throws {
        let output = try await CLI.run(arguments)
        #expect(output.status == 2 && output.stderr.contains(message), "\(output.stderr)")
    }

    @Test func aTakenPortFailsTheRunBeforeItStarts() async throws {
        let taken = try await SandboxCommandTests.Server.start([])
        defer { taken.terminate() }
        let port = try #require(taken.url.split(separator: ":").last)
        let script = try CLI.script("return { run = function() end }")
        defer { try? FileManager.default.removeItem(atPath: script) }
        let output = try await CLI.run(["run", script, "--quiet", "--out", "prometheus=127.0.0.1:\(port)"])
        #expect(output.status == 1 && output.stderr.contains("--out prometheus: cannot listen on 127.0.0.1:\(port)"), "\(output.stderr)")
    }
}
