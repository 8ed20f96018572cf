import CCAIWire
import Foundation

/// The end user's side of smart actions (seed 003's `smartActionService`):
/// `GET /chats/{id}/smart_actions`, `POST .../smart_actions/{action}/received`,
/// `POST .../smart_actions/{action}/result` (text, verification, screen share or a
/// declining reason; media come as uploads naming the action) and
/// `PUT .../smart_actions/{action}/status` (`finished` needs the result the type asks for;
/// `failed` is always possible). Final actions take no more changes (409).
struct SmartActionRoutes: Sendable {
    let sandbox: Sandbox

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.smartActions, smartActions),
            (Endpoints.smartActionReceived, smartActionReceived),
            (Endpoints.smartActionResult, smartActionResult),
            (Endpoints.smartActionStatus, smartActionStatus),
        ], sessions: sandbox)
    }

    private func smartActions(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let chat = try await sandbox.ownChat(request, session)
        return try .json(try await sandbox.store.smartActions(chatID: chat.id))
    }

    private func smartActionReceived(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let action = try await ownAction(request, session)
        return try .json(try await move(action, to: .received))
    }

    private func smartActionResult(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let action = try await ownAction(request, session)
        let result = try request.decode(SmartActionResult.self)
        try check(result, for: action)
        guard let updated = try await sandbox.store.addSmartActionResult(id: action.id, chatID: action.chatId, result,
                                                                       now: sandbox.clock.now())
        else { throw finalError(action) }
        return try .json(updated)
    }

    private func smartActionStatus(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let action = try await ownAction(request, session)
        let status = try request.decode(SmartActionStatusUpdate.self).status
        guard status != .requested else {
            throw HTTPError.badRequest("status: 'received', 'finished' or 'failed' expected (an action cannot go back to 'requested')")
        }
        if status == .finished, let missing = missingResult(action) {
            throw HTTPError.conflict("smart action \(action.id) (\(action.type.rawValue)) cannot finish without \(missing)")
        }
        let moved = try await move(action, to: status)
        if moved.status.isFinal { await sandbox.smartActionSettled(moved) }
        return try .json(moved)
    }

    /// The caller's chat and the smart action of it named in the path.
    private func ownAction(_ request: HTTPRequest, _ session: Session) async throws -> SmartAction {
        let chat = try await sandbox.ownChat(request, session)
        let id = try request.integerParameter("action", "smart action id")
        guard let action = try await sandbox.store.smartAction(id: id, chatID: chat.id) else {
            throw HTTPError.notFound("chat \(chat.id) has no smart action \(id)")
        }
        return action
    }

    private func move(_ action: SmartAction, to status: SmartActionStatus) async throws -> SmartAction {
        guard let moved = try await sandbox.store.updateSmartAction(id: action.id, chatID: action.chatId, status: status,
                                                                   now: sandbox.clock.now())
        else { throw finalError(action) }
        return moved
    }

    private func finalError(_ action: SmartAction) -> HTTPError {
        HTTPError.conflict("smart action \(action.id) is \(action.status.rawValue) already")
    }

    /// A result must fit the action's type; media come as uploads.
    private func check(_ result: SmartActionResult, for action: SmartAction) throws {
        if result.mediaIds != nil {
            throw HTTPError.badRequest("media_ids: send photos and videos as uploads naming the smart action (POST /chats/{id}/media?smart_action_id=\(action.id))")
        }
        let fields: [(String, Bool, SmartActionType)] = [("text", result.text != nil, .text),
                                                         ("verified", result.verified != nil, .verification),
                                                         ("screen_share", result.screenShare != nil, .screenShare)]
        for (field, present, type) in fields where present && action.type != type {
            throw HTTPError.badRequest("\(field): only a \(type.rawValue) smart action takes it; smart action \(action.id) is \(action.type.rawValue)")
        }
        if result.text == nil, result.verified == nil, result.screenShare == nil, result.declineReason == nil {
            throw HTTPError.badRequest("a result needs text, verified, screen_share or decline_reason")
        }
    }

    /// What a `finished` action of its type must have received, if it has not.
    private func missingResult(_ action: SmartAction) -> String? {
        let result = action.result
        switch action.type {
        case .text: return result?.text == nil ? "its text" : nil
        case .verification: return result?.verified == nil ? "its verification outcome (verified)" : nil
        case .photo, .screenshot: return (result?.mediaIds ?? []).isEmpty ? "an image sent for it" : nil
        case .video: return (result?.mediaIds ?? []).isEmpty ? "a video sent for it" : nil
        case .screenShare: return result?.screenShare == nil ? "screen_share" : nil
        case .unknown: return nil
        }
    }
}
