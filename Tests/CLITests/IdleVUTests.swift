import Foundation
import Testing

/// A VU that has not come to its chat holds its state only (issue 36: idle VUs in an open
/// model cost nothing else): `initialize_chat` registers the service, and the sign-in and
/// event stream wait until the script first needs the chat's events.
@Suite struct IdleVUTests {
    @Test func aVUSignsInAndOpensItsStreamWhenItFirstListens() async throws {
        let (output, snapshot) = try await CLI.runScenario("""
            ccai.initialize_chat()
            return {
              options = { vus = 1, iterations = 1 },
              run = function()
                ccai.sleep(1)
                ccai.check(not pcall(ccai.apps.get_end_user, { identifier = "vu-1" }), "no sign-in before it listens")
                ccai.chat.on("typing_event", function() end)
                ccai.chat.wait_for("state_changed", { timeout = 5, match = function(state) return state == "connected" end })
                ccai.check(ccai.apps.get_end_user{ identifier = "vu-1" }.identifier == "vu-1", "signed in once it listens")
              end,
            }
            """)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(snapshot.failedIterations == 0 && snapshot.checkFails == 0 && snapshot.checkPasses == 2, "\(snapshot.errors) \(output.stdout)")
    }
}
