import CCAIWire
import Foundation
import Timekeeping

/// Calls the platform's API: JSON in snake_case, the bearer token, and errors as
/// ``CCAIError``. Each call has one retry loop (``HTTPClient``'s), with one budget: its
/// ``RetrySchedule`` (an ordinary request's timeout by default), and within it one
/// re-authentication through the delegate when the platform refuses the token.
/// Its mutable state (the first sign-in's event id, the sign-in under way) is behind a lock.
final class APIClient: @unchecked Sendable {
    let options: InitOptions
    let tokens: TokenStore
    /// Where this instance's event stream starts: the end user's newest event at its first
    /// sign-in (nil: not signed in by this instance, or no event yet).
    var streamStart: String? { lock.withLock { firstSignInEventID } }
    private let lock = NSLock()
    private var firstSignInEventID: String?
    private var signedIn = false
    /// The delegate's sign-in under way, which every call needing a token waits for: a
    /// chat's start and its event stream, asking at once, sign in once.
    private var signingIn: Task<String?, Never>?
    private var signIns = 0
    private let http: HTTPClient
    /// The retries of this SDK instance (its HTTP client's).
    var retryPolicy: RetryPolicy { http.retryPolicy }
    var clock: any TimeSource { http.clock }

    init(options: InitOptions, http: HTTPClient) {
        self.options = options
        self.tokens = TokenStore(options: options)
        self.http = http
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }()

    /// Answers decode with the models' own snake_case `CodingKeys` (no key strategy).
    static let decoder = JSONDecoder()

    /// Calls `endpoint` (its `{name}` parameters filled from `parameters`) and decodes the answer.
    /// `retry`: how the call is retried, if not as an ordinary request (an outgoing message).
    func send<Response: Decodable>(_ endpoint: Endpoint, _ parameters: [String: CustomStringConvertible] = [:],
                                   query: [String: String] = [:], body: (any Encodable)? = nil, idempotent: Bool? = nil,
                                   retry: RetrySchedule? = nil, as type: Response.Type = Response.self) async throws -> Response {
        let data = try await sendRaw(endpoint, parameters, query: query, body: body, idempotent: idempotent, retry: retry)
        return try Self.decode(type, from: data, of: endpoint)
    }

    /// An answer decoded, or `internal` naming the endpoint.
    private static func decode<Response: Decodable>(_ type: Response.Type, from data: Data, of endpoint: Endpoint) throws -> Response {
        do {
            return try decoder.decode(type, from: data)
        } catch {
            throw CCAIError(code: .internal, message: "unexpected answer to \(endpoint): \(error)")
        }
    }

    /// The same, returning the body as it is. `idempotent` marks a request safe to retry
    /// (a POST carrying a client-side id, say). Out of line: the frames of its many callers
    /// stay small (each stays on its task while the request is in flight), and its own holds
    /// the request, made out of line.
    @inline(never)
    func sendRaw(_ endpoint: Endpoint, _ parameters: [String: CustomStringConvertible] = [:], query: [String: String] = [:],
                 body: (any Encodable)? = nil, idempotent: Bool? = nil, retry: RetrySchedule? = nil) async throws -> Data {
        let request = try self.request(endpoint, parameters, query: query, body: body, idempotent: idempotent)
        return try await call(request, endpoint, retry: retry).body
    }

    /// The request calling `endpoint` with its body encoded as JSON.
    @inline(never)
    private func request(_ endpoint: Endpoint, _ parameters: [String: CustomStringConvertible], query: [String: String],
                         body: (any Encodable)?, idempotent: Bool?) throws -> HTTPClientRequest {
        let payload = try body.map { try APIClient.encoder.encode($0) }
        var request = HTTPClientRequest(method: endpoint.method, url: url(endpoint.path(parameters), query), body: payload,
                                        isIdempotent: idempotent)
        if payload != nil { request.headers["Content-Type"] = "application/json" }
        return request
    }

    /// Sends `data` as the body (a file upload, retried as `retry` says) and decodes the answer.
    func upload<Response: Decodable>(_ endpoint: Endpoint, _ parameters: [String: CustomStringConvertible], query: [String: String],
                                     data: Data, contentType: String, retry: RetrySchedule,
                                     as type: Response.Type = Response.self) async throws -> Response {
        let request = HTTPClientRequest(method: endpoint.method, url: url(endpoint.path(parameters), query),
                                        headers: ["Content-Type": contentType], body: data, timeout: Self.fileTimeout, isIdempotent: true)
        return try Self.decode(type, from: try await call(request, endpoint, retry: retry).body, of: endpoint)
    }

