import CCAIWire
import Foundation

/// The chat lifecycle: `POST /chats` (start), `GET /chats/current`, `GET /chats/{id}`,
/// `POST /chats/{id}/enqueue`, `POST /chats/{id}/end`, the end user's messages, typing,
/// previews, chat events and escalations. The rules are ``ChatStarts``', ``Chats``' and
/// ``ChatLifecycle``'s, which tell the agent desk what changed; an escalation is the
/// desk's own act.
struct ChatRoutes: Sendable {
    let callers: CallerResolver
    let starts: ChatStarts
    let chats: Chats
    let conversation: Conversation
    let lifecycle: ChatLifecycle
    let smartActions: SmartActions
    let desk: AgentDesk
    /// The last page of previous chats asked for: pages past it would overflow the offset.
    static let maximumPage = 1_000_000

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.startChat, start),
            (Endpoints.currentChat, current),
            (Endpoints.previousChats, previous),
            (Endpoints.chat, chat),
            (Endpoints.sendMessage, sendMessage),
            (Endpoints.messages, messages),
            (Endpoints.typing, typing),
            (Endpoints.sendPreview, sendPreview),
            (Endpoints.preview, preview),
            (Endpoints.sendChatEvent, sendChatEvent),
            (Endpoints.escalate, escalate),
            (Endpoints.updateEscalation, updateEscalation),
            (Endpoints.enqueueChat, enqueue),
            (Endpoints.endChat, end),
        ], callers: callers)
    }

    /// Starts the chat and hands it to its agents, or, when its queue asks for smart
    /// actions first, requests the actions (the chat keeps its session data for the
    /// agents that take it once it is queued).
    private func start(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let started = try await starts.start(try request.decode(ChatRequest.self), caller: caller)
        let (chat, owner) = (started.chat, try caller.endUserID())
        for type in started.preSession {
            _ = try await smartActions.request(in: CommunicationRouter(id: chat.id, type: .chat), endUserID: owner, type: type, preSession: true, requestedBy: nil)
        }
        return try .json(chat, status: 201)
    }

    private func current(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await chats.current(endUserID: try caller.endUserID()))
    }

    private func previous(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let pageText = request.query["page"] ?? "1"
        guard let page = Int(pageText), page >= 1, page <= ChatRoutes.maximumPage else {
            throw HTTPError.badRequest("page must be a whole number from 1 to \(ChatRoutes.maximumPage), got '\(pageText)'")
        }
        return try .json(try await chats.previous(endUserID: try caller.endUserID(), page: page, perPage: 10))
    }

    private func chat(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await callers.ownChat(request, caller))
    }

    /// Stores the end user's message once (by its client id) and publishes it; the agent
    /// answers.
    private func sendMessage(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let chat = try await callers.ownChat(request, caller)
        let (message, isNew) = try await chats.receive(try request.decode(SendMessageRequest.self), in: chat, from: caller)
        return try .json(message, status: isNew ? 201 : 200)
    }

    private func messages(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let page = try request.page(.messages)
        return try .json(try await conversation.messages(of: try await callers.ownChat(request, caller).id, after: page.after,
                                                         limit: page.limit))
    }

    private func typing(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        struct Typing: Decodable { var typing: Bool }
        let chat = try await callers.ownChat(request, caller)
        try await chats.setTyping(try request.decode(Typing.self).typing, in: chat)
        return .noContent
    }

    private func sendPreview(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let chat = try await callers.ownChat(request, caller)
        return try .json(try await chats.setPreview(try request.decode(MessagePreviewRequest.self), in: chat))
    }

    private func preview(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await chats.preview(of: try await callers.ownChat(request, caller).id))
    }

    private func sendChatEvent(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let chat = try await callers.ownChat(request, caller)
        return try .json(try await chats.addEvent(try request.decode(ChatEvent.self), in: chat), status: 201)
    }

    private func escalate(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let chat = try await callers.ownChat(request, caller)
        let option = request.body.isEmpty ? nil : try chats.escalationOption(try request.decode(ChatEscalationOption.self), for: chat)
        return try .json(try await desk.escalate(chatID: chat.id, endUserID: try caller.endUserID(), option: option))
    }

    private func updateEscalation(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let chat = try await callers.ownChat(request, caller)
        let option = try chats.escalationOption(try request.decode(ChatEscalationOption.self), for: chat)
        return try .json(try await desk.updateEscalation(chatID: chat.id, endUserID: try caller.endUserID(), option: option))
    }

    private func enqueue(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let chat = try await callers.ownChat(request, caller)
        try chat.requireInProgress()
        guard let queued = try await lifecycle.enqueue(chat.id, endUserID: try caller.endUserID()) else { return try .json(chat) }
        return try .json(queued)
    }

    private func end(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let chat = try await callers.ownChat(request, caller)
        guard let ended = try await lifecycle.end(chat.id, endUserID: try caller.endUserID(), by: .endUser) else {
            throw HTTPError.conflict("chat \(chat.id) has already ended")
        }
        return try .json(ended)
    }
}
