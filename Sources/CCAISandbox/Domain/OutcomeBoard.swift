import CCAIWire
import Foundation
import LuaRuntime
import Timekeeping

/// Where agents wait for the end user's answer to something they asked for (a smart
/// action, a form), by key: the answer resumes every waiter of its key; a waiter gives up
/// after its timeout, or when its session (a chat, a call) ends.
actor OutcomeBoard<Value: Sendable> {
    struct Key: Hashable, Sendable {
        var session: CommunicationRouter
        var id: Int

        init(session: CommunicationRouter, id: Int) {
            (self.session, self.id) = (session, id)
        }

        /// What is asked in chat `chatID`.
        init(chatID: Int, id: Int) {
            self.init(session: CommunicationRouter(id: chatID, type: .chat), id: id)
        }
    }

    /// Waiters by the order they came in, answered in that order.
    private var waiters: [Key: [Int: (continuation: CheckedContinuation<Value?, Never>, timer: ClockTimer)]] = [:]
    private var lastWaiter = 0
    private let clock: any TimeSource

    init(clock: any TimeSource) {
        self.clock = clock
    }

    /// The answer for `key`: `answered()` when it is there already (checked after the
    /// waiter is registered, so an answer in between is not missed), else the next
    /// `resolve`; nil after `timeout` seconds or when the session ends.
    func wait(for key: Key, timeout: TimeInterval, answered: @escaping @Sendable () async -> Value?) async -> Value? {
        lastWaiter += 1
        let id = lastWaiter
        return await withCheckedContinuation { continuation in
            let timer = clock.schedule(after: timeout) { Task { await self.finish(key, id, with: nil) } }
            waiters[key, default: [:]][id] = (continuation, timer)
            Task {
                if let value = await answered() { self.finish(key, id, with: value) }
            }
        }
    }

    /// Hands `value` to everyone waiting for `key`.
    func resolve(_ key: Key, with value: Value) {
        for id in waiters[key]?.keys.sorted() ?? [] { finish(key, id, with: value) }
    }

    /// The session ended: its waiters get nil.
    func ended(_ session: CommunicationRouter) {
        for key in waiters.keys where key.session == session {
            for id in waiters[key]?.keys.map({ $0 }) ?? [] { finish(key, id, with: nil) }
        }
    }

    /// Chat `chatID` ended: its waiters get nil.
    func chatEnded(_ chatID: Int) {
        ended(CommunicationRouter(id: chatID, type: .chat))
    }

    private func finish(_ key: Key, _ id: Int, with value: Value?) {
        guard let waiter = waiters[key]?.removeValue(forKey: id) else { return }
        if waiters[key]?.isEmpty == true { waiters[key] = nil }
        waiter.timer.cancel()
        waiter.continuation.resume(returning: value)
    }
}
