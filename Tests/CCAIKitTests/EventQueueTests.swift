@testable import CCAIKit
import Foundation
import Testing

/// What a subscriber of the event stream has not taken is bounded in bytes (issue 38,
/// item 2): the oldest go first, the newest stays whatever its size, the order holds.
@Suite struct EventQueueTests {
    @Test func aSubscriberBehindKeepsItsNewestWithinItsBytes() async {
        let queue = EventQueue<Int>(limit: 100)
        var dropped = 0
        for n in 1...10 { dropped += queue.push(n, bytes: 30) }
        #expect(dropped == 7 && queue.dropped == 7 && queue.heldBytes == 90, "three of 30 bytes fit in 100")
        #expect(await queue.next() == 8)
        #expect(queue.push(11, bytes: 500) == 2 && queue.heldBytes == 500, "a large one stays alone, the others go")
        #expect(await queue.next() == 11)
        #expect(queue.heldBytes == 0)
    }

    @Test func aSubscriberGetsWhatIsPushedAndNilOnceFinished() async {
        let queue = EventQueue<String>(limit: 1 << 20)
        let waiting = Task { await queue.next() }
        queue.push("first", bytes: 5)   // handed to the waiter, or kept until it asks
        #expect(await waiting.value == "first")
        let ending = Task { await queue.next() }
        queue.finish()
        #expect(await ending.value == nil)
        #expect(queue.push("late", bytes: 4) == 0 && queue.heldBytes == 0, "after the end, nothing is kept")
    }
}
