import CCAIWire
import Foundation
import Timekeeping

/// End users and their auth tokens: signing in with the company's JWT (signature,
/// algorithm, `iat`/`exp`; the end user found or created by `identifier`), signing out,
/// and their own profile, whose identifier never changes.
///
/// ```swift
/// let auth = try await endUsers.authenticate(AuthRequest(companyKey: key, jwt: jwt))
/// ```
struct EndUsers: Sendable {
    /// The profile fields an end user may send (`PATCH /end_user`).
    struct Update: Decodable {
        var name: String?
        var email: String?
        var phone: String?
        var identifier: String?

        /// The first field that is too long or carries control or format characters
        /// (``FieldLimits/nameProblem(_:_:)``), or nil.
        var problem: String? {
            FieldLimits.nameProblem("identifier", identifier) ?? FieldLimits.nameProblem("name", name)
                ?? FieldLimits.nameProblem("email", email) ?? FieldLimits.nameProblem("phone", phone)
        }
    }

    let configuration: SandboxConfiguration
    let store: SandboxStore
    /// The open event streams, closed with their token.
    let streams: EventStreams
    let signIns: SignInLimits
    let clock: any TimeSource

    /// Checks the JWT, finds or creates its end user, and issues an auth token bound to
    /// the company's key; within the sign-in rates of ``SignInLimits`` (a failure is charged
    /// to `address`, the one the request came from, nil in process).
    func authenticate(_ request: AuthRequest, from address: String? = nil) async throws -> AuthResponse {
        try signIns.admitAddress(address)
        let company = configuration.company
        guard request.companyKey == company.key else {
            signIns.chargeFailure(address)
            throw HTTPError.unauthenticated("unknown company key '\(request.companyKey)'")
        }
        let now = clock.now()
        let claims: [String: JSONValue]
        do {
            claims = try JWTVerifier(secret: company.secret, algorithms: configuration.algorithms,
                                     maximumLifetime: company.jwtMaxLifetimeSeconds ?? 86_400)
                .verify(request.jwt, now: now)
        } catch let error as JWTError {
            signIns.chargeFailure(address)
            throw HTTPError.unauthenticated("the JWT is refused: \(error)")
        }
        guard let identifier = claims["identifier"]?.stringValue, !identifier.isEmpty else {
            signIns.chargeFailure(address)
            throw HTTPError.unauthenticated("the JWT is refused: the 'identifier' claim is required")
        }
        try signIns.admitCompany(company.key)
        let profile = Update(name: claims["name"]?.stringValue, email: claims["email"]?.stringValue,
                             phone: claims["phone"]?.stringValue, identifier: identifier)
        if let problem = profile.problem { throw HTTPError.badRequest("the JWT's claim: " + problem) }
        try signIns.admitIdentifier(identifier)
        let customData = claims["custom_data"] ?? [:]
        if let problem = FieldLimits.problem("custom_data", size: try customData.jsonText().utf8.count, limit: FieldLimits.customDataBytes) {
            throw HTTPError.badRequest("the JWT's claim: " + problem)
        }
        let problems = ReservedCRMKey.problems(in: customData, signed: true)
        guard problems.isEmpty else { throw HTTPError.badRequest("the JWT's " + problems.joined(separator: "; ")) }
        let user = try await store.endUser(identifier: identifier, name: profile.name, email: profile.email, phone: profile.phone,
                                           now: now)
        let expiresAt = now.addingTimeInterval(min(company.authTokenSeconds ?? 86_400, Checked.maximumSeconds))
        let token = try await store.issueToken(endUserID: user.id ?? 0, customData: customData,
                                               expiresAt: expiresAt)
        return AuthResponse(authToken: token, expiresAt: Int64(Checked.truncated(expiresAt.timeIntervalSince1970) ?? 0),
                            endUser: user, latestEventId: try await store.latestEventID(endUserID: user.id ?? 0))
    }

    /// Revokes the session's token and ends the event streams opened with it.
    func signOut(_ caller: Caller) async throws {
        try await store.revokeToken(caller.token)
        await streams.close(token: caller.token)
    }

    /// Changes the caller's profile; its identifier cannot change.
    func update(_ update: Update, of caller: Caller) async throws -> EndUser {
        if let identifier = update.identifier, identifier != caller.endUser.identifier {
            throw HTTPError.forbidden("an end user's identifier cannot be changed; authenticate as the other end user")
        }
        if let problem = update.problem { throw HTTPError.badRequest(problem) }
        guard let id = caller.endUser.id,
            let user = try await store.updateEndUser(id: id, name: update.name, email: update.email, phone: update.phone)
        else { throw HTTPError.notFound("the end user no longer exists") }
        return user
    }

    /// The company as end users see it.
    var company: CompanyResponse {
        let company = configuration.company
        return CompanyResponse(displayName: company.name, supportEmail: company.supportEmail, languages: company.languages,
                               timeZone: company.timeZone, preventDirectPstnCall: company.preventDirectPstnCall ?? false)
    }
}
