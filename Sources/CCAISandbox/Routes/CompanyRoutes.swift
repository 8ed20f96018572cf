import CCAIWire

/// `GET /company` and the end user's own profile (`GET`/`PATCH /end_user`; changing the
/// identifier is forbidden).
struct CompanyRoutes: Sendable {
    let sessions: SessionResolver
    let endUsers: EndUsers

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.company, company),
            (Endpoints.endUser, endUser),
            (Endpoints.updateEndUser, updateEndUser),
        ], sessions: sessions)
    }

    private func company(_: HTTPRequest, _: Session) async throws -> HTTPResponse {
        try .json(endUsers.company)
    }

    private func endUser(_: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        try .json(session.endUser)
    }

    private func updateEndUser(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        try .json(try await endUsers.update(try request.decode(EndUsers.Update.self), of: session))
    }
}
