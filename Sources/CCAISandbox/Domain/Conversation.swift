import CCAIWire
import Foundation
import Timekeeping

/// The messages of chats: each is stored, then published to the chat's end user as a
/// `messages_received`, whoever writes it (the end user, an agent, the sandbox itself).
/// A message whose client id was stored already is that message, not a new one, and is
/// not published again.
///
/// ```swift
/// let (message, isNew) = try await conversation.post(
///     .init(sender: ChatMessageSender(type: "agent", name: "Ada"), type: "text", text: "Hello"),
///     in: chat.id, endUserID: owner)
/// ```
struct Conversation: Sendable {
    /// A message to post: who sends it, its type and content, and what it points to.
    struct Message: Sendable {
        var sender: ChatMessageSender
        var type: String
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
            Message(sender: ChatMessageSender(type: "system"), type: "noti", text: text, event: event)
        }
    }

    let store: SandboxStore
    let publisher: EventPublisher
    let clock: any Clock

    /// Stores `message` in the chat and publishes it; `isNew` is false when its client id
    /// was posted before (the earlier message is returned).
    @discardableResult
    func post(_ message: Message, in chatID: Int, endUserID: Int) async throws -> (message: ChatMessage, isNew: Bool) {
        let (stored, isNew) = try await store.addMessage(
            chatID: chatID, sender: message.sender, type: message.type, text: message.text, event: message.event,
            media: message.media, smartActionID: message.smartActionID, form: message.form, webForm: message.webForm,
            screenShare: message.screenShare, clientMessageID: message.clientMessageID, now: clock.now())
        if isNew { try await publisher.messages([stored], endUserID: endUserID) }
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

    /// The message the end user sent with `clientMessageID`, if they did.
    func message(in chatID: Int, clientMessageID: String) async throws -> ChatMessage? {
        try await store.message(chatID: chatID, clientMessageID: clientMessageID)
    }
}
