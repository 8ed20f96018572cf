import CCAIWire
import Foundation
import Timekeeping

/// Screen share sessions as the platform runs them (seed 002's `screenShareService`): the
/// app creates a session (a code), the agent joins with it (`authorizing`), the end user
/// accepts (`active`) or declines, either side ends it; remote control needs the end
/// user's consent too. Every change of state is published as `screen_share_state`.
///
/// ```swift
/// let created = try await screenShares.create(request, endUserID: owner)   // pending, with a code
/// let share = try await screenShares.request(in: chat.id, endUserID: owner, by: sender, remoteControl: false, timeout: 60)
/// ```
struct ScreenShares: Sendable {
    let store: SandboxStore
    let publisher: EventPublisher
    let conversation: Conversation
    let quotas: Quotas
    let clock: any TimeSource
    /// Where a request the chat's app cannot answer is reported.
    let log: @Sendable (String) -> Void
    /// Agents waiting for the end user's side of a session: keyed by the session's id,
    /// by 0 for the code of a session not created yet, and by minus the id for the answer
    /// to remote control.
    let outcomes: OutcomeBoard<ScreenShareResponse>

    init(store: SandboxStore, publisher: EventPublisher, conversation: Conversation, quotas: Quotas, clock: any TimeSource,
         log: @escaping @Sendable (String) -> Void)
    {
        (self.store, self.publisher, self.conversation, self.quotas, self.clock, self.log) =
            (store, publisher, conversation, quotas, clock, log)
        outcomes = OutcomeBoard(clock: clock)
    }

    /// The app creates a session for one of its chats in progress, started screen-shareable.
    func create(_ request: ScreenShareRequest, endUserID: Int) async throws -> ScreenShareResponse {
        guard request.communicationType == .chat else {
            throw HTTPError.badRequest("communication_type: only chats share screens in the sandbox so far")
        }
        guard let chat = try await store.chat(id: request.communicationId, endUserID: endUserID) else {
            throw HTTPError.notFound("there is no chat \(request.communicationId)")
        }
        try await quotas.check(.screenShares, endUserID: endUserID)
        try chat.requireInProgress()
        guard chat.isSupportingScreenShare else {
            throw HTTPError.conflict("chat \(chat.id) was not started screen-shareable (is_screen_shareable)")
        }
        guard let created = try await store.createScreenShare(chatID: chat.id, initiatedFrom: request.initiatedFrom, now: clock.now())
        else { throw HTTPError.conflict("chat \(chat.id) has a screen share under way; end it first") }
        try await changed(created, endUserID: endUserID)
        return created
    }

    /// The session `id`, when it belongs to one of `endUserID`'s chats; else a 404.
    func session(_ id: Int, endUserID: Int) async throws -> ScreenShareResponse {
        guard let share = try await store.screenShare(id: id), try await store.chatOwner(id: share.communicationId) == endUserID
        else { throw HTTPError.notFound("there is no screen share \(id)") }
        return share
    }

    /// The end user starts (`accepted`) or declines a session an agent joined.
    func activate(_ share: ScreenShareResponse, accepted: Bool, endUserID: Int) async throws -> ScreenShareResponse {
        guard let moved = try await store.moveScreenShare(id: share.id, from: [.authorizing], to: accepted ? .active : .ended)
        else { throw stateError(share, "activated (no agent has joined it yet, or it is over)") }
        try await changed(moved, endUserID: endUserID)
        return moved
    }

    /// The end user's answer to remote control of an active session.
    func setRemoteControl(_ share: ScreenShareResponse, enabled: Bool) async throws -> ScreenShareResponse {
        guard let moved = try await store.moveScreenShare(id: share.id, from: [.active], to: .active, remoteControl: enabled)
        else { throw stateError(share, "given remote control (it is not active)") }
        await outcomes.resolve(.init(chatID: moved.communicationId, id: -moved.id), with: moved)
        return moved
    }

    /// Shares the whole device, or the app only, until the session is over.
    func setFullDevice(_ share: ScreenShareResponse, _ fullDevice: Bool) async throws -> ScreenShareResponse {
        guard share.state != .ended,
            let moved = try await store.moveScreenShare(id: share.id, from: [share.state], to: share.state, fullDevice: fullDevice)
        else { throw stateError(share, "changed (it is over)") }
        return moved
    }

    /// The end user ends a session.
    func end(_ share: ScreenShareResponse, endUserID: Int) async throws -> ScreenShareResponse {
        guard let ended = try await store.moveScreenShare(id: share.id, from: [.pending, .authorizing, .active], to: .ended)
        else { throw stateError(share, "ended (it is over already)") }
        try await changed(ended, endUserID: endUserID)
        await outcomes.resolve(.init(chatID: ended.communicationId, id: -ended.id), with: ended)
        return ended
    }

    /// A screen share event the app sends in a chat in progress, posted as the end user's
    /// `screen_share` message.
    func postEvent(_ event: ScreenShareEventMessage, in chat: ChatResponse, by caller: Caller) async throws -> ChatMessage {
        let size = try event.response.map { try JSONEncoder().encode($0).count } ?? 0
        if let problem = FieldLimits.problem("response", size: size, limit: FieldLimits.screenShareBytes) {
            throw HTTPError.badRequest(problem)
        }
        try chat.requireInProgress()
        return try await conversation.postForAgents(
            .init(sender: ChatMessageSender(type: .endUser, name: caller.endUser.name), type: .screenShare,
                  text: event.response?.code, event: event.event.rawValue, screenShare: event.response),
            in: chat, endUserID: try caller.endUserID()).message
    }

