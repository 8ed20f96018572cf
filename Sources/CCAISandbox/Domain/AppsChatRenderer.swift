import CCAIWire
import Foundation

/// How the sandbox's chats, end users and messages read as the Apps API publishes them
/// (docs/platform-fidelity.md): the routes answer with them, and the webhooks carry them.
struct AppsChatRenderer: Sendable {
    let configuration: SandboxConfiguration
    let store: SandboxStore

    /// The published chat object of `chat` (``AppsChatStatusMapping`` for its status).
    func chat(_ chat: ChatResponse, endUserID: Int) async throws -> AppsChat {
        let facts = try await store.appsChatFacts(chatID: chat.id)
        guard let user = try await store.endUser(id: endUserID) else { throw HTTPError.notFound("there is no chat \(chat.id)") }
        let (status, subStatus) = AppsChatStatusMapping.status(of: chat, facts)
        let current = chat.isInProgress
        let agents = Self.merged(facts.agentNames, current ? chat.agent?.name : nil).map { name in
            AppsChat.Participant(id: agentID(name), name: name, firstName: name.split(separator: " ").first.map(String.init),
                                 status: current && name == chat.agent?.name ? "connected" : "disconnected")
        }
        let virtualAgents = Self.merged(facts.virtualAgentNames, current ? chat.virtualAgent?.name : nil).map { name in
            AppsChat.Participant(id: nil, name: name, status: current && name == chat.virtualAgent?.name ? "connected" : "disconnected")
        }
        return AppsChat(
            id: chat.id, status: status.rawValue, statusText: subStatus.rawValue,
            features: chat.isSupportingScreenShare ? ["screen_share"] : [], createdAt: Self.timestamp(chat.createdAt),
            endsAt: chat.endedAt.map(Self.timestamp), timeoutAt: timeout(of: chat, facts),
            agent: agents.first { $0.status == "connected" }, virtualAgent: virtualAgents.first { $0.status == "connected" },
            allAgents: agents, allVirtualAgents: virtualAgents, lang: chat.lang, menus: menus(to: chat.menuId, language: chat.lang),
            endUser: try Self.endUser(user))
    }

    /// The menus from the root to `menuID`, named in `language`.
    private func menus(to menuID: Int, language: String) -> [AppsChat.Menu] {
        configuration.menuPath(to: menuID).map { AppsChat.Menu(id: $0.id, name: configuration.menuName($0, language: language)) }
    }

    /// When an idle chat in progress ends: `chat_timeout_seconds` after the end user's
    /// last message (or the chat's start).
    private func timeout(of chat: ChatResponse, _ facts: SandboxStore.AppsChatFacts) -> String? {
        guard chat.isInProgress, let seconds = configuration.chatTimeoutSeconds else { return nil }
        return Self.timestamp((facts.lastEndUserMessageAt ?? chat.createdAt) + seconds)
    }

    /// An agent's id: their place in the configuration's `agents`, from 1 (the sandbox's
    /// agents have names only).
    private func agentID(_ name: String) -> Int? {
        configuration.agents?.firstIndex { $0.name == name }.map { $0 + 1 }
    }

    private static func merged(_ names: [String], _ current: String?) -> [String] {
        guard let current, !names.contains(current) else { return names }
        return names + [current]
    }

    /// Unix seconds as ISO 8601 with the zone (`2026-12-05T09:30:00Z`).
    static func timestamp(_ seconds: Double) -> String {
        Date(timeIntervalSince1970: seconds).formatted(.iso8601)
    }

    /// An end user as the Apps API names one.
    static func endUser(_ user: EndUser) throws -> AppsEndUser {
        guard let id = user.id, let identifier = user.identifier else { throw HTTPError.internalError("an end user without an id") }
        return AppsEndUser(id: id, identifier: identifier)
    }

    /// A message as the Apps API shows it, with who wrote it.
    static func message(_ message: ChatMessage) -> AppsMessage {
        AppsMessage(id: message.id, chatId: message.chatId, type: message.type.rawValue, content: message.text ?? "",
                    createdAt: timestamp(message.createdAt),
                    sender: AppsMessage.Sender(type: message.sender.type.rawValue, name: message.sender.name))
    }
}
