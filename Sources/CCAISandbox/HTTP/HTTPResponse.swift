import CCAIWire
import Foundation

/// An HTTP response to send.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
    /// For event streams: what writes the events (the stream ends when it returns).
    public var stream: (@Sendable (HTTPEventStream) async -> Void)?

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/event-stream` response whose events `write` sends.
    public static func eventStream(_ write: @escaping @Sendable (HTTPEventStream) async -> Void) -> HTTPResponse {
        var response = HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"])
        response.stream = write
        return response
    }

    /// The headers of the pages the binary serves itself (the sandbox's console, a run's
    /// dashboard): their own script, styles and requests, nothing else, never framed.
    public static let pageHeaders = [
        "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    ]

    /// Such a page, or its script or styles: `text` of the media `type`, under ``pageHeaders``.
    public static func page(_ text: String, type: String) -> HTTPResponse {
        var response = HTTPResponse(status: 200, headers: pageHeaders, body: Data(text.utf8))
        response.headers["Content-Type"] = type + "; charset=utf-8"
        return response
    }

    /// A JSON response of `value` with snake_case keys.
    public static func json<Value: Encodable>(_ value: Value, status: Int = 200) throws -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: try encoder.encode(value))
    }

    /// `204 No Content`.
    public static let noContent = HTTPResponse(status: 204)

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

/// An error answered as `{"error": {"code": ..., "message": ...}}` with its status (the
/// code's own, ``ErrorCode/httpStatus``, unless a route says otherwise: a 405 is an
/// `invalid_argument`).
public struct HTTPError: Error, Equatable, Sendable {
    public var status: Int
    public var code: ErrorCode
    public var message: String
    /// Headers the answer carries (`Allow` of a 405, `Retry-After` of a 429).
    public var headers: [String: String]

    public init(status: Int? = nil, code: ErrorCode, message: String, headers: [String: String] = [:]) {
        self.status = status ?? code.httpStatus
        self.code = code
        self.message = message
        self.headers = headers
    }

    public static func badRequest(_ message: String) -> HTTPError {
        HTTPError(code: .invalidArgument, message: message)
    }

    public static func unauthenticated(_ message: String) -> HTTPError {
        HTTPError(code: .unauthenticated, message: message)
    }

    public static func forbidden(_ message: String) -> HTTPError {
        HTTPError(code: .forbidden, message: message)
    }

    public static func notFound(_ message: String) -> HTTPError {
        HTTPError(code: .notFound, message: message)
    }

    public static func conflict(_ message: String) -> HTTPError {
        HTTPError(code: .conflict, message: message)
    }

    /// A 429 `limit_exceeded` with `Retry-After` (whole seconds, at least 1).
    public static func limitExceeded(_ message: String, retryAfter seconds: Double) -> HTTPError {
        HTTPError(code: .limitExceeded, message: message,
                  headers: ["Retry-After": String(max(1, Checked.truncated(seconds.rounded(.up)) ?? 1))])
    }

    public static func internalError(_ message: String) -> HTTPError {
        HTTPError(code: .internal, message: message)
    }

    /// The response carrying this error.
    public var response: HTTPResponse {
        var response = (try? HTTPResponse.json(ErrorResponse(code: code, message: message), status: status))
            ?? HTTPResponse(status: status)
        for (name, value) in headers { response.headers[name] = value }
        return response
    }
}
