import CCAIWire
import Foundation

/// The behaviour of a sandbox agent without a script (LUA-API section 10): it takes a
/// queued chat on one of its queues, greets, answers each message, and ends the chat after
/// the customer says goodbye. Everything it does is stored and published as events.
struct DefaultAgent {
    let sandbox: Sandbox

    /// The agent serving `menuID`, if any (the first one configured).
    func agentName(for menuID: Int) -> String? {
        sandbox.configuration.agents?.first { $0.menus.contains(menuID) }?.name
    }

    /// A chat was queued: an agent of its queue takes it at once.
    func chatQueued(_ chat: ChatResponse, endUserID: Int) async throws {
        guard let name = agentName(for: chat.menuId) else { return }
        guard let assigned = try await sandbox.store.updateChat(id: chat.id, status: .assigned, agent: name) else { return }
        try await publishState(assigned, endUserID)
        try await sandbox.publish(endUserID: endUserID, event: "member_event",
                                  data: ["chat_id": .integer(Int64(chat.id)), "type": "joined",
                                         "member": ["type": "agent", "name": .string(name)]])
        guard let active = try await sandbox.store.updateChat(id: chat.id, status: .active, agent: name) else { return }
        try await publishState(active, endUserID)
        try await say("Hi, I'm \(name). How can I help you?", in: chat.id, as: name, endUserID)
    }

    /// The customer wrote: answer, or say goodbye and end the chat. With redaction on,
    /// the agent only ever sees the redacted text.
    func messageReceived(_ message: ChatMessage, in chat: ChatResponse, endUserID: Int) async throws {
        guard chat.status == .active, let name = chat.agent?.name, let original = message.text else { return }
        let text = chat.redactionEnabled ? Redactor.redact(original) : original
        let words = text.lowercased().split(whereSeparator: { !$0.isLetter })
        if words.contains("bye") || words.contains("goodbye") {
            try await say("Thanks for contacting us. Goodbye!", in: chat.id, as: name, endUserID)
            if let ended = try await sandbox.store.endChatByAgent(id: chat.id, now: sandbox.clock.now()) {
                try await publishState(ended, endUserID)
            }
        } else {
            try await say("You said: \"\(text)\". Let me look into that for you.", in: chat.id, as: name, endUserID)
        }
    }

    /// Types, then sends: `typing_event` (typing, then not) around each message.
    private func say(_ text: String, in chatID: Int, as name: String, _ endUserID: Int) async throws {
        try await typing(true, in: chatID, as: name, endUserID)
        defer { Task { try? await typing(false, in: chatID, as: name, endUserID) } }
        let (message, _) = try await sandbox.store.addMessage(
            chatID: chatID, sender: ChatMessageSender(type: "agent", name: name), type: "text", text: text, event: nil,
            clientMessageID: nil, now: sandbox.clock.now())
        try await sandbox.publishMessages([message], endUserID: endUserID)
    }

    private func typing(_ isTyping: Bool, in chatID: Int, as name: String, _ endUserID: Int) async throws {
        try await sandbox.publish(endUserID: endUserID, event: "typing_event",
                                  data: ["chat_id": .integer(Int64(chatID)), "typing": .bool(isTyping),
                                         "member": ["type": "agent", "name": .string(name)]])
    }

    private func publishState(_ chat: ChatResponse, _ endUserID: Int) async throws {
        try await sandbox.publish(endUserID: endUserID, event: "state_changed",
                                  data: ["chat_id": .integer(Int64(chat.id)), "status": .string(chat.status.rawValue)])
    }
}

extension Sandbox {
    /// Publishes `messages_received` with the messages as JSON.
    func publishMessages(_ messages: [ChatMessage], endUserID: Int) async throws {
        let data = try JSONValue(jsonText: String(decoding: JSONEncoder().encode(messages), as: UTF8.self))
        try await publish(endUserID: endUserID, event: "messages_received", data: data)
    }
}
