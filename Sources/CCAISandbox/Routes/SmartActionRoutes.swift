import CCAIWire
import Foundation

/// The end user's side of smart actions (seed 003's `smartActionService`), the same four
/// routes under a chat and under a call: `GET /chats/{id}/smart_actions`, `POST
/// .../smart_actions/{action}/received`, `POST .../smart_actions/{action}/result` (text,
/// verification, screen share or a declining reason; a chat's media come as uploads
/// naming the action) and `PUT .../smart_actions/{action}/status`, and each again under
/// `/calls/{id}`. The rules are ``SmartActions``'.
struct SmartActionRoutes: Sendable {
    let callers: CallerResolver
    let calls: Calls
    let smartActions: SmartActions

    func register(in router: inout HTTPRouter) {
        for kind in CommunicationRouter.CommunicationType.allCases {
            router.on([
                (Endpoints.smartActions[kind], list(kind)),
                (Endpoints.smartActionReceived[kind], received(kind)),
                (Endpoints.smartActionResult[kind], result(kind)),
                (Endpoints.smartActionStatus[kind], status(kind)),
            ], callers: callers)
        }
    }

    private func list(_ kind: CommunicationRouter.CommunicationType) -> CallerHandler {
        { request, caller in try .json(try await smartActions.all(of: try await ownSession(kind, request, caller))) }
    }

    private func received(_ kind: CommunicationRouter.CommunicationType) -> CallerHandler {
        { request, caller in try .json(try await smartActions.received(try await ownAction(kind, request, caller))) }
    }

    private func result(_ kind: CommunicationRouter.CommunicationType) -> CallerHandler {
        { request, caller in
            let action = try await ownAction(kind, request, caller)
            return try .json(try await smartActions.addResult(try request.decode(SmartActionResult.self), to: action))
        }
    }

    private func status(_ kind: CommunicationRouter.CommunicationType) -> CallerHandler {
        { request, caller in
            let action = try await ownAction(kind, request, caller)
            return try .json(try await smartActions.setStatus(try request.decode(SmartActionStatusUpdate.self).status, of: action))
        }
    }

    /// The caller's chat or call named in the path; another end user's is not found.
    private func ownSession(_ kind: CommunicationRouter.CommunicationType, _ request: HTTPRequest, _ caller: Caller) async throws
        -> CommunicationRouter
    {
        switch kind {
        case .chat: return CommunicationRouter(id: try await callers.ownChat(request, caller).id, type: .chat)
        case .call:
            let call = try await calls.call(try request.integerParameter("id", "call id"), endUserID: try caller.endUserID())
            return CommunicationRouter(id: call.id, type: .call)
        }
    }

    /// The smart action named in the path, of the caller's chat or call.
    private func ownAction(_ kind: CommunicationRouter.CommunicationType, _ request: HTTPRequest, _ caller: Caller) async throws
        -> SmartAction
    {
        let owner = try await ownSession(kind, request, caller)
        return try await smartActions.action(try request.integerParameter("action", "smart action id"), in: owner)
    }
}
