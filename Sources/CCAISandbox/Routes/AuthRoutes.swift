import CCAIWire
import Foundation

/// `POST /auth/end_user`: signs an end user in with the company's JWT and issues an auth
/// token; `DELETE /auth/end_user` signs out: the caller's token is revoked. The rules are
/// ``EndUsers``'.
struct AuthRoutes: Sendable {
    let callers: CallerResolver
    let endUsers: EndUsers

    func register(in router: inout HTTPRouter) {
        router.on(Endpoints.authenticate, authenticate)
        router.on([(Endpoints.signOut, signOut)], callers: callers)
    }

    private func signOut(_: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try await endUsers.signOut(caller)
        return .noContent
    }

    private func authenticate(_ request: HTTPRequest) async throws -> HTTPResponse {
        try .json(try await endUsers.authenticate(try request.decode(AuthRequest.self), from: request.clientAddress))
    }
}
