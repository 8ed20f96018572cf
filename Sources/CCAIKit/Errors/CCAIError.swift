import Foundation

/// An SDK call that failed. `code` is one of the scripting contract's codes
/// (`invalid_argument`, `not_initialized`, `unauthenticated`, `forbidden`, `not_found`,
/// `conflict`, `too_large`, `unavailable`, `timeout`, `cancelled`, `internal`).
///
/// ```swift
/// do { _ = try await ccai.companyService?.get() }
/// catch let error as CCAIError where error.code == "unauthenticated" { ... }
/// ```
public struct CCAIError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
    public var code: String
    public var message: String
    /// The HTTP status, when the platform answered.
    public var status: Int?
    /// Whether trying again later may succeed.
    public var retryable: Bool

    public init(code: String, message: String, status: Int? = nil, retryable: Bool = false) {
        self.code = code
        self.message = message
        self.status = status
        self.retryable = retryable
    }

    public var errorDescription: String? { message }
    public var description: String { "\(message) [\(code)]" }

    public static func notInitialized(_ what: String) -> CCAIError {
        CCAIError(code: "not_initialized", message: "\(what) is not initialized: call initialize(options:) first")
    }

    public static func invalidArgument(_ message: String) -> CCAIError {
        CCAIError(code: "invalid_argument", message: message)
    }

    /// The error of a transport failure.
    init(_ error: TransportError) {
        switch error {
        case .timeout: self.init(code: "timeout", message: error.description, retryable: true)
        case .unavailable: self.init(code: "unavailable", message: error.description, retryable: true)
        case .failed: self.init(code: "internal", message: error.description)
        }
    }

    /// The error of a non-2xx answer (`{"error": {"code", "message"}}` when there is one).
    init(status: Int, body: Data) {
        struct Body: Decodable {
            struct Detail: Decodable { var code: String; var message: String }
            var error: Detail
        }
        let detail = try? JSONDecoder().decode(Body.self, from: body).error
        let code = detail?.code ?? CCAIError.code(forStatus: status)
        self.init(code: code, message: detail?.message ?? "the platform answered HTTP \(status)", status: status,
                  retryable: status >= 500 || status == 429)
    }

    static func code(forStatus status: Int) -> String {
        switch status {
        case 400, 422: return "invalid_argument"
        case 401: return "unauthenticated"
        case 403: return "forbidden"
        case 404: return "not_found"
        case 409: return "conflict"
        case 413: return "too_large"
        case 408, 504: return "timeout"
        case 502, 503: return "unavailable"
        default: return "internal"
        }
    }
}
