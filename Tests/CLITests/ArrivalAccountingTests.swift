import Foundation
import Testing

/// Every arrival of an open-model run is accounted for: it starts an iteration or it is
/// counted in `dropped_iterations` (issue 34: a newcomer's run lost 17 of 200 and exited 0).
/// The runs go in virtual time, so nothing depends on the machine's speed.
@Suite struct ArrivalAccountingTests {
    /// The newcomer's case: 200 arrivals a minute for a minute on the built-in sandbox. Each
    /// arrival runs an iteration or is counted as dropped; the embedded sandbox serves this
    /// run only, so the per-end-user quotas a shared sandbox has (60 chats an hour) do not
    /// apply, and every arrival runs (before, 140 of 200 failed on limits.chats_per_hour,
    /// and 17 were lost).
    @Test func everyArrivalOfTheNewcomersRunRuns() async throws {
        let (output, snapshot) = try await CLI.runScenario("""
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
        #expect(output.status == 0, "\(output.stderr)")
        #expect(snapshot.iterations == 200 && snapshot.metric(.droppedIterations).total.sum == 0, "\(snapshot.errors)")
        #expect(snapshot.failedIterations == 0, "\(snapshot.errors)")
        #expect(snapshot.metric(.sdkCall).total.max < 1, "no SDK call waits")
    }

    /// Limits a configuration sets still apply to the embedded sandbox: a quota's refusal
    /// is the answer at once (not retried for 30 s), and fails its iteration.
    @Test func aConfiguredQuotaIsTheAnswerAtOnce() async throws {
        // The load example's sandbox, with an hourly quota of 2 chats.
        let example = try String(contentsOf: CLI.root.appendingPathComponent("examples/load/sandbox.lua"), encoding: .utf8)
        #expect(example.contains("chats_per_hour = 100000,"))
        let config = try CLI.script(example.replacingOccurrences(of: "chats_per_hour = 100000,", with: "chats_per_hour = 2,"))
        defer { try? FileManager.default.removeItem(atPath: config) }
        let (output, snapshot) = try await CLI.runScenario("""
            ccai.initialize_chat()
            return {
              options = { vus = 1, iterations = 3 },
              run = function()
                ccai.chat.start{ menu_id = 7 }
                ccai.chat.end_chat()
              end,
            }
            """, ["--sandbox", config])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(snapshot.iterations == 3 && snapshot.failedIterations == 1, "\(snapshot.errors)")
        #expect(snapshot.errors.contains { $0.message.contains("limits.chats_per_hour") }, "\(snapshot.errors)")
        #expect(snapshot.metric(.sdkCall).matching(["status": "limit_exceeded"]).max < 1, "a quota is not waited for")
    }
}
