import CCAIWire
import Foundation
import Timekeeping

/// Calls the platform's API: JSON in snake_case, the bearer token, one re-authentication
/// through the delegate when the platform refuses the token, and errors as ``CCAIError``.
/// Its one piece of mutable state (the first sign-in's event id) is behind a lock.
final class APIClient: @unchecked Sendable {
    let options: InitOptions
    let tokens: TokenStore
    /// Where this instance's event stream starts: the end user's newest event at its first
    /// sign-in (nil: not signed in by this instance, or no event yet).
    var streamStart: String? { lock.withLock { firstSignInEventID } }
    private let lock = NSLock()
    private var firstSignInEventID: String?
    private var signedIn = false
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
    /// `retriedByCaller`: the caller's own loop retries it (``RetryPolicy``).
    func send<Response: Decodable>(_ endpoint: Endpoint, _ parameters: [String: CustomStringConvertible] = [:],
                                   query: [String: String] = [:], body: (any Encodable)? = nil, idempotent: Bool? = nil,
                                   retriedByCaller: Bool = false, as type: Response.Type = Response.self) async throws -> Response {
        let data = try await sendRaw(endpoint, parameters, query: query, body: body, idempotent: idempotent,
                                     retriedByCaller: retriedByCaller)
        do {
            return try APIClient.decoder.decode(type, from: data)
        } catch {
            throw CCAIError(code: .internal, message: "unexpected answer to \(endpoint): \(error)")
        }
    }

    /// The same, returning the body as it is. `idempotent` marks a request safe to retry
    /// (a POST carrying a client-side id, say).
    func sendRaw(_ endpoint: Endpoint, _ parameters: [String: CustomStringConvertible] = [:], query: [String: String] = [:],
                 body: (any Encodable)? = nil, idempotent: Bool? = nil, retriedByCaller: Bool = false) async throws -> Data {
        let payload = try body.map { try APIClient.encoder.encode($0) }
        var request = HTTPClientRequest(method: endpoint.method, url: url(endpoint.path(parameters), query), body: payload,
                                        isIdempotent: idempotent)
        request.retriedByCaller = retriedByCaller
        if payload != nil { request.headers["Content-Type"] = "application/json" }
        guard endpoint.access == .endUser else { return try await perform(request, endpoint).body }
        return try await authorized(request, endpoint).body
    }

    /// Sends `data` as the body (a file upload) and decodes the answer.
    /// Uploads go through the outbox, which retries them: the transport does not.
    func upload<Response: Decodable>(_ endpoint: Endpoint, _ parameters: [String: CustomStringConvertible], query: [String: String],
                                     data: Data, contentType: String, as type: Response.Type = Response.self) async throws -> Response {
        var request = HTTPClientRequest(method: endpoint.method, url: url(endpoint.path(parameters), query),
                                        headers: ["Content-Type": contentType], body: data, timeout: 120, isIdempotent: true)
        request.retriedByCaller = true
        let answer = try await authorized(request, endpoint).body
        do {
            return try APIClient.decoder.decode(type, from: answer)
        } catch {
            throw CCAIError(code: .internal, message: "unexpected answer to \(endpoint): \(error)")
        }
    }

    /// Fetches a file: the whole answer, with its headers.
    func download(_ endpoint: Endpoint, _ parameters: [String: CustomStringConvertible], retriedByCaller: Bool = false)
        async throws -> HTTPClientResponse
    {
        var request = HTTPClientRequest(method: endpoint.method, url: url(endpoint.path(parameters), [:]), timeout: 120)
        request.retriedByCaller = retriedByCaller
        return try await authorized(request, endpoint)
    }

    /// The URL of an endpoint that takes no parameters (the event stream).
    func url(of endpoint: Endpoint) -> String { url(endpoint.path(), [:]) }

    /// Sends with the bearer token; when it is refused, again with a fresh one, as often as
    /// ``RetryPolicy/reauthentications`` says (once).
    private func authorized(_ request: HTTPClientRequest, _ endpoint: Endpoint) async throws -> HTTPClientResponse {
        var request = request
        var renewals = 0
        while true {
            request.headers["Authorization"] = "Bearer \(try await validToken())"
            do {
                return try await perform(request, endpoint)
            } catch let error as CCAIError where error.status == 401 && renewals < retryPolicy.reauthentications {
                tokens.update(nil)
                renewals += 1
            }
        }
    }

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
            _ = try await perform(request, Endpoints.signOut)
        } catch let error as CCAIError where error.status == 401 {
            return  // already unknown: nothing left to revoke
        }
    }

    /// The cached token, or a new one from the delegate.
    func validToken() async throws -> String {
        if let token = tokens.current { return token }
        guard let delegate = options.delegate else {
            throw CCAIError(code: .unauthenticated, message: "no auth token: set InitOptions.delegate or call authenticate")
        }
        guard let token = await delegate.ccaiShouldAuthenticate(), !token.isEmpty else {
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

    /// One call of `endpoint`, its answer read up to the endpoint's limit.
    private func perform(_ request: HTTPClientRequest, _ endpoint: Endpoint) async throws -> HTTPClientResponse {
        try await http.call(request, endpoint)
    }

    private func url(_ path: String, _ query: [String: String]) -> String {
        var components = URLComponents(string: options.baseURL + path)!
        if !query.isEmpty {
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        }
        return components.string ?? options.baseURL + path
    }
}
