import CCAIKit
import CCAIWire

/// Keeps a VU's iterations apart (LUA-API section 6): the chats and calls of its earlier
/// iterations are retired when the next one begins, and their late events (an agent's
/// answer after the iteration ended, the chat's end) never reach the new iteration's `on`
/// or `wait_for`. Attached to a VU's state and read on its executor only, when an event is
/// about to be emitted.
///
/// ```swift
/// lua.attach(ConversationScope())
/// scope.retireAll(current: [.chat(12)])       // an iteration begins
/// scope.admits([.chat(12)])                    // false: chat 12 was an earlier iteration's
/// ```
final class ConversationScope {
    /// A chat or a call, by id.
    enum Conversation: Hashable {
        case chat(Int)
        case call(Int)
    }

    /// The most retired conversations remembered (the oldest are forgotten: their events
    /// have long stopped coming).
    static let maximumRetired = 4_096

    /// Conversations whose events the current iteration has seen.
    private var seen = Set<Conversation>()
    private var retired = Set<Conversation>()
    private var retiredOrder: [Conversation] = []

    /// Whether an event about `conversations` reaches the iteration: when it names none (a
    /// typing or state event), or one not retired.
    func admits(_ conversations: [Conversation]) -> Bool {
        guard !conversations.isEmpty else { return true }
        let fresh = conversations.filter { !retired.contains($0) }
        seen.formUnion(fresh)
        return !fresh.isEmpty
    }

    /// An iteration begins: every conversation seen so far, and `current` (those the SDK
    /// still holds, whose events may not have come yet), belong to the past.
    func retireAll(current: [Conversation]) {
        for conversation in seen.union(current) where retired.insert(conversation).inserted {
            retiredOrder.append(conversation)
        }
        seen = []
        if retiredOrder.count > Self.maximumRetired {
            let forgotten = retiredOrder.count - Self.maximumRetired
            for conversation in retiredOrder.prefix(forgotten) { retired.remove(conversation) }
            retiredOrder.removeFirst(forgotten)
        }
    }
}

extension ChatServiceEvent {
    /// The chats the event is about; none for events of whatever chat is current.
    var conversations: [ConversationScope.Conversation] {
        switch self {
        case .messagesReceived(let messages): return Array(Set(messages.map { .chat($0.chatId) }))
        case .chatReceived(let chat?): return [.chat(chat.id)]
        case .coldTransfer(let transfer): return [.chat(transfer.chatId)]
        default: return []
        }
    }
}

extension CallServiceEvent {
    /// The calls the event is about; none for the provider's state.
    var conversations: [ConversationScope.Conversation] {
        switch self {
        case .stateChanged: return []
        case .callReceived(let call): return [.call(call.id)]
        case .waitTimeUpdated(let payload): return [.call(payload.callId)]
        case .participantUpdated(let payload): return [.call(payload.callId)]
        case .interruptionDetected(let interruption): return [.call(interruption.callId)]
        case .deflectionOffered(let deflection): return [.call(deflection.callId)]
        case .audibleMessagePlayed(let playback): return [.call(playback.callId)]
        case .incomingCallEvent(let incoming): return [.call(incoming.call.id)]
        }
    }
}
