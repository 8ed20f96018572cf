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

    /// A subscriber with no task (``EventInbox``) is woken once when values arrive, takes
    /// them in order until none is left, and is woken again by the next to arrive.
    @Test func aSubscriberWithoutATaskIsWokenOnceAndTakesWhatArrived() {
        let queue = EventQueue<Int>(limit: 100)
        let wakes = WakeCount()
        queue.wake = { wakes.add() }
        queue.push(1, bytes: 10)
        queue.push(2, bytes: 10)
        #expect(wakes.count == 1, "woken by the first, not again before it takes")
        #expect(queue.takeAll() == [1, 2] && queue.heldBytes == 0)
        #expect(queue.takeAll().isEmpty)
        for n in 3...12 { queue.push(n, bytes: 30) }
        #expect(wakes.count == 2 && queue.dropped == 7)
        #expect(queue.takeAll() == [10, 11, 12], "bounded as any subscriber: the oldest went")
        queue.push(13, bytes: 10)
        #expect(wakes.count == 2, "not woken again before it has taken all")
        #expect(queue.takeAll() == [13] && queue.takeAll().isEmpty)
        queue.push(20, bytes: 7)
        queue.push(21, bytes: 9)
        let sized = queue.takeAllSized()
        #expect(sized.map(\.value) == [20, 21] && sized.map(\.bytes) == [7, 9], "each with the bytes it came as")
        #expect(wakes.count == 3 && queue.takeAllSized().isEmpty)
        queue.push(14, bytes: 10)
        #expect(wakes.count == 4)
        queue.finish()
        queue.push(15, bytes: 10)
        #expect(wakes.count == 4 && queue.takeAll().isEmpty, "after the end, nothing is kept and no one is woken")
    }
}

private final class WakeCount: @unchecked Sendable {
    private let lock = NSLock()
    private var wakes = 0
    var count: Int { lock.withLock { wakes } }
    func add() { lock.withLock { wakes += 1 } }
}

