/// Routes requests by method and path pattern (`/queue_menus/:id`) to async handlers.
/// A handler's `HTTPError` becomes its JSON error response; any other error is a 500.
///
/// ```swift
/// var router = HTTPRouter()
/// router.add("GET", "/company") { request in try .json(company) }
/// ```
public struct HTTPRouter: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse

    private struct Route: Sendable {
        var method: String
        var segments: [Substring]
        var maximumBodyBytes: Int
        var handler: Handler
    }

    /// The body a route takes unless it says otherwise: 1 MiB.
    public static let defaultMaximumBodyBytes = 1 << 20

    private var routes: [Route] = []

    public init() {}

    /// Adds a route; a request with a larger body than `maximumBodyBytes` is a 413.
    public mutating func add(_ method: String, _ pattern: String, maximumBodyBytes: Int = defaultMaximumBodyBytes,
                             _ handler: @escaping Handler) {
        routes.append(Route(method: method, segments: HTTPRouter.segments(pattern), maximumBodyBytes: maximumBodyBytes,
                            handler: handler))
    }

    /// The largest body any route takes (the server's own limit).
    public var maximumBodyBytes: Int { routes.map(\.maximumBodyBytes).max() ?? HTTPRouter.defaultMaximumBodyBytes }

    private static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    /// Answers `request`: 404 for an unknown path, 405 for a known path with another method.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        let segments = HTTPRouter.segments(request.path)
        var pathMatched = false
        for route in routes {
            guard let parameters = match(route.segments, segments) else { continue }
            pathMatched = true
            guard route.method == request.method else { continue }
            var request = request
            request.parameters = parameters
            guard request.body.count <= route.maximumBodyBytes else {
                return HTTPError(status: 413, code: "too_large",
                                 message: "the request body is \(request.body.count) bytes; \(request.method) \(request.path) takes at most \(route.maximumBodyBytes)").response
            }
            do {
                return try await route.handler(request)
            } catch let error as HTTPError {
                return error.response
            } catch {
                return HTTPError.internalError(String(describing: error)).response
            }
        }
        if pathMatched {
            return HTTPError(status: 405, code: "invalid_argument",
                             message: "\(request.method) is not allowed on \(request.path)").response
        }
        return HTTPError.notFound("no endpoint \(request.method) \(request.path)").response
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
