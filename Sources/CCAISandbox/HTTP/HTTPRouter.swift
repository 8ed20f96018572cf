import CCAIWire
import Timekeeping

/// Who may call a route: anyone (signing in), an end user with a valid auth token, the
/// operator with the admin token, the company's server with its Apps API credentials, or
/// anyone holding a URL the route's own check finds signed.
public enum HTTPAuthentication: Sendable {
    case none
    case endUser
    case admin
    case apps
    case presigned
}

/// What the router decides from a request's headers alone, before its body is read.
public enum HTTPAdmission: Equatable, Sendable {
    /// Read the body, at most this many bytes; `authenticated` when the route required a
    /// token and it passed (else the body counts against the server's budget for requests
    /// without a token, and the connection's deadline runs until it is read); `takesFile`
    /// when the body is a file, which may come as the `file` part of a form
    /// (``CCAIWire/Endpoint/takesFile``).
    case read(maximumBodyBytes: Int, authenticated: Bool, takesFile: Bool = false)
    /// Answer at once with the error (and its headers).
    case refuse(HTTPError)
}

/// Routes requests by method and path pattern (`/queue_menus/:id`) to async handlers.
/// A handler's `HTTPError` becomes its JSON error response; any other error is a 500.
/// Before a body is read, ``admit(method:path:authorization:contentLength:)`` refuses
/// what the route would refuse anyway: an unknown route, a missing or unknown token, a
/// declared body over the route's own limit.
///
/// ```swift
/// var router = HTTPRouter()
/// router.add("GET", "/company") { request in try .json(company) }
/// ```
public struct HTTPRouter: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse
    /// Checks a pre-signed URL before the body is read, from the route's path parameters,
    /// the query and the declared length (nil when not declared): nil to go on, else the
    /// refusal. No I/O: it runs on the server's threads.
    public typealias URLCheck = @Sendable (_ parameters: [String: String], _ query: [String: String], _ contentLength: Int64?)
        -> HTTPError?

    private struct Route: Sendable {
        var method: String
        var segments: [Substring]
        var maximumBodyBytes: Int
        var authentication: HTTPAuthentication
        var takesFile: Bool
        var checkURL: URLCheck?
        var handler: Handler
    }

    /// The body a route takes unless it says otherwise: 1 MiB.
    public static let defaultMaximumBodyBytes = Endpoint.defaultMaximumBodyBytes

    private var routes: [Route] = []
    /// The routes of each segment count, by index in `routes` (a path is matched only
    /// against the patterns as long as it).
    private var routesBySegmentCount: [Int: [Int]] = [:]
    /// Checks a bearer token before the body is read: nil to go on, else the refusal (an
    /// unknown or revoked token, a caller over their rate). No I/O: it runs on the server's
    /// threads. Nil: any token passes to the handler.
    public var checkToken: (@Sendable (String) -> HTTPError?)?
    /// The bearer token of `admin` routes; nil refuses them all (403).
    public var adminToken: String?
    /// Checks the `Authorization` header of an `apps` route before the body is read: nil
    /// to go on, else the refusal. Nil refuses them all (401).
    public var checkAppsCredentials: (@Sendable (String?) -> HTTPError?)?
    /// Counts every answer by route and status, and times the handlers; nil counts nothing
    /// (``RequestTally``, made by ``makeTally()`` once the routes are added).
    public var tally: RequestTally?

    public init() {}

    /// Adds a route; a request with a larger body than `maximumBodyBytes` is a 413, and
    /// one without a known token a 401 unless `authentication` is `.none`.
    public mutating func add(_ method: String, _ pattern: String, maximumBodyBytes: Int = defaultMaximumBodyBytes,
                             authentication: HTTPAuthentication = .endUser, takesFile: Bool = false,
                             checkingURL checkURL: URLCheck? = nil, _ handler: @escaping Handler) {
        let segments = HTTPRouter.segments(pattern)
        routesBySegmentCount[segments.count, default: []].append(routes.count)
        routes.append(Route(method: method, segments: segments, maximumBodyBytes: maximumBodyBytes,
                            authentication: authentication, takesFile: takesFile, checkURL: checkURL, handler: handler))
    }

    /// Adds the handler of a wire API endpoint: its method, path, access and body limit
    /// come from the endpoint (CCAIWire's `Endpoints`). A `presigned` endpoint's URLs are
    /// checked by `checkURL`; without one, every request to it is refused (403).
    public mutating func on(_ endpoint: Endpoint, checkingURL checkURL: URLCheck? = nil, _ handler: @escaping Handler) {
        add(endpoint.method, endpoint.template.replacingOccurrences(of: "{", with: ":").replacingOccurrences(of: "}", with: ""),
            maximumBodyBytes: endpoint.maximumBodyBytes, authentication: HTTPRouter.authentication(endpoint.access),
            takesFile: endpoint.takesFile, checkingURL: checkURL, handler)
    }

    private static func authentication(_ access: Endpoint.Access) -> HTTPAuthentication {
        switch access {
        case .anyone: .none
        case .endUser: .endUser
        case .admin: .admin
        case .apps: .apps
        case .presigned: .presigned
        }
    }

    /// A tally of this router's routes, to set as ``tally``.
    public func makeTally() -> RequestTally { RequestTally(operations: operations) }

    /// The operations routed, as `"POST /chats/{id}/messages"` (the OpenAPI spelling).
    public var operations: [String] {
        routes.map { route in
            route.method + " /" + route.segments.map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
        }
    }

    /// The path's segments, split at each `/` scalar: split by characters, a slash followed
    /// by a combining mark (`/🏻`, an emoji modifier) is one character and was not split.
    private static func segments(_ path: String) -> [Substring] {
        path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: true).map { Substring($0) }
    }

    /// The route for a method and path, or the error (404, or 405 with the methods allowed).
    /// A literal segment wins over a parameter: `/custom_forms/submissions` is not the
    /// custom form `submissions`, so only its own methods are allowed there.
    private func route(_ method: String, _ path: String) -> Result<(index: Int, parameters: [String: String]), HTTPError> {
        let segments = HTTPRouter.segments(path)
        var best: [(index: Int, parameters: [String: String])] = []
        var bestLiterals = -1
        for index in routesBySegmentCount[segments.count] ?? [] {
            let route = routes[index]
            guard let parameters = match(route.segments, segments) else { continue }
            let literals = route.segments.count - parameters.count
            if literals > bestLiterals {
                best = [(index, parameters)]
                bestLiterals = literals
            } else if literals == bestLiterals {
                best.append((index, parameters))
            }
        }
        if let found = best.first(where: { routes[$0.index].method == method }) { return .success(found) }
        guard !best.isEmpty else { return .failure(.notFound("no endpoint \(method) \(path)")) }
        let list = best.map { routes[$0.index].method }.joined(separator: ", ")
        return .failure(HTTPError(status: 405, code: .invalidArgument, message: "\(method) is not allowed on \(path); allowed: \(list)",
                                  headers: ["Allow": list]))
    }

    /// Decides on a request from its headers: the route, its token (`authorization` is the
    /// whole header), its declared length (`contentLength`, nil when not declared), and
    /// for a pre-signed URL its `query`.
    public func admit(method: String, path: String, authorization: String?, contentLength: Int64?,
                      query: @autoclosure () -> [String: String] = [:]) -> HTTPAdmission {
        admission(method: method, path: path, authorization: authorization, contentLength: contentLength, query: query()).decision
    }

    /// ``admit(method:path:authorization:contentLength:query:)``'s decision with the route
    /// it found, which ``dispatch(_:route:)`` takes back instead of looking it up again.
    func admission(method: String, path: String, authorization: String?, contentLength: Int64?,
                   query: @autoclosure () -> [String: String]) -> (decision: HTTPAdmission, route: Int?) {
        switch route(method, path) {
        case .failure(let error):
            tally?.record(route: nil, status: error.status)
            return (.refuse(error), nil)
        case .success(let (index, parameters)):
            let decision = admission(routes[index], method: method, path: path, parameters: parameters,
                                     authorization: authorization, contentLength: contentLength, query: query())
            if case .refuse(let error) = decision { tally?.record(route: index, status: error.status) }
            return (decision, index)
        }
    }

    private func admission(_ route: Route, method: String, path: String, parameters: [String: String],
                           authorization: String?, contentLength: Int64?,
                           query: @autoclosure () -> [String: String]) -> HTTPAdmission {
        if route.authentication == .endUser {
            guard let token = HTTPRequest.bearerToken(authorization) else {
                return .refuse(.unauthenticated("an auth token is required (Authorization: Bearer TOKEN)"))
            }
            if let checkToken, let refusal = checkToken(token) { return .refuse(refusal) }
        }
        if route.authentication == .admin, let refusal = adminRefusal(authorization) { return .refuse(refusal) }
        if route.authentication == .apps {
            let refusal = checkAppsCredentials.map { $0(authorization) }
                ?? .unauthenticated("the Apps API needs Basic credentials: the company's subdomain and an API token")
            if let refusal { return .refuse(refusal) }
        }
        if route.authentication == .presigned {
            let refusal = route.checkURL.map { $0(parameters, query(), contentLength) }
                ?? HTTPError(status: 403, code: .forbidden, message: "\(method) \(path) takes no URL this server signed")
            if let refusal { return .refuse(refusal) }
        }
        if let contentLength, contentLength > Int64(route.maximumBodyBytes) {
            return .refuse(HTTPError(status: 413, code: .tooLarge,
                                     message: "the request body is \(contentLength) bytes; \(method) \(path) takes at most \(route.maximumBodyBytes)"))
        }
        return .read(maximumBodyBytes: route.maximumBodyBytes, authenticated: route.authentication != .none,
                     takesFile: route.takesFile)
    }

    /// Answers `request` as the server would: admission first (404, 405 with `Allow`, 401,
    /// 429, 413), then the handler. For callers in the same process (tests, an embedding
    /// program); the HTTP server admits on the headers itself and calls ``dispatch(_:route:)``.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        let (decision, route) = admission(method: request.method, path: request.path,
                                          authorization: request.headers["authorization"],
                                          contentLength: Int64(request.body.count), query: request.query)
        if case .refuse(let error) = decision { return error.response }
        return await dispatch(request, route: route)
    }

    /// Runs the handler of an admitted request (`route`: the one its admission found, else
    /// it is looked up); a handler's `HTTPError` is its answer, a store out of room a 503
    /// (``HTTPError/init(storage:)``), any other error a 500.
    func dispatch(_ request: HTTPRequest, route admitted: Int?) async -> HTTPResponse {
        let found: (index: Int, parameters: [String: String])
        if let admitted, routes.indices.contains(admitted), routes[admitted].method == request.method,
           let parameters = match(routes[admitted].segments, HTTPRouter.segments(request.path)) {
            found = (admitted, parameters)
        } else {
            switch route(request.method, request.path) {
            case .failure(let error):
                tally?.record(route: nil, status: error.status)
                return error.response
            case .success(let route): found = route
            }
        }
        var request = request
        request.parameters = found.parameters
        guard let tally else { return await answer(request, route: found.index) }
        let stopwatch = Stopwatch()
        let response = await answer(request, route: found.index)
        tally.record(route: found.index, status: response.status, seconds: stopwatch.seconds)
        return response
    }

    private func answer(_ request: HTTPRequest, route index: Int) async -> HTTPResponse {
        do {
            return try await routes[index].handler(request)
        } catch let error as HTTPError {
            return error.response
        } catch {
            return (HTTPError(storage: error) ?? HTTPError.internalError(String(describing: error))).response
        }
    }

    /// Why an admin request is refused, if it is: no admin token configured, none given,
    /// or another one (compared in constant time).
    private func adminRefusal(_ authorization: String?) -> HTTPError? {
        guard let adminToken, !adminToken.isEmpty else {
            return HTTPError(status: 403, code: .forbidden, message: "admin routes need an admin_token in the sandbox configuration")
        }
        guard let token = HTTPRequest.bearerToken(authorization) else {
            return .unauthenticated("the admin token is required (Authorization: Bearer ADMIN_TOKEN)")
        }
        return ConstantTime.equal(token, adminToken) ? nil
            : HTTPError(status: 403, code: .forbidden, message: "the admin token is not this sandbox's")
    }

    private func match(_ pattern: [Substring], _ path: [Substring]) -> [String: String]? {
        guard pattern.count == path.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(pattern, path) {
            if expected.hasPrefix(":") {
                parameters[String(expected.dropFirst())] = String(actual)
            } else if expected != actual {
                return nil
            }
        }
        return parameters
    }
}
