import CCAIWire
import Foundation
import LuaRuntime
import Timekeeping

/// The customer's messages on their way to a scripted agent: queued in order until the
/// script asks for the next one, which it may wait for with a timeout.
actor AgentMailbox {
    private var pending: [ChatMessage] = []
    private var waiter: (id: UUID, continuation: CheckedContinuation<ChatMessage?, Never>, timer: ClockTimer)?
    private var isClosed = false
    private let clock: any TimeSource

    init(clock: any TimeSource) {
        self.clock = clock
    }

    /// Hands a message to the waiting script, or queues it.
    func deliver(_ message: ChatMessage) {
        guard !isClosed else { return }
        if let waiter {
            self.waiter = nil
            waiter.timer.cancel()
            waiter.continuation.resume(returning: message)
        } else {
            pending.append(message)
        }
    }

    /// The next message; nil after `timeout` seconds or once the chat has ended.
    func next(timeout: Double) async -> ChatMessage? {
        if !pending.isEmpty { return pending.removeFirst() }
        if isClosed { return nil }
        let id = UUID()
        return await withCheckedContinuation { continuation in
            let timer = clock.schedule(after: timeout) { Task { await self.expire(id) } }
            waiter = (id, continuation, timer)
        }
    }

    /// The chat ended: a waiting script gets nil, later messages are dropped.
    func close() {
        isClosed = true
        pending.removeAll()
        expire(waiter?.id)
    }

    private func expire(_ id: UUID?) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.timer.cancel()
        waiter.continuation.resume(returning: nil)
    }
}
