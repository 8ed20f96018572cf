import Foundation

/// What one subscriber of the event stream has not taken yet, bounded in bytes: past
/// ``limit`` the oldest are dropped and counted, so that a subscriber reading slower than a
/// platform floods holds at most its limit, never the flood. The subscriber pulls, either
/// one value at a time (its `AsyncStream` asks for the next when it wants one) or, told by
/// `wake` that values arrived, all of them at once until none is left (``takeAll()``).
/// Safe from any thread.
///
/// ```swift
/// let queue = EventQueue<PlatformEvent>(limit: 2 << 20)
/// queue.push(event, bytes: event.byteCount)    // the pump
/// let next = await queue.next()                // the subscriber; nil once finished
/// ```
final class EventQueue<Value: Sendable>: @unchecked Sendable {
    /// The most bytes held for the subscriber; the newest value is kept whatever its size.
    let limit: Int
    private let lock = NSLock()
    private var values: [(value: Value, bytes: Int)] = []
    private var head = 0
    private var bytes = 0
    private var waiter: CheckedContinuation<Value?, Never>?
    private var finished = false
    private var droppedCount = 0
    private var wakeSubscriber: (@Sendable () -> Void)?
    private var isAwake = false

    init(limit: Int) {
        self.limit = limit
    }

    /// Told when a value arrives and the subscriber has taken all before it; not again
    /// until ``takeAll()`` has found nothing left. Called on the pushing thread.
    var wake: (@Sendable () -> Void)? {
        get { lock.withLock { wakeSubscriber } }
        set { lock.withLock { wakeSubscriber = newValue } }
    }

    /// Values dropped because the subscriber was behind.
    var dropped: Int { lock.withLock { droppedCount } }

    /// Bytes held for the subscriber.
    var heldBytes: Int { lock.withLock { bytes } }

    /// Hands `value` (`bytes` long) to the subscriber: at once when it waits, else kept,
    /// dropping the oldest past the limit. Returns how many were dropped.
    @discardableResult
    func push(_ value: Value, bytes size: Int) -> Int {
        let (taker, dropped, toWake): (CheckedContinuation<Value?, Never>?, Int, (@Sendable () -> Void)?) = lock.withLock {
            guard !finished else { return (nil, 0, nil) }
            if let waiter {
                self.waiter = nil
                return (waiter, 0, nil)
            }
            let wakes = isAwake ? nil : wakeSubscriber
            if wakes != nil { isAwake = true }
            values.append((value, size))
            bytes += size
            var dropped = 0
            while bytes > limit, values.count - head > 1 {
                bytes -= values[head].bytes
                head += 1
                dropped += 1
            }
            droppedCount += dropped
            if head > 32, head * 2 >= values.count {
                values.removeFirst(head)
                head = 0
            }
            return (nil, dropped, wakes)
        }
        taker?.resume(returning: value)
        toWake?()
        return dropped
    }

    /// Every value not taken, oldest first. A subscriber that was woken takes until it gets
    /// none; until then it is not woken again, and the next value to arrive after that
    /// wakes it.
    func takeAll() -> [Value] {
        takeAll { value, _ in value }
    }

    /// The same, each with the bytes it was pushed as.
    func takeAllSized() -> [(value: Value, bytes: Int)] {
        takeAll { ($0, $1) }
    }

    private func takeAll<Taken>(_ taken: (Value, Int) -> Taken) -> [Taken] {
        lock.withLock {
            if head == values.count { isAwake = false }
            defer {
                values.removeAll(keepingCapacity: values.count <= 16)
                head = 0
                bytes = 0
            }
            return values[head...].map { taken($0.value, $0.bytes) }
        }
    }

    /// The oldest value not taken, waiting for one if there is none; nil once finished.
    func next() async -> Value? {
        await withCheckedContinuation { continuation in
            let ready: Value?? = lock.withLock {
                if head < values.count {
                    let (value, size) = values[head]
                    head += 1
                    bytes -= size
                    if head == values.count {
                        values.removeAll(keepingCapacity: true)
                        head = 0
                    }
                    return .some(value)
                }
                if finished { return .some(nil) }
                waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Ends the queue: what is held is dropped, a waiting `next` gets nil, later pushes are
    /// ignored.
    func finish() {
        let waiting: CheckedContinuation<Value?, Never>? = lock.withLock {
            finished = true
            values = []
            head = 0
            bytes = 0
            wakeSubscriber = nil
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(returning: nil)
    }
}
