import CCAIWire
import Foundation

extension Caller {
    /// The end user the caller's token was issued for.
    func endUserID() throws -> Int {
        guard let id = endUser.id else { throw HTTPError.unauthenticated("no end user") }
        return id
    }
}

extension HTTPRequest {
    /// The page its query asks for (`after`, or the `cursor` given, and `limit`), or a 400
    /// naming the parameter.
    func page(_ paging: Paging, cursor: String = "after") throws -> (after: Int, limit: Int) {
        switch paging.page(query, cursor: cursor) {
        case .success(let page): return page
        case .failure(let error): throw HTTPError.badRequest(error.message)
        }
    }

    /// A path parameter that must be an integer; `what` names it in the error.
    func integerParameter(_ name: String, _ what: String) throws -> Int {
        guard let value = Int(parameters[name] ?? "") else {
            throw HTTPError.badRequest("the \(what) must be an integer, got '\(parameters[name] ?? "")'")
        }
        return value
    }
}

/// The handler of an end user's endpoint, given the request and its caller.
typealias CallerHandler = @Sendable (HTTPRequest, Caller) async throws -> HTTPResponse

extension HTTPRouter {
    /// Adds a route table of handlers that take the request alone (the Apps API's, whose
    /// caller is the company's server).
    mutating func on(_ table: [(Endpoint, Handler)]) {
        for (endpoint, handler) in table { on(endpoint, handler) }
    }

    /// Adds a route table: each endpoint with its named handler, callers resolved as
    /// ``on(_:callers:_:)`` does.
    ///
    /// ```swift
    /// router.on([(Endpoints.currentChat, current), (Endpoints.endChat, end)], callers: callers)
    /// ```
    mutating func on(_ table: [(Endpoint, CallerHandler)], callers: CallerResolver) {
        for (endpoint, handler) in table { on(endpoint, callers: callers, handler) }
    }

    /// Adds the handler of an end user's endpoint with its caller resolved
    /// once, before the handler runs: the one place routes get it from. The body of a
    /// request that changes something counts against `limits.stored_bytes_per_hour`: past
    /// it the handler does not run (a 429); a request that fails counts nothing.
    ///
    /// ```swift
    /// router.on(Endpoints.currentChat, callers: callers) { request, caller in ... }
    /// ```
    mutating func on(_ endpoint: Endpoint, callers: CallerResolver, _ handler: @escaping CallerHandler) {
        let counted = endpoint.countsStoredBytes
        on(endpoint) { request in
            let caller = try await callers.caller(for: request)
            guard counted, !request.body.isEmpty else { return try await handler(request, caller) }
            let owner = try caller.endUserID()
            try await callers.quotas.check(.storedBytes, endUserID: owner, adding: request.body.count)
            let response = try await handler(request, caller)
            try await callers.quotas.record(storedBytes: request.body.count, endUserID: owner)
            return response
        }
    }
}

extension Endpoint {
    /// Whether what an end user sends to this endpoint counts as bytes they store: every
    /// request that changes something but uploads, which `limits.upload_bytes_per_hour`
    /// counts.
    var countsStoredBytes: Bool { method != "GET" && self != Endpoints.uploadMedia }
}

extension HTTPRequest {
    /// A 400 naming the query parameters that are not `allowed`, or that are given twice: a
    /// misspelled filter (`menuid=3`) is an error, not a silent "everything", and so is one
    /// whose value is ambiguous.
    func refuseQueryParameters(except allowed: Set<String>) throws {
        if let repeated = repeatedQueryNames.sorted().first {
            throw HTTPError.badRequest("the query parameter '\(TerminalText.escaped(repeated))' is given more than once")
        }
        let unknown = Set(query.keys).subtracting(allowed)
        guard unknown.isEmpty else {
            throw HTTPError.badRequest("unknown query parameter\(unknown.count == 1 ? "" : "s") "
                                       + unknown.sorted().map { "'\(TerminalText.escaped($0))'" }.joined(separator: ", ")
                                       + "; this route takes " + allowed.sorted().joined(separator: ", "))
        }
    }

    /// Decodes the body's `key` object when it has one, else the whole body: the Apps API
    /// takes `{ "chat": { ... } }` and `{ ... }` alike.
    func decode<Body: Decodable>(_ type: Body.Type, wrappedIn key: String) throws -> Body {
        guard let value = try? JSONValue(jsonText: String(decoding: body, as: UTF8.self)), let inner = value[key],
              inner.objectValue != nil
        else { return try decode(type) }
        var unwrapped = self
        unwrapped.body = Data(try inner.jsonText().utf8)
        return try unwrapped.decode(type)
    }
}
