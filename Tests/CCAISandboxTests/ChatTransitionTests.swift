@testable import CCAISandbox
import CCAIWire
import Testing

/// The table of a chat's transitions (``ChatTransition``), which the store's updates read.
@Suite struct ChatTransitionTests {
    @Test func anEndedChatIsFinal() {
        for transition in ChatTransition.allCases {
            #expect(!transition.from.contains(.ended), "\(transition) starts from ended")
        }
        #expect(ChatTransition.allCases.filter { $0.to == .ended } == [.end])
    }

    @Test func everyStatusButPendingIsReachedAndEveryOneInProgressCanEnd() {
        let reached = Set(ChatTransition.allCases.map(\.to))
        #expect(reached == Set(ChatStatus.allCases).subtracting([.pending]), "pending is where a chat with pre-session actions starts")
        #expect(Set(ChatTransition.end.from) == Set(ChatStatus.inProgress))
    }

    @Test func theConditionIsTheStoresSQL() {
        #expect(ChatTransition.requeue.condition() == "status IN ('queued', 'assigned', 'active')")
        #expect(ChatTransition.enqueue.condition(column: "c.status") == "c.status IN ('pending')")
    }
}