    /// After ``postEvent(_:in:by:)``: with `screen_share_code_generated` for the chat's
    /// pending session, the agent who asked for it gets it, or the chat's agent joins a
    /// session the end user started.
    func codeSent(_ event: ScreenShareEventMessage, in chat: ChatResponse, endUserID: Int) async throws {
        guard event.event == .screenShareCodeGenerated, let code = event.response?.code,
            let pending = try await store.latestScreenShare(chatID: chat.id), pending.code == code, pending.state == .pending
        else { return }
        if pending.initiatedFrom == .agent {
            await outcomes.resolve(.init(chatID: chat.id, id: 0), with: pending)
        } else if let agent = chat.agent?.name ?? chat.virtualAgent?.name {
            _ = try await join(pending, agent: agent, endUserID: endUserID)
        }
    }

    /// `agent.request_screen_share{ remote_control, timeout }`: asks in the chat, joins the
    /// session whose code the app sends back in the chat, waits for the end user to start
    /// it and, when asked, to allow remote control. The session as it stands at the end;
    /// nil when no session came, at once when the app started the chat unable to share.
    func request(in chatID: Int, endUserID: Int, by sender: ChatMessageSender, remoteControl: Bool, timeout: TimeInterval)
        async throws -> ScreenShareResponse?
    {
        guard let chat = try await store.chat(id: chatID, endUserID: endUserID), chat.isInProgress else {
            throw HTTPError.chatEnded(chatID)
        }
        let agent = sender.name ?? sender.type.rawValue
        guard chat.isSupportingScreenShare else {
            log("sandbox: agent \(agent) asked chat \(chat.id) for a screen share, but its app cannot share (is_screen_shareable)")
            return nil
        }
        if let current = try await store.latestScreenShare(chatID: chat.id), current.state != .ended {
            throw HTTPError.conflict("chat \(chat.id) has a screen share under way (session \(current.id), \(current.state.rawValue))")
        }
        let deadline = clock.now().addingTimeInterval(timeout)
        let (message, _) = try await conversation.post(
            .init(sender: sender, type: .screenShare, event: ChatMessageEvent.screenShareRequestedFromAgent.rawValue),
            in: chat.id, endUserID: endUserID)
        let store = self.store
        guard let created = await outcomes.wait(for: .init(chatID: chat.id, id: 0), timeout: deadline.timeIntervalSince(clock.now()), answered: {
            guard let latest = try? await store.latestScreenShare(chatID: chat.id), latest.state == .pending,
                let messages = try? await store.messages(chatID: chat.id),
                messages.contains(where: { $0.sequence > message.sequence && $0.screenShare?.id == latest.id
                    && $0.event == ChatMessageEvent.screenShareCodeGenerated.rawValue })
            else { return nil }
            return latest
        }) else { return nil }
        guard let joined = try await join(created, agent: agent, endUserID: endUserID) else {
            return try await store.screenShare(id: created.id)
        }
        guard var session = await outcomes.wait(for: .init(chatID: chat.id, id: joined.id),
                                                timeout: deadline.timeIntervalSince(clock.now()), answered: {
            guard let current = try? await store.screenShare(id: joined.id), current.state == .active || current.state == .ended
            else { return nil }
            return current
        }) else { return try await store.screenShare(id: joined.id) }
        if session.state == .active, remoteControl {
            try await publishRequest(.remoteControl, for: session, endUserID: endUserID)
            let answered = await outcomes.wait(for: .init(chatID: chat.id, id: -session.id),
                                               timeout: deadline.timeIntervalSince(clock.now()), answered: { nil })
            let current = try await store.screenShare(id: session.id)
            session = answered ?? current ?? session
        }
        return session
    }

    /// The chat ended: its session ends too, and agents waiting on it get nil.
    func chatEnded(_ chatID: Int) async {
        if let session = try? await store.latestScreenShare(chatID: chatID), session.state != .ended,
            let ended = try? await store.moveScreenShare(id: session.id, from: [.pending, .authorizing, .active], to: .ended),
            let owner = try? await store.chatOwner(id: chatID)
        {
            try? await changed(ended, endUserID: owner)
        }
        await outcomes.chatEnded(chatID)
    }

    /// The chat's agent joins a session with its code: `authorizing`; an end user who
    /// started the share is asked to start it (`screen_share_request` `session`).
    private func join(_ session: ScreenShareResponse, agent: String, endUserID: Int) async throws -> ScreenShareResponse? {
        guard let joined = try await store.moveScreenShare(id: session.id, from: [.pending], to: .authorizing, agent: agent) else {
            return nil
        }
        try await changed(joined, endUserID: endUserID)
        if joined.initiatedFrom == .endUser { try await publishRequest(.session, for: joined, endUserID: endUserID) }
        return joined
    }

    /// Publishes `screen_share_state` and wakes the agents waiting on the session.
    private func changed(_ session: ScreenShareResponse, endUserID: Int) async throws {
        try await publisher.publish(endUserID: endUserID, event: .screenShareState,
                                    encoding: ScreenShareStatePayload(sessionId: session.id, chatId: session.communicationId,
                                                                      state: session.state))
        await outcomes.resolve(.init(chatID: session.communicationId, id: session.id), with: session)
    }

    /// `screen_share_request`: the end user is asked to start the session, or to allow
    /// remote control.
    private func publishRequest(_ type: ScreenShareRequestType, for session: ScreenShareResponse, endUserID: Int) async throws {
        try await publisher.publish(endUserID: endUserID, event: .screenShareRequest,
                                    encoding: ScreenShareRequestPayload(sessionId: session.id, type: type))
    }

    private func stateError(_ session: ScreenShareResponse, _ what: String) -> HTTPError {
        HTTPError.conflict("screen share \(session.id) is \(session.state.rawValue) and cannot be \(what)")
    }
}
