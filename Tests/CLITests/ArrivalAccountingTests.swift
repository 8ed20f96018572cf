import Foundation
import Testing

/// Every arrival of an open-model run is accounted for: it starts an iteration or it is
/// counted in `dropped_iterations` (issue 34: a newcomer's run lost 17 of 200 and exited 0).
/// The runs go in virtual time, so nothing depends on the machine's speed.
@Suite struct ArrivalAccountingTests {
    /// The newcomer's case: 200 arrivals a minute for a minute on the built-in sandbox,
    /// whose end users may start 60 chats an hour. A VU whose end user reaches its quota fails
    /// its iterations (`limit_exceeded`) at once; it is not killed, and no arrival is handed to
    /// a dead VU and lost.
    @Test func anEndUsersQuotaLosesNoArrival() async throws {
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
        let output = try await CLI.run(["run", path, "--quiet", "--virtual-time", "--summary-out", file.path])
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        let metrics = (summary?["metrics"] as? [[String: Any]]) ?? []
        func count(_ name: String) -> Int {
            let values = metrics.first { $0["name"] as? String == name }?["values"] as? [String: Any]
            return (values?["count"] as? NSNumber)?.intValue ?? 0
        }
        #expect(count("iterations") + count("dropped_iterations") == 200,
                "iterations \(count("iterations")) + dropped \(count("dropped_iterations")): \(output.stdout)")
        let calls = metrics.first { $0["name"] as? String == "sdk_call_seconds" }?["values"] as? [String: Any]
        #expect(((calls?["max"] as? NSNumber)?.doubleValue ?? .infinity) < 1,
                "a quota's refusal is the answer at once, not retried for 30 s: \(calls ?? [:])")
        let errors = (summary?["errors"] as? [[String: Any]])?.compactMap { $0["message"] as? String } ?? []
        #expect(errors.contains { $0.contains("limits.chats_per_hour") }, "the quota's refusals fail their iterations: \(errors)")
    }
}
