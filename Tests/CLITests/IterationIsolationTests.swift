import CCAIScripting
import Foundation
import Testing

/// A VU's iterations are apart, and the end of a run is counted (issue 34): an iteration
/// never sees the events an earlier one left or its chats' late events, nor runs its `on`
/// handlers; one cut off by the end of the run fails as `interrupted`, and the chat it left
/// open counts as abandoned. In virtual time: nothing depends on the machine's speed.
@Suite struct IterationIsolationTests {
    /// The newcomer's case: the first iteration leaves the virtual agent's answers unclaimed
    /// and a handler subscribed; the second's naive `wait_for` gets its own chat's message,
    /// and the first's handler never runs again.
    @Test func anIterationSeesNoEventOfAnEarlierOne() async throws {
        let (output, snapshot) = try await CLI.runScenario("""
            ccai.initialize_chat()
            return {
              options = { vus = 1, iterations = 3 },
              run = function(ctx)
                local chat = ccai.chat.start{ menu_id = 7 }
                ccai.chat.on("messages_received", function(messages)
                  ccai.check(messages[1].chat_id == chat.id, "a handler sees only its own iteration's chat")
                end)
                ccai.chat.send_message("hello " .. ctx.iteration)
                if ctx.iteration > 1 then
                  local messages = ccai.chat.wait_for("messages_received", { timeout = 30 })
                  ccai.check(messages[1].chat_id == chat.id, "wait_for gets this iteration's chat")
                end
                -- The answers come while it sleeps, and nobody claims them.
                ccai.sleep(20)
                ccai.chat.end_chat()
              end,
            }
            """)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(snapshot.failedIterations == 0, "\(snapshot.errors)")
        let checks = Dictionary(uniqueKeysWithValues: snapshot.checks.map { ($0.name, $0) })
        #expect(checks["wait_for gets this iteration's chat"]?.passes == 2 && checks["wait_for gets this iteration's chat"]?.fails == 0,
                "\(snapshot.checks)")
        #expect((checks["a handler sees only its own iteration's chat"]?.passes ?? 0) >= 3
                && checks["a handler sees only its own iteration's chat"]?.fails == 0, "\(snapshot.checks)")
    }

    /// An iteration past the duration and its graceful stop is cut off: it fails as
    /// `interrupted`, and its open chat is abandoned.
    @Test func anIterationCutOffFailsAsInterruptedAndAbandonsItsChat() async throws {
        let (output, snapshot) = try await CLI.runScenario("""
            ccai.initialize_chat()
            return {
              options = { vus = 1, duration = "10s", graceful_stop = "2s" },
              run = function()
                ccai.chat.start{ menu_id = 7 }
                ccai.sleep(600)
              end,
            }
            """)
        #expect(output.status == 0, "\(output.stderr)")
        let failed = snapshot.metric(.iterationFailed)
        #expect(snapshot.iterations == 1 && failed.matching(["reason": "interrupted"]).trues == 1, "\(failed.series)")
        #expect(snapshot.metric(.abandoned).total.trues == 1, "\(snapshot.metric(.abandoned).series)")
        #expect(output.stdout.contains("{reason:interrupted}"), "\(output.stdout)")
    }

    /// Every open-model summary shows `dropped_iterations`, at 0 too.
    @Test func anOpenModelSummaryAlwaysShowsDroppedIterations() async throws {
        let (output, snapshot) = try await CLI.runScenario("""
            return {
              options = { arrival = { rate = 10, duration = "2s", max_vus = 5 } },
              run = function() ccai.sleep(0.1) end,
            }
            """)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(snapshot.iterations == 20 && snapshot.metric(.droppedIterations).total.sum == 0)
        #expect(output.stdout.contains("dropped_iterations"), "\(output.stdout)")
    }
}
