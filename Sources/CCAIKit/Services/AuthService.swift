import CCAIWire
import Foundation

/// Exchanges end-user JWTs for auth tokens and manages the cached token (seed 004).
///
/// ```swift
/// let token = try await ccai.authService?.authenticate(jwt)
/// try await ccai.authService?.signOut()      // on logout: revoked on the platform, forgotten here
/// ```
public final class AuthService: Sendable {
    private let api: APIClient
    private let endUsers: EndUserService

    init(api: APIClient, endUsers: EndUserService) {
        self.api = api
        self.endUsers = endUsers
    }

    /// Exchanges a JWT signed with the company secret for an auth token, which the SDK
    /// then uses (and caches, if enabled).
    @discardableResult
    public func authenticate(_ jwt: String) async throws -> String {
        guard !jwt.isEmpty else { throw CCAIError.invalidArgument("the JWT is empty") }
        let response = try await api.send(Endpoints.authenticate, body: AuthRequest(companyKey: api.options.key, jwt: jwt),
                                          as: AuthResponse.self)
        api.tokens.update(response.authToken)
        api.signedIn(latestEventID: response.latestEventId)
        endUsers.updateEndUser(response.endUser)
        endUsers.signedIn(with: jwt)
        return response.authToken
    }

    /// Sets the auth token to use, or clears it (nil), in memory and in the cache. Clearing
    /// also revokes the old token on the platform, in the background; ``signOut()`` does
    /// the same and waits for it.
    public func updateAuthToken(_ token: String?) {
        let previous = api.tokens.current
        api.tokens.update(token)
        if token == nil, let previous {
            let api = self.api
            Task { try? await api.revoke(previous) }
        }
    }

    /// Signs the end user out: revokes the token on the platform (`DELETE /auth/end_user`),
    /// then forgets it in memory and in the cache. Not named by the seeds; it is
    /// `updateAuthToken(nil)` that waits for the platform.
    public func signOut() async throws {
        guard let token = api.tokens.current else { return }
        api.tokens.update(nil)
        try await api.revoke(token)
    }

    /// The token in use, if any.
    public var authToken: String? { api.tokens.current }
}
