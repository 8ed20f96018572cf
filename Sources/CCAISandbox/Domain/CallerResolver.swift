import CCAIWire
import Foundation
import Timekeeping

/// Who is calling: the caller of a request's bearer token, and the caller's own records
/// named in its path. Every end user's route resolves its caller here, once, before its
/// handler runs (``HTTPRouter/on(_:callers:)``).
///
/// ```swift
/// let caller = try await callers.caller(for: request)   // or a 401
/// let chat = try await callers.ownChat(request, caller)   // or a 404
/// ```
struct CallerResolver: Sendable {
    let store: SandboxStore
    /// Where the bytes an end user sends to be stored are counted (`limits.stored_bytes_per_hour`).
    let quotas: Quotas
    let clock: any TimeSource

    /// The caller of the request's bearer token, or a 401: from memory (the store's
    /// ``TokenRegistry``), or from the store for a token signed with large custom data.
    func caller(for request: HTTPRequest) async throws -> Caller {
        guard let token = request.bearerToken else {
            throw HTTPError.unauthenticated("an auth token is required (Authorization: Bearer TOKEN)")
        }
        let now = clock.now()
        switch store.tokens.caller(token: token, now: now) {
        case .known(let caller):
            return caller
        case .customDataInStore:
            if let caller = try await store.caller(token: token, now: now) { return caller }
        case .unknown:
            break
        }
        throw HTTPError.unauthenticated("the auth token is unknown, revoked or expired; authenticate again")
    }

    /// Whether the caller's token is still valid now: not revoked, not expired (what a
    /// long-lived response, an event stream, checks before each thing it sends).
    func isCurrent(_ caller: Caller) -> Bool {
        store.tokens.endUser(token: caller.token, now: clock.now()) == caller.endUser.id
    }

    /// The caller's chat named by the path's `:id`; another user's chat is not found.
    func ownChat(_ request: HTTPRequest, _ caller: Caller) async throws -> ChatResponse {
        try await ownChat(id: try request.integerParameter("id", "chat id"), caller)
    }

    /// The caller's chat `id`; another user's chat is not found.
    func ownChat(id: Int, _ caller: Caller) async throws -> ChatResponse {
        guard let chat = try await store.chat(id: id, endUserID: try caller.endUserID()) else {
            throw HTTPError.notFound("there is no chat \(id)")
        }
        return chat
    }
}
