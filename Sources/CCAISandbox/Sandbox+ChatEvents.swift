import CCAIWire
import Foundation

/// The chat events every part of the sandbox publishes the same way.
extension Sandbox {
    /// Publishes `chat_received` with the whole chat: every change of the platform's
    /// record of a chat goes through here.
    func publishChat(_ chat: ChatResponse, endUserID: Int) async throws {
        try await publish(endUserID: endUserID, event: .chatReceived, encoding: chat)
    }

    /// Publishes `messages_received` with the messages as JSON.
    func publishMessages(_ messages: [ChatMessage], endUserID: Int) async throws {
        try await publish(endUserID: endUserID, event: .messagesReceived, encoding: messages)
    }
}
