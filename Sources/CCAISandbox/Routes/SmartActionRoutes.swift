import CCAIWire
import Foundation

/// The end user's side of smart actions (seed 003's `smartActionService`):
/// `GET /chats/{id}/smart_actions`, `POST .../smart_actions/{action}/received`,
/// `POST .../smart_actions/{action}/result` (text, verification, screen share or a
/// declining reason; media come as uploads naming the action) and
/// `PUT .../smart_actions/{action}/status`. The rules are ``SmartActions``'.
struct SmartActionRoutes: Sendable {
    let sessions: SessionResolver
    let smartActions: SmartActions

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.smartActions, list),
            (Endpoints.smartActionReceived, received),
            (Endpoints.smartActionResult, result),
            (Endpoints.smartActionStatus, status),
        ], sessions: sessions)
    }

    private func list(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        try .json(try await smartActions.all(ofChat: try await sessions.ownChat(request, session).id))
    }

    private func received(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        try .json(try await smartActions.received(try await ownAction(request, session)))
    }

    private func result(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let action = try await ownAction(request, session)
        return try .json(try await smartActions.addResult(try request.decode(SmartActionResult.self), to: action))
    }

    private func status(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let action = try await ownAction(request, session)
        return try .json(try await smartActions.setStatus(try request.decode(SmartActionStatusUpdate.self).status, of: action))
    }

    /// The smart action named in the path, of the caller's chat.
    private func ownAction(_ request: HTTPRequest, _ session: Session) async throws -> SmartAction {
        let chat = try await sessions.ownChat(request, session)
        return try await smartActions.action(try request.integerParameter("action", "smart action id"), inChat: chat.id)
    }
}
