@testable import ccai
import CCAIScripting
import Foundation
import TestSupport
import Testing

/// `ccai run --dashboard`: the real binary, its page, its event stream and its controls,
/// as a browser (or a page of another origin) meets them.
@Suite struct DashboardCommandTests {
    static let scenario = """
        ccai.initialize_chat()
        return {
          options = {
            scenarios = {
              chatters = { executor = "constant_arrival", rate = 3, time_unit = "1s", duration = "5m", max_vus = 4 },
              loopers = { executor = "constant_vus", vus = 2, duration = "5m", exec = "loop" },
            },
            thresholds = { checks = "rate > 0.9" },
          },
          run = function()
            ccai.chat.start{ menu_id = 7 }
            ccai.check(true, "started")
            ccai.chat.end_chat()
          end,
          loop = function()
            ccai.sleep(0.5)
            ccai.check(true, "looped")
          end,
        }
        """

    /// The updates and the end a page reads from `/events` (through curl, on a thread of its own).
    final class Events: @unchecked Sendable {
        let process: ChildProcess

        init(_ url: String) throws {
            process = try ChildProcess("/usr/bin/curl", ["-sN", "--max-time", "120", url + "events"], output: .pipe, errors: .null)
        }

        /// The data of the next `event` whose JSON `holds`; nil when the stream ends first.
        func next(_ event: String, where holds: @escaping @Sendable ([String: Any]) -> Bool = { _ in true }) async throws
            -> [String: Any]? {
            let found: Data? = try await offThePool { [self] in
                var name = ""
                while let line = try readLine() {
                    if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                    guard line.hasPrefix("data: "), name == event else { continue }
                    let data = Data(line.dropFirst(6).utf8)
                    if holds(try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]) { return data }
                }
                return nil
            }
            return try found.map { try JSONSerialization.jsonObject(with: $0) as? [String: Any] ?? [:] }
        }

        private func readLine() throws -> String? {
            var line = Data()
            while let byte = try process.standardOutput?.read(upToCount: 1), !byte.isEmpty {
                if byte == Data("\n".utf8) { return String(decoding: line, as: UTF8.self) }
                line.append(byte)
            }
            return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
        }

