import CCAIWire

/// `GET /company` and the end user's own profile (`GET`/`PATCH /end_user`; changing the
/// identifier is forbidden).
struct CompanyRoutes: Sendable {
    let callers: CallerResolver
    let endUsers: EndUsers

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.company, company),
            (Endpoints.endUser, endUser),
            (Endpoints.updateEndUser, updateEndUser),
        ], callers: callers)
    }

    private func company(_: HTTPRequest, _: Caller) async throws -> HTTPResponse {
        try .json(endUsers.company)
    }

    private func endUser(_: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(caller.endUser)
    }

    private func updateEndUser(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await endUsers.update(try request.decode(EndUsers.Update.self), of: caller))
    }
}
