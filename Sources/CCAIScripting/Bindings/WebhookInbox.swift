import CCAIWire
import Foundation

/// Where the webhooks a run receives (`ccai run --webhook-listen`) meet the states that
/// started their chats: `ccai.apps.start_chat` subscribes its state to the chat, and each
/// verified delivery goes to the state of its chat as a `ccai.apps` event. A delivery can
/// arrive before `start_chat` has its answer (the platform sends `chat_created` as it
/// creates the chat): deliveries of chats nobody subscribed to are kept, a bounded number
/// for a bounded time, and handed over when the chat is subscribed to. A chat's stream
/// ends with its `chat_ended`.
///
/// ```swift
/// let inbox = WebhookInbox()
/// for await delivery in receiverStream { inbox.receive(delivery.envelope) }
/// ```
public final class WebhookInbox: @unchecked Sendable {
    /// How many deliveries of chats nobody subscribed to are kept, and for how long.
    public static let unclaimedLimit = 10_000
    public static let unclaimedSeconds: TimeInterval = 60

    private struct Unclaimed {
        var envelope: WebhookEnvelope
        var received: Date
    }

    private struct State {
        var subscribers: [Int: (token: UUID, continuation: AsyncStream<WebhookEnvelope>.Continuation)] = [:]
        var unclaimed: [Int: [Unclaimed]] = [:]
        var unclaimedCount = 0
        var droppedCount = 0
    }

    /// Behind `lock` (a pthread lock ThreadSanitizer sees, unlike `Mutex`'s futex).
    private var stateValue = State()
    private let lock = NSLock()
    private let now: @Sendable () -> Date

    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        lock.withLock { body(&stateValue) }
    }

    public init(now: @escaping @Sendable () -> Date = Date.init) {
        self.now = now
    }

    /// Deliveries dropped because nobody subscribed to their chat in time or the kept ones
    /// were at their bound.
    public var droppedCount: Int { withState { $0.droppedCount } }

    /// Hands a verified delivery to its chat's subscriber, or keeps it for one to come.
    public func receive(_ envelope: WebhookEnvelope) {
        let moment = now()
        let ended = envelope.name == .chatEnded
        // A continuation is yielded to and finished outside the lock: finishing runs its
        // termination handler, which takes the lock.
        let subscriber = withState { state -> AsyncStream<WebhookEnvelope>.Continuation? in
            if let subscriber = state.subscribers[envelope.chatId]?.continuation {
                if ended { state.subscribers.removeValue(forKey: envelope.chatId) }
                return subscriber
            }
            Self.forgetOld(&state, before: moment.addingTimeInterval(-Self.unclaimedSeconds))
            guard state.unclaimedCount < Self.unclaimedLimit else {
                state.droppedCount += 1
                return nil
            }
            state.unclaimed[envelope.chatId, default: []].append(Unclaimed(envelope: envelope, received: moment))
            state.unclaimedCount += 1
            return nil
        }
        subscriber?.yield(envelope)
        if ended { subscriber?.finish() }
    }

    /// The deliveries of chat `chatID` from now on, those that came before first; the
    /// stream ends after `chat_ended`, or when the subscriber stops reading.
    public func subscribe(chatID: Int) -> AsyncStream<WebhookEnvelope> {
        let (stream, continuation) = AsyncStream<WebhookEnvelope>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
        let token = UUID()
        let (early, replaced) = withState { state -> ([Unclaimed], AsyncStream<WebhookEnvelope>.Continuation?) in
            let early = state.unclaimed.removeValue(forKey: chatID) ?? []
            state.unclaimedCount -= early.count
            guard !early.contains(where: { $0.envelope.name == .chatEnded }) else { return (early, nil) }
            let replaced = state.subscribers[chatID]?.continuation
            state.subscribers[chatID] = (token, continuation)
            return (early, replaced)
        }
        replaced?.finish()
        for kept in early { continuation.yield(kept.envelope) }
        if early.contains(where: { $0.envelope.name == .chatEnded }) { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            self?.withState { state in
                if state.subscribers[chatID]?.token == token { state.subscribers.removeValue(forKey: chatID) }
            }
        }
        return stream
    }

    private static func forgetOld(_ state: inout State, before limit: Date) {
        for (chatID, kept) in state.unclaimed {
            let fresh = kept.filter { $0.received >= limit }
            guard fresh.count != kept.count else { continue }
            state.droppedCount += kept.count - fresh.count
            state.unclaimedCount -= kept.count - fresh.count
            state.unclaimed[chatID] = fresh.isEmpty ? nil : fresh
        }
    }
}
