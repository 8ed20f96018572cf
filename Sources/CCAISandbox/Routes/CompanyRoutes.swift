import CCAIWire

/// `GET /company` and the end user's own profile (`GET`/`PATCH /end_user`; changing the
/// identifier is forbidden).
struct CompanyRoutes: Sendable {
    let sandbox: Sandbox

    struct EndUserUpdate: Decodable {
        var name: String?
        var email: String?
        var phone: String?
        var identifier: String?
    }

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.company, company),
            (Endpoints.endUser, endUser),
            (Endpoints.updateEndUser, updateEndUser),
        ], sessions: sandbox)
    }

    private func company(_: HTTPRequest, _: Session) async throws -> HTTPResponse {
        let company = sandbox.configuration.company
        return try .json(CompanyResponse(
            displayName: company.name, supportEmail: company.supportEmail, languages: company.languages,
            timeZone: company.timeZone, preventDirectPstnCall: company.preventDirectPstnCall ?? false))
    }

    private func endUser(_: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        try .json(session.endUser)
    }

    private func updateEndUser(_ request: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        let update = try request.decode(EndUserUpdate.self)
        if let identifier = update.identifier, identifier != session.endUser.identifier {
            throw HTTPError.forbidden("an end user's identifier cannot be changed; authenticate as the other end user")
        }
        guard let id = session.endUser.id,
            let user = try await sandbox.store.updateEndUser(id: id, name: update.name, email: update.email,
                                                             phone: update.phone)
        else { throw HTTPError.notFound("the end user no longer exists") }
        return try .json(user)
    }
}