    /// Fetches a file: the whole answer, with its headers; `retry` as in ``send(_:_:query:body:idempotent:retry:as:)``.
    func download(_ endpoint: Endpoint, _ parameters: [String: CustomStringConvertible], retry: RetrySchedule? = nil)
        async throws -> HTTPClientResponse
    {
        let request = HTTPClientRequest(method: endpoint.method, url: url(endpoint.path(parameters), [:]), timeout: Self.fileTimeout)
        return try await call(request, endpoint, retry: retry)
    }

    /// Seconds an upload or a download may take (a request's timeout).
    static let fileTimeout: TimeInterval = 120

    /// The URL of an endpoint that takes no parameters (the event stream).
    func url(of endpoint: Endpoint) -> String { url(endpoint.path(), [:]) }

    /// Remembers the newest event id of the instance's first sign-in.
    func signedIn(latestEventID: Int64?) {
        lock.withLock {
            guard !signedIn else { return }
            signedIn = true
            firstSignInEventID = latestEventID.map(String.init)
        }
    }

    /// Revokes `token` on the platform (signing out); no re-authentication.
    func revoke(_ token: String) async throws {
        var request = HTTPClientRequest(method: Endpoints.signOut.method, url: url(of: Endpoints.signOut), isIdempotent: true)
        request.headers["Authorization"] = "Bearer \(token)"
        do {
            _ = try await call(request, Endpoints.signOut, retry: nil, authorized: false)
        } catch let error as CCAIError where error.status == 401 {
            return  // already unknown: nothing left to revoke
        }
    }

    /// The cached token, or a new one from the delegate: one sign-in for the calls that ask
    /// while it is under way.
    func validToken() async throws -> String {
        if let token = tokens.current { return token }
        guard let delegate = options.delegate else {
            throw CCAIError(code: .unauthenticated, message: "no auth token: set InitOptions.delegate or call authenticate")
        }
        let signIn = lock.withLock {
            if let signingIn { return signingIn }
            signIns += 1
            let number = signIns
            // Forgotten as it ends, so that a call renewing a refused token later signs in anew.
            let started = Task {
                let token = await delegate.ccaiShouldAuthenticate()
                lock.withLock { if signIns == number { signingIn = nil } }
                return token
            }
            signingIn = started
            return started
        }
        let token = await signIn.value
        guard let token, !token.isEmpty else {
            let reason = (delegate as? CCAIAuthenticationDiagnostics)?.lastAuthenticationFailure
            guard let reason else { throw CCAIError(code: .unauthenticated, message: "the delegate provided no auth token") }
            let cause = reason as? any SDKError
            throw CCAIError(code: cause?.code ?? .unauthenticated,
                            message: "cannot authenticate: \(cause?.message ?? String(describing: reason))",
                            status: cause?.status, retryable: cause?.retryable ?? false)
        }
        if tokens.current != token { tokens.update(token) }
        return token
    }

    /// One call of `endpoint` (``HTTPClient/call(_:_:retrying:authorize:)``) in its one
    /// retry loop (`retry`, or an ordinary request's). An end user's endpoint carries the
    /// bearer token unless `authorized` is false; a refused one is renewed once
    /// (``RetryPolicy/reauthentications``) and the call made once more.
    private func call(_ request: HTTPClientRequest, _ endpoint: Endpoint, retry: RetrySchedule?,
                      authorized: Bool = true) async throws -> HTTPClientResponse {
        var authorize: HTTPClient.Authorize?
        if authorized && endpoint.access == .endUser {
            authorize = { [self] renewing in
                if renewing { tokens.update(nil) }
                return "Bearer \(try await validToken())"
            }
        }
        return try await http.call(request, endpoint, retrying: retry, authorize: authorize)
    }

    private func url(_ path: String, _ query: [String: String]) -> String {
        var components = URLComponents(string: options.baseURL + path)!
        if !query.isEmpty {
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        }
        return components.string ?? options.baseURL + path
    }
}
