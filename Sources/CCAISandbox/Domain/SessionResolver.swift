import CCAIWire
import Foundation
import Timekeeping

/// Who is calling: the session of a request's bearer token, and the caller's own records
/// named in its path. Every end user's route resolves its caller here, once, before its
/// handler runs (``HTTPRouter/on(_:sessions:)``).
///
/// ```swift
/// let session = try await sessions.session(for: request)   // or a 401
/// let chat = try await sessions.ownChat(request, session)   // or a 404
/// ```
struct SessionResolver: Sendable {
    let store: SandboxStore
    /// Where the bytes an end user sends to be stored are counted (`limits.stored_bytes_per_hour`).
    let quotas: Quotas
    let clock: any Clock

    /// The session of the request's bearer token, or a 401.
    func session(for request: HTTPRequest) async throws -> Session {
        guard let token = request.bearerToken else {
            throw HTTPError.unauthenticated("an auth token is required (Authorization: Bearer TOKEN)")
        }
        guard let session = try await store.session(token: token, now: clock.now()) else {
            throw HTTPError.unauthenticated("the auth token is unknown, revoked or expired; authenticate again")
        }
        return session
    }

    /// Whether the session's token is still valid now: not revoked, not expired (what a
    /// long-lived response, an event stream, checks before each thing it sends).
    func isCurrent(_ session: Session) -> Bool {
        store.tokens.endUser(token: session.token, now: clock.now()) == session.endUser.id
    }

    /// The caller's chat named by the path's `:id`; another user's chat is not found.
    func ownChat(_ request: HTTPRequest, _ session: Session) async throws -> ChatResponse {
        try await ownChat(id: try request.integerParameter("id", "chat id"), session)
    }

    /// The caller's chat `id`; another user's chat is not found.
    func ownChat(id: Int, _ session: Session) async throws -> ChatResponse {
        guard let chat = try await store.chat(id: id, endUserID: try session.endUserID()) else {
            throw HTTPError.notFound("there is no chat \(id)")
        }
        return chat
    }
}
