import CCAIWire
import Foundation

/// Screen share sessions (seed 002's `screenShareService`): `POST /screen_shares`
/// (create: a code), `GET /screen_shares/{id}`, `POST .../activate` (`accepted`: the end
/// user starts or declines once an agent joined), `POST .../remote_control` (`enabled`),
/// `PUT .../options` (`full_device`), `POST .../end`; and `POST /chats/{id}/screen_share_events`,
/// the screen share events the app sends in the chat: with `screen_share_code_generated`
/// the agent joins (the one who asked, or the chat's agent for a share the end user started).
struct ScreenShareRoutes: Sendable {
    let sandbox: Sandbox

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.createScreenShare, createScreenShare),
            (Endpoints.screenShare, screenShare),
            (Endpoints.activateScreenShare, activateScreenShare),
            (Endpoints.screenShareRemoteControl, screenShareRemoteControl),
            (Endpoints.screenShareOptions, screenShareOptions),
            (Endpoints.endScreenShare, endScreenShare),
            (Endpoints.screenShareEvent, screenShareEvent),
        ], sessions: sandbox)
    }

    private func createScreenShare(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let body = try request.decode(ScreenShareRequest.self)
        guard body.communicationType == .chat else {
            throw HTTPError.badRequest("communication_type: only chats share screens in the sandbox so far")
        }
        guard let chat = try await sandbox.store.chat(id: body.communicationId, endUserID: try session.endUserID()) else {
            throw HTTPError.notFound("there is no chat \(body.communicationId)")
        }
        try await sandbox.checkQuota(.screenShares, endUserID: try session.endUserID())
        try chat.requireInProgress()
        guard chat.isSupportingScreenShare else {
            throw HTTPError.conflict("chat \(chat.id) was not started screen-shareable (is_screen_shareable)")
        }
        guard let created = try await sandbox.store.createScreenShare(chatID: chat.id, initiatedFrom: body.initiatedFrom,
                                                                      now: sandbox.clock.now())
        else { throw HTTPError.conflict("chat \(chat.id) has a screen share under way; end it first") }
        try await sandbox.screenShareChanged(created, endUserID: try session.endUserID())
        return try .json(created, status: 201)
    }

    private func screenShare(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        try .json(try await ownSession(request, session).session)
    }

    private func activateScreenShare(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        struct Consent: Decodable { var accepted: Bool }
        let (current, owner) = try await ownSession(request, session)
        let accepted = try request.decode(Consent.self).accepted
        guard let moved = try await sandbox.store.moveScreenShare(id: current.id, from: [.authorizing], to: accepted ? .active : .ended)
        else { throw stateError(current, "activated (no agent has joined it yet, or it is over)") }
        try await sandbox.screenShareChanged(moved, endUserID: owner)
        return try .json(moved)
    }

    private func screenShareRemoteControl(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        struct RemoteControl: Decodable { var enabled: Bool }
        let (current, _) = try await ownSession(request, session)
        let enabled = try request.decode(RemoteControl.self).enabled
        guard let moved = try await sandbox.store.moveScreenShare(id: current.id, from: [.active], to: .active, remoteControl: enabled)
        else { throw stateError(current, "given remote control (it is not active)") }
        await sandbox.screenShareOutcomes.resolve(.init(chatID: moved.communicationId, id: -moved.id), with: moved)
        return try .json(moved)
    }

    private func screenShareOptions(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        struct Options: Decodable { var fullDevice: Bool; enum CodingKeys: String, CodingKey { case fullDevice = "full_device" } }
        let (current, _) = try await ownSession(request, session)
        let fullDevice = try request.decode(Options.self).fullDevice
        guard current.state != .ended,
            let moved = try await sandbox.store.moveScreenShare(id: current.id, from: [current.state], to: current.state,
                                                               fullDevice: fullDevice)
        else { throw stateError(current, "changed (it is over)") }
        return try .json(moved)
    }

    private func endScreenShare(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let (current, owner) = try await ownSession(request, session)
        guard let ended = try await sandbox.store.moveScreenShare(id: current.id, from: [.pending, .authorizing, .active], to: .ended)
        else { throw stateError(current, "ended (it is over already)") }
        try await sandbox.screenShareChanged(ended, endUserID: owner)
        await sandbox.screenShareOutcomes.resolve(.init(chatID: ended.communicationId, id: -ended.id), with: ended)
        return try .json(ended)
    }

    private func screenShareEvent(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        try chat.requireInProgress()
        let body = try request.decode(ScreenShareEventMessage.self)
        let owner = try session.endUserID()
        let (message, _) = try await sandbox.store.addMessage(
            chatID: chat.id, sender: ChatMessageSender(type: "end_user", name: session.endUser.name), type: "screen_share",
            text: body.response?.code, event: body.event.rawValue, screenShare: body.response, clientMessageID: nil,
            now: sandbox.clock.now())
        try await sandbox.publisher.messages([message], endUserID: owner)
        await sandbox.agentDesk.messageReceived(message, in: chat, endUserID: owner, sandbox: sandbox)
        if body.event == .screenShareCodeGenerated, let code = body.response?.code,
            let pending = try await sandbox.store.latestScreenShare(chatID: chat.id), pending.code == code, pending.state == .pending
        {
            if pending.initiatedFrom == .agent {
                await sandbox.screenShareOutcomes.resolve(.init(chatID: chat.id, id: 0), with: pending)
            } else if let agent = chat.agent?.name ?? chat.virtualAgent?.name {
                _ = try await sandbox.joinScreenShare(pending, agent: agent, endUserID: owner)
            }
        }
        return try .json(message, status: 201)
    }

    /// The session named in the path, when it belongs to one of the caller's chats; with
    /// the caller's end user id.
    private func ownSession(_ request: HTTPRequest, _ session: Session) async throws -> (session: ScreenShareResponse, owner: Int) {
        let id = try request.integerParameter("id", "screen share id")
        let owner = try session.endUserID()
        guard let share = try await sandbox.store.screenShare(id: id), try await sandbox.store.chatOwner(id: share.communicationId) == owner
        else { throw HTTPError.notFound("there is no screen share \(id)") }
        return (share, owner)
    }

    private func stateError(_ session: ScreenShareResponse, _ what: String) -> HTTPError {
        HTTPError.conflict("screen share \(session.id) is \(session.state.rawValue) and cannot be \(what)")
    }
}
