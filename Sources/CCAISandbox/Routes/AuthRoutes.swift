import CCAIWire
import Foundation

/// `POST /auth/end_user`: checks the JWT (signature, algorithm, iat/exp), finds or creates
/// the end user by `identifier`, and issues an auth token bound to the company's key.
/// `DELETE /auth/end_user` signs out: the caller's token is revoked.
struct AuthRoutes: Sendable {
    let sandbox: Sandbox

    func register(in router: inout HTTPRouter) {
        router.on(Endpoints.authenticate, authenticate)
        router.on([(Endpoints.signOut, signOut)], sessions: sandbox)
    }

    private func signOut(_: HTTPRequest, _ session: Session) async throws -> HTTPResponse {
        try await sandbox.store.revokeToken(session.token)
        return .noContent
    }

    private func authenticate(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = try request.decode(AuthRequest.self)
        let company = sandbox.configuration.company
        guard body.companyKey == company.key else {
            throw HTTPError.unauthenticated("unknown company key '\(body.companyKey)'")
        }
        let now = sandbox.clock.now()
        let claims: [String: JSONValue]
        do {
            claims = try JWTVerifier(secret: company.secret, algorithms: sandbox.configuration.algorithms,
                                     maximumLifetime: company.jwtMaxLifetimeSeconds ?? 86_400)
                .verify(body.jwt, now: now)
        } catch let error as JWTError {
            throw HTTPError.unauthenticated("the JWT is refused: \(error)")
        }
        guard let identifier = claims["identifier"]?.stringValue, !identifier.isEmpty else {
            throw HTTPError.unauthenticated("the JWT is refused: the 'identifier' claim is required")
        }
        guard !identifier.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw HTTPError.badRequest("the 'identifier' claim must not contain control characters (NUL, newlines)")
        }
        let problems = ReservedCRMKey.problems(in: claims["custom_data"] ?? [:], signed: true)
        guard problems.isEmpty else { throw HTTPError.badRequest("the JWT's " + problems.joined(separator: "; ")) }
        let user = try await sandbox.store.endUser(
            identifier: identifier, name: claims["name"]?.stringValue, email: claims["email"]?.stringValue,
            phone: claims["phone"]?.stringValue, now: now)
        let expiresAt = now.addingTimeInterval(min(company.authTokenSeconds ?? 86_400, Checked.maximumSeconds))
        let token = try await sandbox.store.issueToken(endUserID: user.id ?? 0, customData: claims["custom_data"] ?? [:],
                                                       expiresAt: expiresAt)
        return try .json(AuthResponse(authToken: token, expiresAt: Int64(Checked.truncated(expiresAt.timeIntervalSince1970) ?? 0),
                                      endUser: user, latestEventId: try await sandbox.store.latestEventID(endUserID: user.id ?? 0)))
    }
}
