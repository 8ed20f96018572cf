import Foundation
import Testing

/// Every arrival of an open-model run is accounted for: it starts an iteration or it is
/// counted in `dropped_iterations` (issue 34: a newcomer's run lost 17 of 200 and exited 0).
/// The runs go in virtual time, so nothing depends on the machine's speed.
@Suite struct ArrivalAccountingTests {
    /// The newcomer's case: 200 arrivals a minute for a minute on the built-in sandbox, with
    /// no configuration of its own. The embedded sandbox serves this run only, so no default
    /// quota refuses its end users (which once failed every iteration of an end user past
    /// 60 chats an hour with `limits.chats_per_hour`): every arrival runs, none is dropped,
    /// and no SDK call waits.
    @Test func aLoadTestOnTheBuiltInSandboxNeedsNoConfiguration() async throws {
        let summary = try await newcomersRun()
        #expect(summary.count("iterations") == 200 && summary.count("dropped_iterations") == 0,
                "iterations \(summary.count("iterations")), dropped \(summary.count("dropped_iterations")): \(summary.errors)")
        #expect(summary.errors.isEmpty, "\(summary.errors)")
        #expect(summary.longestCall < 1, "no SDK call waits on a quota or a retry")
    }

    /// A quota a configuration sets still refuses on the embedded sandbox, and its refusal
    /// is the answer at once (not retried as if transient): the VU's iterations fail fast
    /// with `limits.chats_per_hour`, and no arrival is lost to them.
    @Test func aQuotaTheConfigurationSetsStillRefuses() async throws {
        // The load example's sandbox, its limits cut down to one quota.
        let example = try String(contentsOf: CLI.root.appendingPathComponent("examples/load/sandbox.lua"), encoding: .utf8)
        let limits = try #require(example.range(of: "\n  limits = {"))
        let end = try #require(example.range(of: "\n  },", range: limits.upperBound..<example.endIndex))
        let sandbox = try CLI.script(example.replacingCharacters(in: limits.lowerBound..<end.upperBound,
                                                                 with: "\n  limits = { chats_per_hour = 5 },"))
        defer { try? FileManager.default.removeItem(atPath: sandbox) }
        let summary = try await newcomersRun(["--sandbox", sandbox])
        #expect(summary.count("iterations") + summary.count("dropped_iterations") == 200)
        #expect(summary.errors.contains { $0.contains("limits.chats_per_hour") }, "\(summary.errors)")
        #expect(summary.longestCall < 1, "a quota's refusal is the answer at once, not retried for 30 s")
    }

    /// What a run's `--summary-out` says.
    private struct Summary {
        let metrics: [[String: Any]]
        let errors: [String]

        func count(_ name: String) -> Int {
            let values = metrics.first { $0["name"] as? String == name }?["values"] as? [String: Any]
            return (values?["count"] as? NSNumber)?.intValue ?? 0
        }

        /// The longest SDK call, in seconds.
        var longestCall: Double {
            let values = metrics.first { $0["name"] as? String == "sdk_call_seconds" }?["values"] as? [String: Any]
            return (values?["max"] as? NSNumber)?.doubleValue ?? .infinity
        }
    }

    /// The newcomer's open-model run in virtual time (`arguments` added), and its summary.
    private func newcomersRun(_ arguments: [String] = []) async throws -> Summary {
        let path = try CLI.script("""
            ccai.initialize_chat()
            return {
              options = { arrival = { rate = 200, time_unit = "1m", duration = "60s", max_vus = 200 }, seed = 7 },
              run = function(ctx)
                ccai.chat.start{ menu_id = 7 }
                ccai.chat.send_message("hello " .. ctx.vu)
                ccai.chat.end_chat()
              end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("summary-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try await CLI.run(["run", path, "--quiet", "--virtual-time", "--summary-out", file.path] + arguments)
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        #expect(summary != nil, "\(output.stderr)")
        return Summary(metrics: (summary?["metrics"] as? [[String: Any]]) ?? [],
                       errors: (summary?["errors"] as? [[String: Any]])?.compactMap { $0["message"] as? String } ?? [])
    }
}
