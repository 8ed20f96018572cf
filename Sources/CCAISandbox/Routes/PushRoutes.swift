import CCAIWire
import Foundation

/// Push notifications (seed 004): `PUT /push_tokens` (a device registers or clears its
/// token of a type) and the operator's `GET /admin/pushes` (what was sent). The rules are
/// ``Pushes``'.
struct PushRoutes: Sendable {
    let callers: CallerResolver
    let pushes: Pushes

    func register(in router: inout HTTPRouter) {
        router.on([(Endpoints.updatePushToken, updateToken)], callers: callers)
        router.on(Endpoints.pushes, records)
    }

    private func updateToken(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try await pushes.updateToken(try request.decode(PushTokenRequest.self), endUserID: try caller.endUserID())
        return .noContent
    }

    /// The operator's list (admin token, not an end user's session).
    private func records(_ request: HTTPRequest) async throws -> HTTPResponse {
        let page = try request.page(.pushes)
        return try .json(try await pushes.records(after: page.after, limit: page.limit))
    }
}
