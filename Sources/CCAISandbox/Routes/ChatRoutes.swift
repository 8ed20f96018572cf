import CCAIWire
import Foundation

/// The chat lifecycle: `POST /chats` (start), `GET /chats/current`, `GET /chats/{id}`,
/// `POST /chats/{id}/enqueue`, `POST /chats/{id}/end`. A chat starts queued on a queue with
/// an open chat channel, or `pending` with its pre-session smart actions requested when the
/// queue requires them (it joins the queue on `enqueue`); an end user has at most one
/// chat in progress. Every change of a chat is published as a `chat_received` with the
/// whole chat.
struct ChatRoutes: Sendable {
    let sandbox: Sandbox
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
        ], sessions: sandbox)
    }

    private func current(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        guard let chat = try await sandbox.store.currentChat(endUserID: try session.endUserID()) else {
            throw HTTPError.notFound("no chat in progress")
        }
        return try .json(chat)
    }

    private func previous(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let pageText = request.query["page"] ?? "1"
        guard let page = Int(pageText), page >= 1, page <= ChatRoutes.maximumPage else {
            throw HTTPError.badRequest("page must be a whole number from 1 to \(ChatRoutes.maximumPage), got '\(pageText)'")
        }
        let (chats, pages) = try await sandbox.store.previousChats(endUserID: try session.endUserID(), page: page, perPage: 10)
        var messages: [ChatMessage] = []
        for chat in chats { messages += try await sandbox.store.messages(chatID: chat.id) }
        return try .json(PreviousChatsResponse(chats: chats, messages: messages, currentPage: page, totalPages: pages))
    }

    private func chat(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        try .json(try await sandbox.ownChat(request, session))
    }

    private func messages(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        return try .json(try await sandbox.store.messages(chatID: chat.id))
    }

    private func typing(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        struct Typing: Decodable { var typing: Bool }
        let chat = try await sandbox.ownChat(request, session)
        try chat.requireInProgress()
        try await sandbox.store.setTyping(chatID: chat.id, try request.decode(Typing.self).typing)
        return .noContent
    }

    private func sendPreview(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        try chat.requireInProgress()
        let body = try request.decode(MessagePreviewRequest.self)
        let text = chat.redactionEnabled ? Redactor.redact(body.text) : body.text
        let kept = try await sandbox.store.setPreview(chatID: chat.id, text: text, timestamp: body.timestamp)
        return try .json(try await preview(chat.id, accepted: kept))
    }

    private func preview(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        try .json(try await preview(try await sandbox.ownChat(request, session).id, accepted: nil))
    }

    private func sendChatEvent(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        let event = try request.decode(ChatEvent.self)
        guard !event.name.isEmpty else { throw HTTPError.badRequest("the field 'name' must not be empty") }
        try chat.requireInProgress()
        let stored = try await sandbox.store.addChatEvent(chatID: chat.id, name: event.name, payload: event.payload ?? [:],
                                                         now: sandbox.clock.now())
        return try .json(stored, status: 201)
    }

    private func escalate(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        let option = request.body.isEmpty ? nil : try escalationOption(request, chat)
        return try .json(try await sandbox.agentDesk.escalate(chatID: chat.id, endUserID: try session.endUserID(),
                                                              option: option, sandbox: sandbox))
    }

    private func updateEscalation(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        let option = try escalationOption(request, chat)
        return try .json(try await sandbox.agentDesk.updateEscalation(chatID: chat.id, endUserID: try session.endUserID(),
                                                                      option: option, sandbox: sandbox))
    }

    private func enqueue(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        try chat.requireInProgress()
        guard let queued = try await sandbox.lifecycle.enqueue(chat.id, endUserID: try session.endUserID()) else {
            return try .json(chat)
        }
        await sandbox.agentDesk.chatQueued(queued, endUserID: try session.endUserID(), customData: nil, sandbox: sandbox)
        return try .json(queued)
    }

    private func end(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        guard let ended = try await sandbox.lifecycle.end(chat.id, endUserID: try session.endUserID(), by: .endUser) else {
            throw HTTPError.conflict("chat \(chat.id) has already ended")
        }
        await sandbox.agentDesk.chatEnded(ended.id, sandbox: sandbox)
        return try .json(ended)
    }

    /// The escalation option a request names, as the chat's virtual agent offers it.
    private func escalationOption(_ request: HTTPRequest, _ chat: ChatResponse) throws
        -> VirtualAgentConfiguration.EscalationOption
    {
        let picked = try request.decode(ChatEscalationOption.self)
        guard let offered = sandbox.virtualAgent(forMenu: chat.menuId)?.configuration.escalationOptions,
            var option = offered.first(where: { $0.id == picked.escalationId })
        else {
            let ids = sandbox.virtualAgent(forMenu: chat.menuId)?.configuration.escalationOptions?.map { String($0.id) } ?? []
            throw HTTPError.badRequest("queue \(chat.menuId) offers no escalation option \(picked.escalationId)"
                                       + (ids.isEmpty ? "" : " (it offers \(ids.joined(separator: ", ")))"))
        }
        if let channel = picked.deflectionChannel {
            guard option.deflectionChannel == nil || option.deflectionChannel == channel else {
                throw HTTPError.badRequest("escalation option \(option.id) deflects to \(option.deflectionChannel ?? "chat"), not \(channel)")
            }
            option.deflectionChannel = channel
        }
        return option
    }

    /// What agents see of the end user's typing: the latest preview (redacted when the
    /// queue redacts) and the typing flag.
    private func preview(_ chatID: Int, accepted: Bool?) async throws -> MessagePreview {
        let stored = try await sandbox.store.preview(chatID: chatID)
        return MessagePreview(text: stored?.text, timestamp: stored?.timestamp, accepted: accepted,
                              typing: try await sandbox.store.isTyping(chatID: chatID))
    }

    private func start(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let body = try request.decode(ChatRequest.self)
        guard let menu = sandbox.configuration.allMenus.first(where: { $0.id == body.menuId }) else {
            throw HTTPError.notFound("there is no queue menu \(body.menuId)")
        }
        if let existing = try await sandbox.store.currentChat(endUserID: try session.endUserID()) {
            throw HTTPError.conflict("a chat is already in progress (chat \(existing.id)); resume or end it first")
        }
        guard let chatChannel = menu.channels?.chat else {
            throw HTTPError.badRequest("queue \(menu.id) has no chat channel")
        }
        try await sandbox.checkQuota(.chats, endUserID: try session.endUserID())
        let engine = try await sandbox.queueEngine()
        if let deflection = engine.deflection(menu) {
            throw HTTPError.conflict("queue \(menu.id) is not taking chats now (\(deflection.reason))")
        }
        let signed = try signedCustomData(body.customData?.signed, session: session)
        var customData = try body.customData?.unsigned.map { try JSONValue(encoding: CustomData(unsigned: $0)) }
        if let unsigned = customData?["unsigned"] {
            let problems = ReservedCRMKey.problems(in: unsigned, signed: false)
            guard problems.isEmpty else { throw HTTPError.badRequest(problems.joined(separator: "; ")) }
        }
        if body.customData?.signed != nil { customData = ["signed": signed] }
        let preSession = menu.preSessionChatActions
        let owner = try session.endUserID()
        switch try await sandbox.lifecycle.create(
            endUserID: owner, menuID: menu.id, lang: engine.language(body.lang), status: preSession.isEmpty ? .queued : .pending,
            redaction: chatChannel.redaction ?? false, screenShareable: body.isScreenShareable ?? false, customData: customData ?? [:],
            postSession: sandbox.configuration.postSessionSettings(forMenu: menu.id), now: sandbox.clock.now())
        {
        case .inProgress(let existing):
            throw HTTPError.conflict("a chat is already in progress (chat \(existing.id)); resume or end it first")
        case .created(let chat):
            var sessionData = customData?.objectValue ?? [:]
            if signed != [:] { sessionData["signed"] = signed }
            if preSession.isEmpty {
                await sandbox.agentDesk.chatQueued(chat, endUserID: owner, customData: .object(sessionData), sandbox: sandbox)
            } else {
                await sandbox.agentDesk.hold(chat.id, customData: .object(sessionData))
                for type in preSession {
                    _ = try await sandbox.requestSmartAction(chatID: chat.id, endUserID: owner, type: type, preSession: true,
                                                             requestedBy: nil)
                }
            }
            return try .json(chat, status: 201)
        }
    }

    /// The session's signed custom data: the auth JWT's, with the chat's own signed JWT
    /// (verified with the company secret) over it key by key. Reserved CRM keys must be
    /// booleans.
    private func signedCustomData(_ jwt: String?, session: Session) throws -> JSONValue {
        var signed = session.signedCustomData.objectValue ?? [:]
        guard let jwt else { return .object(signed) }
        let company = sandbox.configuration.company
        let claims: [String: JSONValue]
        do {
            claims = try JWTVerifier(secret: company.secret, algorithms: sandbox.configuration.algorithms,
                                     maximumLifetime: company.jwtMaxLifetimeSeconds ?? 86_400).verify(jwt, now: sandbox.clock.now())
        } catch let error as JWTError {
            throw HTTPError.badRequest("custom_data.signed: the JWT is refused: \(error)")
        }
        let data = claims["custom_data"] ?? [:]
        let problems = ReservedCRMKey.problems(in: data, signed: true)
        guard problems.isEmpty else { throw HTTPError.badRequest(problems.joined(separator: "; ")) }
        for (key, value) in data.objectValue ?? [:] { signed[key] = value }
        return .object(signed)
    }

    /// `POST /chats/{id}/messages`: stores the end user's message once (by its client id)
    /// and publishes it; the agent answers.
    private func sendMessage(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        let body = try request.decode(SendMessageRequest.self)
        guard !body.text.isEmpty else { throw HTTPError.badRequest("the field 'text' must not be empty") }
        if let problem = AttachmentLimits.textProblem(body.text) { throw HTTPError(code: .tooLarge, message: "text: \(problem)") }
        guard !body.clientMessageId.isEmpty else { throw HTTPError.badRequest("the field 'client_message_id' must not be empty") }
        guard !body.clientMessageId.utf8.contains(0) else {
            throw HTTPError.badRequest("the field 'client_message_id' must not contain NUL")
        }
        guard try await sandbox.lifecycle.acceptsMessages(chat) else { throw HTTPError.chatEnded(chat.id) }
        let owner = try session.endUserID()
        let (message, isNew) = try await sandbox.store.addMessage(
            chatID: chat.id, sender: ChatMessageSender(type: "end_user", name: session.endUser.name), type: "text",
            text: body.text, event: nil, clientMessageID: body.clientMessageId, now: sandbox.clock.now())
        if isNew {
            try await sandbox.publisher.messages([message], endUserID: owner)
            await sandbox.agentDesk.messageReceived(message, in: chat, endUserID: owner, sandbox: sandbox)
        }
        return try .json(message, status: isNew ? 201 : 200)
    }
}
