import CCAIWire
import Foundation

/// The authenticated end user's profile (seed 000).
///
/// ```swift
/// print(ccai.endUserService?.endUser?.displayName ?? "nobody")
/// ```
public final class EndUserService: @unchecked Sendable {
    private let api: APIClient
    private let lock = NSLock()
    private var current: EndUser?
    private var signedIn: [String: JSONValue] = [:]

    init(api: APIClient) {
        self.api = api
    }

    /// The profile the SDK holds (set by authentication, `fetch` or `updateEndUser`).
    public var endUser: EndUser? { lock.withLock { current } }

    /// Replaces the profile the SDK holds; nil clears it (on logout).
    public func updateEndUser(_ endUser: EndUser?) {
        lock.withLock { current = endUser }
    }

    /// The `custom_data` claim of the JWT the end user last signed in with (read, not
    /// verified: the app signed it), for ``SessionCustomData``. Not named by the seeds.
    public var signedCustomData: [String: JSONValue] { lock.withLock { signedIn } }

    /// Keeps the signed custom data of the JWT exchanged for a token.
    func signedIn(with jwt: String) {
        let items = JWTPayload.claims(of: jwt)?["custom_data"]?.objectValue ?? [:]
        lock.withLock { signedIn = items }
    }

    /// Reads the profile from the platform.
    @discardableResult
    public func fetch() async throws -> EndUser {
        let user = try await api.send(Endpoints.endUser, as: EndUser.self)
        updateEndUser(user)
        return user
    }

    /// Saves name, e-mail and phone on the platform (the identifier never changes).
    @discardableResult
    public func save(_ endUser: EndUser) async throws -> EndUser {
        struct Update: Encodable {
            var name: String?
            var email: String?
            var phone: String?
        }
        let user = try await api.send(Endpoints.updateEndUser,
                                      body: Update(name: endUser.name, email: endUser.email, phone: endUser.phone),
                                      as: EndUser.self)
        updateEndUser(user)
        return user
    }
}
