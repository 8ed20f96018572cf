import CCAIWire
import Foundation

/// Turns the events of the chats the company's server started (the Apps API) into its
/// webhooks (docs/webhooks.md): every event of the sandbox passes here from
/// ``EventPublisher``, after it is stored, and those of a server's chat are queued for
/// delivery (``WebhookDispatcher``), off the request path. What each becomes:
///
/// | sandbox event | webhook |
/// |---|---|
/// | `chat_received`, the first of the chat | `chat_created` (the chat object) |
/// | `chat_received`, escalated from its virtual agent back to the queue | `chat_escalated` |
/// | `chat_received`, ended | `chat_deflected` first when it was deflected, then `chat_ended` (the chat object) |
/// | `messages_received` | `agent_message`, `virtual_agent_message`, `system_message` (the end user's own are the server's: none) |
/// | `cold_transfer` | `chat_transferred` |
struct AppsWebhookTap: Sendable {
    let webhooks: WebhookDispatcher
    let store: SandboxStore
    let renderer: AppsChatRenderer
    /// Where an event that cannot be read is reported (it is stored and streamed all the same).
    let log: @Sendable (String) -> Void

    /// Queues the webhooks `event` of an end user sets off, if it is of a server's chat.
    func observe(endUserID: Int, event: PlatformEventName, jsonText: String) async {
        do {
            try await queue(endUserID: endUserID, event: event, jsonText: jsonText)
        } catch {
            log("sandbox: the webhooks of a \(event.rawValue) event were not queued: \(error)")
        }
    }

    private func queue(endUserID: Int, event: PlatformEventName, jsonText: String) async throws {
        let data = Data(jsonText.utf8)
        switch event {
        case .chatReceived:
            try await chatChanged(try JSONDecoder().decode(ChatResponse.self, from: data), endUserID: endUserID)
        case .messagesReceived:
            for message in try JSONDecoder().decode([ChatMessage].self, from: data) { try await wrote(message) }
        case .coldTransfer:
            let transfer = try JSONDecoder().decode(ColdTransfer.self, from: data)
            guard try await store.isStartedByServer(chatID: transfer.chatId) else { return }
            webhooks.enqueue(.chatTransferred, chatID: transfer.chatId, data: [
                "from_menu_id": .integer(Int64(transfer.fromMenuId)), "to_menu_id": .integer(Int64(transfer.toMenuId)),
                "from_agent": transfer.agent.name.map(JSONValue.string) ?? .null,
            ])
        default:
            return
        }
    }

    /// The webhooks of a change of the chat, by the status its webhooks told last.
    private func chatChanged(_ chat: ChatResponse, endUserID: Int) async throws {
        let facts = try await store.appsChatFacts(chatID: chat.id)
        let status = chat.status == .queued && facts.escalated ? "escalated" : chat.status.rawValue
        guard let step = try await store.advanceWebhookStatus(chatID: chat.id, to: status), step.previous != status else { return }
        switch status {
        case _ where step.previous == nil:
            webhooks.enqueue(.chatCreated, chatID: chat.id, data: try JSONValue(encoding: try await renderer.chat(chat, endUserID: endUserID)))
        case "escalated":
            webhooks.enqueue(.chatEscalated, chatID: chat.id, data: [
                "escalation_id": facts.escalationID.map { .integer(Int64($0)) } ?? .null, "status": "queued",
                "deflection_channel": facts.escalationChannel.map(JSONValue.string) ?? .null,
            ])
        case ChatStatus.ended.rawValue:
            if let channel = facts.escalationChannel, channel != "chat", chat.endedBy == .agent {
                webhooks.enqueue(.chatDeflected, chatID: chat.id, data: [
                    "escalation_id": facts.escalationID.map { .integer(Int64($0)) } ?? .null, "deflection_channel": .string(channel),
                ])
            }
            webhooks.enqueue(.chatEnded, chatID: chat.id, data: try JSONValue(encoding: try await renderer.chat(chat, endUserID: endUserID)))
        default:
            return
        }
    }

    /// An agent's, a virtual agent's or the platform's message in a server's chat.
    private func wrote(_ message: ChatMessage) async throws {
        let event: WebhookEventName
        switch message.sender.type {
        case .agent: event = .agentMessage
        case .virtualAgent: event = .virtualAgentMessage
        case .system: event = .systemMessage
        default: return
        }
        guard try await store.isStartedByServer(chatID: message.chatId) else { return }
        webhooks.enqueue(event, chatID: message.chatId, data: try JSONValue(encoding: AppsChatRenderer.message(message)))
    }
}
