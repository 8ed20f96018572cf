import CCAIWire
import Foundation

extension Session {
    /// The end user the session's token was issued for.
    func endUserID() throws -> Int {
        guard let id = endUser.id else { throw HTTPError.unauthenticated("no end user") }
        return id
    }
}

extension HTTPRequest {
    /// A path parameter that must be an integer; `what` names it in the error.
    func integerParameter(_ name: String, _ what: String) throws -> Int {
        guard let value = Int(parameters[name] ?? "") else {
            throw HTTPError.badRequest("the \(what) must be an integer, got '\(parameters[name] ?? "")'")
        }
        return value
    }
}

/// The handler of an end user's endpoint, given the request and the caller's session.
typealias SessionHandler = @Sendable (HTTPRequest, Session) async throws -> HTTPResponse

extension HTTPRouter {
    /// Adds a route table: each endpoint with its named handler, sessions resolved as
    /// ``on(_:sessions:_:)`` does.
    ///
    /// ```swift
    /// router.on([(Endpoints.currentChat, current), (Endpoints.endChat, end)], sessions: sessions)
    /// ```
    mutating func on(_ table: [(Endpoint, SessionHandler)], sessions: SessionResolver) {
        for (endpoint, handler) in table { on(endpoint, sessions: sessions, handler) }
    }

    /// Adds the handler of an end user's endpoint with the caller's session resolved
    /// once, before the handler runs: the one place routes get it from.
    ///
    /// ```swift
    /// router.on(Endpoints.currentChat, sessions: sessions) { request, session in ... }
    /// ```
    mutating func on(_ endpoint: Endpoint, sessions: SessionResolver, _ handler: @escaping SessionHandler) {
        on(endpoint) { request in try await handler(request, try await sessions.session(for: request)) }
    }
}
