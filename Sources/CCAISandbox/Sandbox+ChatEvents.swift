import CCAIWire
import Foundation

/// The chat events every part of the sandbox publishes the same way.
extension Sandbox {
    /// Publishes `state_changed` (`chat_id`, `status`).
    func publishState(_ chat: ChatResponse, endUserID: Int) async throws {
        try await publish(endUserID: endUserID, event: .stateChanged,
                          data: ["chat_id": .integer(Int64(chat.id)), "status": .string(chat.status.rawValue)])
    }

    /// Publishes `messages_received` with the messages as JSON.
    func publishMessages(_ messages: [ChatMessage], endUserID: Int) async throws {
        let data = try JSONValue(encoding: messages)
        try await publish(endUserID: endUserID, event: .messagesReceived, data: data)
    }
}
