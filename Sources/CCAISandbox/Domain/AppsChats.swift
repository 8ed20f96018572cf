import CCAIWire
import Foundation
import Timekeeping

/// The Apps API's chat platform flow (docs/platform-fidelity.md): the company's server
/// upserts end users, starts a chat for one, writes as them, escalates, deflects and
/// finishes, and reads any chat of the company as the published chat object. Each act is
/// the SDK's own path acting for the end user (``ChatStarts``, ``Chats``,
/// ``ChatLifecycle``, ``AgentDesk``), so agents, virtual agents, plugins, post-session
/// flows and transcripts see the same chat.
struct AppsChats: Sendable {
    let configuration: SandboxConfiguration
    let store: SandboxStore
    let starts: ChatStarts
    let chats: Chats
    let lifecycle: ChatLifecycle
    let desk: AgentDesk
    let queues: Queues
    let renderer: AppsChatRenderer
    let clock: any TimeSource

    /// Creates the end user with `request.identifier`, or updates the fields it gives.
    func upsert(_ request: AppsEndUserRequest) async throws -> AppsEndUser {
        let profile = EndUsers.Update(name: request.name, email: request.email, phone: request.phone, identifier: request.identifier)
        guard !request.identifier.isEmpty else { throw HTTPError.badRequest("the field 'identifier' must not be empty") }
        if let problem = profile.problem { throw HTTPError.badRequest(problem) }
        let user = try await store.endUser(identifier: request.identifier, name: request.name, email: request.email,
                                           phone: request.phone, now: clock.now())
        return try published(user)
    }

    /// The end user with the platform's `id` and/or the company's `identifier` (both must
    /// match when both are given), or a 404: also when neither names one.
    func endUser(id: Int?, identifier: String?) async throws -> AppsEndUser {
        let found: EndUser?
        switch (id, identifier) {
        case (let id?, _):
            found = try await store.endUser(id: id).flatMap { user in (identifier ?? user.identifier) == user.identifier ? user : nil }
        case (nil, let identifier?): found = try await store.endUser(identifier: identifier)
        case (nil, nil): throw HTTPError.notFound("no end user is named: give the query parameter 'id' or 'identifier'")
        }
        guard let found else { throw HTTPError.notFound("there is no such end user") }
        return try published(found)
    }

    /// Starts a chat for the request's end user on its menu, as that end user would; its
    /// `context` is the session's signed custom data.
    func start(_ request: AppsChatRequest) async throws -> AppsChat {
        guard let user = try await store.endUser(id: request.endUserId) else {
            throw HTTPError.notFound("there is no end user \(request.endUserId) (create one with POST /apps/api/v1/end_users)")
        }
        if let context = request.context {
            guard context.objectValue != nil else { throw HTTPError.badRequest("the field 'context' must be an object") }
            let size = try context.jsonText().utf8.count
            if let problem = FieldLimits.problem("context", size: size, limit: FieldLimits.customDataBytes) {
                throw HTTPError.badRequest(problem)
            }
            let problems = ReservedCRMKey.problems(in: context, signed: true)
            guard problems.isEmpty else { throw HTTPError.badRequest("context: " + problems.joined(separator: "; ")) }
        }
        let caller = Caller(token: "", endUser: user, signedCustomData: request.context ?? [:])
        let started = try await starts.start(ChatRequest(menuId: request.menuId, lang: request.lang), caller: caller,
                                             startedByServer: true)
        return try await published(started.chat, endUserID: request.endUserId)
    }

    /// The chat `id` as published, whoever started it.
    func chat(_ id: Int) async throws -> AppsChat {
        let (chat, owner) = try await anyChat(id)
        return try await published(chat, endUserID: owner)
    }

    /// The end user's text in a chat the server started.
    func send(_ request: AppsMessageRequest, to id: Int) async throws -> AppsMessage {
        guard (request.type ?? "text") == "text" else {
            throw HTTPError.badRequest("the field 'type' must be 'text' (photos and videos have their own routes)")
        }
        let (chat, owner) = try await serverChat(id)
        guard let user = try await store.endUser(id: owner) else { throw HTTPError.notFound("there is no chat \(id)") }
        let caller = Caller(token: "", endUser: user, signedCustomData: [:])
        let (message, _) = try await chats.receive(SendMessageRequest(text: request.content, clientMessageId: UUID().uuidString),
                                                   in: chat, from: caller)
        return AppsChatRenderer.message(message)
    }

