import CCAIWire
import Foundation
import Timekeeping

/// How an end user's chat starts: on a queue with a chat channel open now, one chat in
/// progress per end user, within `limits.chats_per_hour`, with the session's custom data
/// checked (reserved CRM keys; a signed part verified with the company secret). The chat
/// starts `queued`, or `pending` when the queue asks for smart actions before the session
/// (it joins the queue on `enqueue`).
///
/// ```swift
/// let started = try await chatStarts.start(body, session: session)
/// if started.preSession.isEmpty { /* hand started.chat to the agents */ }
/// ```
struct ChatStarts: Sendable {
    /// A chat just created, with what its agents get and what it waits for.
    struct Started: Sendable {
        var chat: ChatResponse
        /// What the session carries for the agents (kept with the chat).
        var session: ChatSessionData
        /// The smart actions to request before the chat joins its queue.
        var preSession: [SmartActionType]
    }

    let configuration: SandboxConfiguration
    let store: SandboxStore
    let lifecycle: ChatLifecycle
    let queues: Queues
    let quotas: Quotas
    let clock: any TimeSource

    /// Creates the chat `request` asks for, or says why it cannot start. A chat the
    /// company's server starts (the Apps API) is queued at once: no app is there to answer
    /// pre-session smart actions.
    func start(_ request: ChatRequest, caller: Caller, startedByServer: Bool = false) async throws -> Started {
        let menu = try queues.menu(request.menuId)
        let owner = try caller.endUserID()
        if let existing = try await store.currentChat(endUserID: owner) { throw inProgress(existing) }
        guard let chatChannel = menu.channels?.chat else { throw HTTPError.badRequest("queue \(menu.id) has no chat channel") }
        try await quotas.check(.chats, endUserID: owner)
        let engine = try await queues.engine()
        if let deflection = engine.deflection(menu) {
            throw HTTPError.conflict("queue \(menu.id) is not taking chats now (\(deflection.reason))")
        }
        let customData = try CustomDataIntake(configuration: configuration, clock: clock).sessionData(request.customData, caller: caller)
        let displayOrder = request.displayOrderInAdapter ?? []
        if let problem = ChatSessionData.problem(displayOrder: displayOrder) { throw HTTPError.badRequest(problem) }
        let session = ChatSessionData(customData: customData, isVerifiable: request.isVerifiable ?? false,
                                      displayOrderInAdapter: displayOrder)
        let preSession = startedByServer ? [] : menu.preSessionChatActions
        switch try await lifecycle.create(
            endUserID: owner, menuID: menu.id, lang: engine.language(request.lang), status: preSession.isEmpty ? .queued : .pending,
            redaction: chatChannel.redaction ?? false, screenShareable: request.isScreenShareable ?? false,
            session: session, postSession: configuration.postSessionSettings(forMenu: menu.id), startedByServer: startedByServer,
            now: clock.now())
        {
        case .inProgress(let existing):
            throw inProgress(existing)
        case .created(let chat):
            return Started(chat: chat, session: session, preSession: preSession)
        }
    }

    private func inProgress(_ existing: ChatResponse) -> HTTPError {
        HTTPError.conflict("a chat is already in progress (chat \(existing.id)); resume or end it first")
    }
}
