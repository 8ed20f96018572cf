import CCAIWire
import Foundation

/// A change of a chat or a call that other parts act on (the agent desk hands a queued
/// session to an agent, lets go of an ended one, and gives the customer's messages to
/// whoever has the chat), said by the domain as it happens (``ChatLifecycle``,
/// ``CallLifecycle``, ``Conversation``), so no route or agent has to remember to tell them.
enum SessionChange: Sendable {
    /// The chat joined its queue: created queued, or enqueued after its pre-session smart
    /// actions. (A transfer, an escalation and a restart queue a chat as the desk's own
    /// act, and the desk hands it on itself.)
    case queued(ChatResponse, endUserID: Int)
    /// The chat ended, by whoever.
    case ended(ChatResponse)
    /// The end user wrote in the chat (words, a file, a screen share event), stored for
    /// the first time.
    case endUserWrote(ChatMessage, in: ChatResponse, endUserID: Int)
    /// A new call waits for an agent (a transfer queues a call as the desk's own act).
    case callWaiting(CallResponse, endUserID: Int)
    /// The call ended or failed, by whoever.
    case callEnded(CallResponse)
}

/// What listens to ``SessionChange``s.
protocol SessionChangeObserver: AnyObject, Sendable {
    func sessionChanged(_ change: SessionChange) async
}

/// The listeners of a sandbox's session changes: subscribed once while the sandbox is built,
/// told of each change in order, before the transition returns. Held weakly (the desk
/// holds the lifecycle that holds this), so a listener must be held by what serves: the
/// routes hold the desk, and a server outlives a `Sandbox` value its caller let go.
///
/// ```swift
/// changes.subscribe(desk)
/// await changes.publish(.ended(chat))
/// ```
final class SessionChanges: @unchecked Sendable {
    private struct Listener {
        weak var observer: (any SessionChangeObserver)?
    }

    private let lock = NSLock()
    private var listeners: [Listener] = []

    func subscribe(_ observer: any SessionChangeObserver) {
        lock.withLock { listeners.append(Listener(observer: observer)) }
    }

    func publish(_ change: SessionChange) async {
        for observer in lock.withLock({ listeners.compactMap(\.observer) }) {
            await observer.sessionChanged(change)
        }
    }
}