        func close() {
            process.terminate()
            process.wait()
        }
    }

    private func curl(_ arguments: [String]) async throws -> String {
        try await runTool("/usr/bin/curl", ["-s", "--max-time", "30"] + arguments)
    }

    private func post(_ url: String, _ action: String, token: String?, json: String = "") async throws -> String {
        try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Content-Type: application/json"]
                       + (token.map { ["-H", "X-CSRF-Token: \($0)"] } ?? []) + ["-d", json, url + "api/" + action])
    }

    private static func scenario(_ update: [String: Any], _ name: String) -> [String: Any]? {
        (update["scenarios"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }

    @Test func aPersonWatchesPausesReshapesAndStopsARun() async throws {
        let script = try CLI.script(Self.scenario)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let summary = script + ".summary.json"
        defer { try? FileManager.default.removeItem(atPath: summary) }
        let run = try ChildProcess(CLI.binary.path, ["run", script, "--quiet", "--dashboard", "127.0.0.1:0", "--summary-out", summary],
                                   output: .null, errors: .pipe)
        defer { run.terminate(signal: SIGKILL); run.wait() }
        let line = try #require(try await run.errorLine(containing: "dashboard: http://"))
        let url = try #require(line.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init))

        let headers = try await curl(["-D", "-", "-o", "/dev/null", url])
        #expect(headers.contains("Content-Security-Policy: default-src 'none'; script-src 'self'"), "\(headers)")
        let page = try await curl([url])
        let token = try #require(page.range(of: #"csrf-token" content=""#).map { page[$0.upperBound...].prefix(64) }.map(String.init))
        #expect(token.count == 64)
        let port = try #require(url.split(separator: ":").last?.split(separator: "/").first)
        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: rebound.example:\(port)", url]) == "403",
                "a page elsewhere cannot reach it through a name it controls")

        let events = try Events(url)
        defer { events.close() }
        let running = try #require(try await events.next("update") { ($0["iterations"] as? Int ?? 0) > 0 && ($0["vus"] as? Int ?? 0) > 0 })
        #expect(running["state"] as? String == "running" && running["controls"] as? Bool == true)

        #expect(try await post(url, "pause", token: nil) == "403", "no change without the page's token")
        let forged = (token.first == "0" ? "1" : "0") + token.dropFirst()   // one character off, whatever the token
        #expect(try await post(url, "pause", token: forged) == "403")
        #expect(try await post(url, "pause", token: token) == "204")
        let paused = try #require(try await events.next("update") {
            $0["state"] as? String == "paused" && $0["vus"] as? Int == 0 && ($0["dropped_iterations"] as? Int ?? 0) > 0
        }, "paused: every VU waits and the arrivals due are dropped")
        let iterations = paused["iterations"] as? Int ?? -1
        let later = try #require(try await events.next("update") { ($0["dropped_iterations"] as? Int ?? 0) > (paused["dropped_iterations"] as? Int ?? 0) })
        #expect(later["iterations"] as? Int == iterations, "no iteration starts while paused")

        #expect(try await post(url, "resume", token: token) == "204")
        #expect(try await post(url, "rate", token: token, json: #"{"scenario": "chatters", "value": 20}"#) == "204")
        #expect(try await post(url, "vus", token: token, json: #"{"scenario": "loopers", "value": 1}"#) == "204")
        #expect(try await post(url, "vus", token: token, json: #"{"scenario": "loopers", "value": 3}"#) == "400", "more than it plans")
        #expect(try await post(url, "rate", token: token, json: #"{"scenario": "loopers", "value": 4}"#) == "409", "a closed model")
        #expect(try await post(url, "rate", token: token, json: #"{"scenario": "nobody", "value": 4}"#) == "404")
        #expect(try await post(url, "rate", token: token, json: "not json") == "400")
        let reshaped = try #require(try await events.next("update") {
            $0["state"] as? String == "running" && Self.scenario($0, "chatters")?["rate"] as? Double == 20
                && Self.scenario($0, "loopers")?["vu_target"] as? Int == 1
        })
        #expect(reshaped["controls"] as? Bool == true)

        #expect(try await post(url, "stop", token: token) == "204")
        let ended = try #require(try await events.next("ended"))
        #expect(ended["exit_status"] as? Int == 130, "Stop is a Ctrl-C")
        let report = ended["report"] as? String ?? ""
        #expect(report.hasPrefix("<!DOCTYPE html>"), "the page offers the HTML report")
        #expect(report.contains("Changed from the dashboard while it ran") && report.contains("<li>Pause at "), "the report says so too")
        #expect(try await offThePool { run.wait() } == 130)
        let rest = String(decoding: try run.standardError?.readToEnd() ?? Data(), as: UTF8.self)
        #expect(rest.contains("dashboard: the run was changed from its page: Pause at ") && rest.contains("; Resume at ")
                && rest.contains("; rate of chatters 20 at ") && rest.contains("; VU target of loopers 1 at ") && rest.contains("; Stop at "),
                "the end says how the run was reshaped: \(rest)")
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [String: Any]
        let changes = (written?["run"] as? [String: Any])?["live_changes"] as? [String] ?? []
        #expect(changes.first?.hasPrefix("Pause at ") == true && changes.last?.hasPrefix("Stop at ") == true && changes.count == 5,
                "the summary file keeps the changes: \(changes)")
    }

    /// On the wildcard address a page is reached by an address, never by a DNS name a web
    /// page elsewhere could point at it; at most 8 pages watch.
    @Test func onTheWildcardAddressOnlyAddressesAreHostsAndEightPagesWatch() async throws {
        let script = try CLI.script(Self.scenario)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let run = try ChildProcess(CLI.binary.path, ["run", script, "--quiet", "--dashboard", "0.0.0.0:0"], output: .null, errors: .pipe)
        defer { run.terminate(signal: SIGKILL); run.wait() }
        let line = try #require(try await run.errorLine(containing: "dashboard: http://"))
        let url = try #require(line.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init))
        let port = try #require(url.split(separator: ":").last?.prefix { $0.isNumber })
        #expect(try await run.errorLine(containing: "warning: the dashboard listens on 0.0.0.0:\(port), beyond this machine") != nil)
        func status(host: String) async throws -> String {
            try await curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: \(host)", "http://127.0.0.1:\(port)/"])
        }
        #expect(try await status(host: "127.0.0.1:\(port)") == "200")
        #expect(try await status(host: "localhost:\(port)") == "200")
        #expect(try await status(host: "rebound.example:\(port)") == "403", "a DNS name is what rebinding needs")
        #expect(try await status(host: "127.0.0.1:1") == "403")

        let pages = try (0..<Dashboard.maximumPages).map { _ in try Events(url) }
        defer { for page in pages { page.close() } }
        for page in pages { #expect(try await page.next("update") != nil) }
        #expect(try await curl(["-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", url + "events"]) == "503")
    }

    @Test(arguments: [
        (["--dashboard=nowhere"], "--dashboard expects HOST:PORT"),
        (["--dashboard", "[::1]:5665"], "HOST an IPv4 address or localhost"),
    ])
    func addressesAreChecked(_ arguments: [String], _ message: String) async throws {
        let script = try CLI.script("return { run = function() end }")
        defer { try? FileManager.default.removeItem(atPath: script) }
        let output = try await CLI.run(["run", script] + arguments)
        #expect(output.status == 2 && output.stderr.contains(message), "\(output.stderr)")
    }

    @Test func optionsDashboardIsCheckedBeforeTheRunStarts() async throws {
        let script = try CLI.script("return { options = { dashboard = \"somewhere\" }, run = function() end }")
        defer { try? FileManager.default.removeItem(atPath: script) }
        let output = try await CLI.run(["run", script, "--quiet"])
        #expect(output.status == 1 && output.stderr.contains("options.dashboard expects true or \"HOST:PORT\""), "\(output.stderr)")
        let open = try CLI.script("return { options = { dashboard = \"0.0.0.0:0\" }, run = function() end }")
        defer { try? FileManager.default.removeItem(atPath: open) }
        let opened = try await CLI.run(["run", open, "--quiet"])
        #expect(opened.status == 1 && opened.stderr.contains("options.dashboard listens on loopback only"), "\(opened.stderr)")
        let typed = try CLI.script("return { options = { dashboard = 5 }, run = function() end }")
        defer { try? FileManager.default.removeItem(atPath: typed) }
        let wrong = try await CLI.run(["run", typed, "--quiet"])
        #expect(wrong.status == 2 && wrong.stderr.contains("options.dashboard: true or \"HOST:PORT\" expected, got number"), "\(wrong.stderr)")
    }

    /// A flag without a value leaves the script alone: `--dashboard script.lua`.
    @Test func theAddressMayBeLeftOut() throws {
        let parsed = try ArgumentParser.parse(["--dashboard", "x.lua"], for: RunCommand.spec)
        #expect(parsed.positionals == ["x.lua"] && parsed.has(RunOptions.dashboard) && parsed.last(RunOptions.dashboard) == nil)
        let given = try ArgumentParser.parse(["--dashboard", "127.0.0.1:0", "x.lua"], for: RunCommand.spec)
        #expect(given.last(RunOptions.dashboard) == "127.0.0.1:0" && given.positionals == ["x.lua"])
        let joined = try ArgumentParser.parse(["x.lua", "--dashboard=localhost:7000"], for: RunCommand.spec)
        #expect(joined.last(RunOptions.dashboard) == "localhost:7000")
    }

}
