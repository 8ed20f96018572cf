import CCAIWire
import Foundation
import Timekeeping

/// The messages of chats: each is stored, then published to the chat's end user as a
/// `messages_received`, whoever writes it (the end user, an agent, the sandbox itself),
/// and an agent's is pushed to an end user with no event stream open (``Pushes``).
/// A message whose client id was stored already is that message, not a new one, and is
/// not published again. The end user's text is redacted once, in the caller's task before
/// it is stored (``Redactor``), and kept beside the text as written: agents and
/// transcripts on a redacting queue read what was kept (``agentView(of:in:)``), the end
/// user reads their own text.
///
/// ```swift
/// let (message, isNew) = try await conversation.post(
///     .init(sender: ChatMessageSender(type: .agent, name: "Ada"), type: .text, text: "Hello"),
///     in: chat.id, endUserID: owner)
/// ```
struct Conversation: Sendable {
    /// A message to post: who sends it, its type and content, and what it points to.
    struct Message: Sendable {
        var sender: ChatMessageSender
        var type: ChatMessageType
        var text: String? = nil
        var event: String? = nil
        var media: ChatMedia? = nil
        var smartActionID: Int? = nil
        var form: CustomForm? = nil
        var webForm: WebFormRequest? = nil
        var screenShare: ScreenShareResponse? = nil
        var clientMessageID: String? = nil

        /// A notification from the platform itself (`noti`).
        static func notification(_ text: String, event: String) -> Message {
            Message(sender: ChatMessageSender(type: .system), type: .notification, text: text, event: event)
        }
    }

    let store: SandboxStore
    let publisher: EventPublisher
    let clock: any TimeSource
    /// Where the end user's messages for the agents are said (the agent desk listens).
    let changes: SessionChanges
    /// Pushes an agent's message to an end user who is not listening.
    let pushes: Pushes

    /// Posts the end user's message for the chat's agents: stored and published as by
    /// ``post(_:in:endUserID:)``, and, when new, a ``SessionChange/endUserWrote(_:in:endUserID:)``
    /// before this returns. (A web form's outcome is posted plainly: the agent who sent the
    /// form gets it from its outcome board.)
    func postForAgents(_ message: Message, in chat: ChatResponse, endUserID: Int) async throws
        -> (message: ChatMessage, isNew: Bool)
    {
        let posted = try await post(message, in: chat.id, endUserID: endUserID)
        if posted.isNew { await changes.publish(.endUserWrote(posted.message, in: chat, endUserID: endUserID)) }
        return posted
    }

    /// Stores `message` in the chat and publishes it; `isNew` is false when its client id
    /// was posted before (the earlier message is returned).
    @discardableResult
    func post(_ message: Message, in chatID: Int, endUserID: Int) async throws -> (message: ChatMessage, isNew: Bool) {
        let redacted = message.sender.type == .endUser ? message.text.map(Redactor.redact) : nil
        let (stored, isNew) = try await store.addMessage(
            chatID: chatID, sender: message.sender, type: message.type, text: message.text, event: message.event,
            media: message.media, smartActionID: message.smartActionID, form: message.form, webForm: message.webForm,
            screenShare: message.screenShare, clientMessageID: message.clientMessageID, now: clock.now(),
            redactedText: redacted == message.text ? nil : redacted)
        if isNew {
            try await publisher.messages([stored], endUserID: endUserID)
            await pushes.messageWhileAway(stored, in: chatID, endUserID: endUserID)
        }
        return (stored, isNew)
    }

    /// The chat's messages, oldest first.
    func messages(of chatID: Int) async throws -> [ChatMessage] {
        try await store.messages(chatID: chatID)
    }

    /// A page of the chat's messages: at most `limit`, oldest first, after the message `after`.
    func messages(of chatID: Int, after: Int, limit: Int) async throws -> [ChatMessage] {
        try await store.messages(chatID: chatID, after: after, limit: limit)
    }

    /// A message as the chat's agents see it: the end user's text as it was redacted when
    /// stored, when the chat's queue redacts (seed 001, automatic redaction).
    func agentView(of message: ChatMessage, in chat: ChatResponse) async throws -> ChatMessage {
        guard chat.redactionEnabled, message.sender.type == .endUser, message.text != nil,
            let redacted = try await store.redactedText(messageID: message.id)
        else { return message }
        var seen = message
        seen.text = redacted
        return seen
    }

    /// Which messages of a chat: the first or the last so many.
    enum Window {
        case first(Int)
        case last(Int)
    }

    /// The chat's first `limit` messages as its agents see them (``agentView(of:in:)``).
    func agentView(of chat: ChatResponse, first limit: Int) async throws -> [ChatMessage] {
        try await agentView(of: chat, .first(limit))
    }

    /// The messages of `window` as the chat's agents see them (``agentView(of:in:)``).
    func agentView(of chat: ChatResponse, _ window: Window) async throws -> [ChatMessage] {
        let messages: [ChatMessage]
        switch window {
        case .first(let limit): messages = try await store.messages(chatID: chat.id, first: limit)
        case .last(let limit): messages = try await store.messages(chatID: chat.id, last: limit)
        }
        guard chat.redactionEnabled else { return messages }
        let redacted = try await store.redactedTexts(chatID: chat.id)
        return messages.map { message in
            guard message.sender.type == .endUser, let text = redacted[message.id] else { return message }
            var seen = message
            seen.text = text
            return seen
        }
    }

    /// The message the end user sent with `clientMessageID`, if they did.
    func message(in chatID: Int, clientMessageID: String) async throws -> ChatMessage? {
        try await store.message(chatID: chatID, clientMessageID: clientMessageID)
    }
}
