import Foundation

/// A subscriber of the event stream with no task of its own: its `wake` is told when
/// values arrive after it has taken all before them, and it then takes them
/// (``take()``), in order, until it gets none, wherever it runs its work. Bounded as every
/// subscriber is (past 2 MiB not taken, the oldest are dropped and counted). The
/// subscription ends with ``close()``, or when the inbox is freed: its owner keeps it.
///
/// ```swift
/// let inbox = chat.chatEvents(wake: { inbox in
///     queue.async { while case let events = inbox.take(), !events.isEmpty { events.forEach(show) } }
/// }) { $0 }
/// ```
public final class EventInbox<Value: Sendable>: @unchecked Sendable {
    private let queue: EventQueue<Value>
    private let lock = NSLock()
    private var ending: SubscriptionEnd?
    private var isClosed = false

    init(queue: EventQueue<Value>) {
        self.queue = queue
    }

    /// The subscription the inbox ends (it may have been closed meanwhile).
    func attach(_ end: SubscriptionEnd) {
        let closedMeanwhile = lock.withLock { () -> Bool in
            if !isClosed { ending = end }
            return isClosed
        }
        if closedMeanwhile { end.end() }
    }

    /// Every value arrived and not yet taken, oldest first; empty once all are taken, and
    /// `wake` is told of the next to arrive after that.
    public func take() -> [Value] {
        queue.takeAll()
    }

    /// The same, each with the bytes its event arrived as: about what a value made from
    /// it holds until it is used.
    public func takeSized() -> [(value: Value, bytes: Int)] {
        queue.takeAllSized()
    }

    /// Ends the subscription: what is held is dropped, `wake` is not told again.
    public func close() {
        let end = lock.withLock { () -> SubscriptionEnd? in
            isClosed = true
            defer { ending = nil }
            return ending
        }
        end?.end()
    }
}