    /// Changes a chat the server started, as published: `deflection_channel` commits a
    /// deflection to the escalation under way (its `escalation_id`, else the option the chat
    /// was escalated by), then `status = "finished"` ends the chat if it is still in
    /// progress. Neither changes nothing. (`finished_by_user_id` names a portal user, which
    /// the sandbox has none of: it is read and ignored.)
    func update(_ id: Int, _ update: AppsChatUpdate) async throws -> AppsChat {
        var (chat, owner) = try await serverChat(id)
        if let status = update.chat.status, status != "finished" {
            throw HTTPError.badRequest("chat.status may only be 'finished', got '\(TerminalText.escaped(status))'")
        }
        if let channel = update.chat.deflectionChannel {
            let escalated = try await store.appsChatFacts(chatID: id).escalationID
            guard let escalationID = update.chat.escalationId ?? escalated else {
                throw HTTPError.conflict("chat \(id) has no escalation option to deflect: give chat.escalation_id")
            }
            let option = try escalationOption(escalationID, channel: channel, for: chat)
            chat = try await desk.updateEscalation(chatID: chat.id, endUserID: owner, option: option)
        }
        if update.chat.status == "finished" {
            if let ended = try await lifecycle.end(chat.id, endUserID: owner, by: .endUser) {
                chat = ended
            } else if update.chat.deflectionChannel == nil {
                throw HTTPError.conflict("chat \(id) has already ended")
            }
        }
        return try await published(chat, endUserID: owner)
    }

    /// Escalates a chat the server started from its virtual agent: to a human in chat, or
    /// by the option picked (which may deflect it to another channel).
    func escalate(_ id: Int, _ request: AppsEscalationRequest) async throws -> AppsChat {
        let (chat, owner) = try await serverChat(id)
        let option = try request.escalationId.map { try escalationOption($0, channel: request.deflectionChannel, for: chat) }
        let escalated = try await desk.escalate(chatID: chat.id, endUserID: owner, option: option)
        return try await published(escalated, endUserID: owner)
    }

    /// Commits an option to the escalation under way of a chat the server started.
    func updateEscalation(_ id: Int, escalationID: Int, _ request: AppsEscalationRequest) async throws -> AppsChat {
        let (chat, owner) = try await serverChat(id)
        let option = try escalationOption(escalationID, channel: request.deflectionChannel, for: chat)
        let updated = try await desk.updateEscalation(chatID: chat.id, endUserID: owner, option: option)
        return try await published(updated, endUserID: owner)
    }

    /// The chat's virtual agent's escalation option `id`: a 404 when it offers none such (the
    /// Apps API names an option as a resource), a 409 when the option deflects elsewhere.
    private func escalationOption(_ id: Int, channel: String?, for chat: ChatResponse) throws
        -> VirtualAgentConfiguration.EscalationOption
    {
        let offered = queues.virtualAgent(forMenu: chat.menuId)?.configuration.escalationOptions ?? []
        guard offered.contains(where: { $0.id == id }) else {
            throw HTTPError.notFound("chat \(chat.id)'s virtual agent offers no escalation option \(id)")
        }
        do {
            return try chats.escalationOption(ChatEscalationOption(escalationId: id, deflectionChannel: channel), for: chat)
        } catch let refusal as HTTPError {
            throw HTTPError.conflict(refusal.message)
        }
    }

    func anyChat(_ id: Int) async throws -> (ChatResponse, Int) {
        guard let found = try await store.anyChat(id: id) else { throw HTTPError.notFound("there is no chat \(id)") }
        return found
    }

    /// A chat the company's server started: the others are their apps' to write in.
    func serverChat(_ id: Int) async throws -> (ChatResponse, Int) {
        let found = try await anyChat(id)
        guard try await store.isStartedByServer(chatID: id) else {
            throw HTTPError.conflict("chat \(id) was started by an app, not through the Apps API: only its end user's app writes in it")
        }
        return found
    }

    private func published(_ user: EndUser) throws -> AppsEndUser {
        try AppsChatRenderer.endUser(user)
    }

    private func published(_ chat: ChatResponse, endUserID: Int) async throws -> AppsChat {
        try await renderer.chat(chat, endUserID: endUserID)
    }
}
