import CCAIWire
import Foundation

/// An SDK call that failed: one of the scripting contract's codes (``ErrorCode``), a
/// message, the HTTP status when the platform answered, and whether to retry.
///
/// ```swift
/// do { _ = try await ccai.companyService?.get() }
/// catch let error as CCAIError where error.code == .unauthenticated { ... }
/// ```
public struct CCAIError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    /// The HTTP status, when the platform answered.
    public var status: Int?
    /// Whether trying again later may succeed.
    public var retryable: Bool

    public init(code: ErrorCode, message: String, status: Int? = nil, retryable: Bool = false) {
        self.code = code
        self.message = message
        self.status = status
        self.retryable = retryable
    }

    public var errorDescription: String? { message }
    public var description: String { "\(message) [\(code.rawValue)]" }

    public static func notInitialized(_ what: String) -> CCAIError {
        CCAIError(code: .notInitialized, message: "\(what) is not initialized: call initialize(options:) first")
    }

    public static func invalidArgument(_ message: String) -> CCAIError {
        CCAIError(code: .invalidArgument, message: message)
    }

    /// The error of a transport failure; `operation` (`"GET /company"`) names what was called.
    init(_ error: TransportError, operation: String? = nil) {
        switch error {
        case .timeout: self.init(code: .timeout, message: error.description, retryable: true)
        case .unavailable: self.init(code: .unavailable, message: error.description, retryable: true)
        case .failed: self.init(code: .internal, message: error.description)
        case .tooLarge(let limit):
            self.init(code: .tooLarge, message: "the answer\(operation.map { " to \($0)" } ?? "") is larger than its limit of "
                      + "\(limit) bytes: the transfer was aborted")
        }
    }

    /// The error of a non-2xx answer (`{"error": {"code", "message"}}` when there is one).
    init(status: Int, body: Data) {
        struct Body: Decodable {
            struct Detail: Decodable { var code: ErrorCode; var message: String }
            var error: Detail
        }
        let detail = try? JSONDecoder().decode(Body.self, from: body).error
        let code = detail?.code ?? ErrorCode(httpStatus: status)
        self.init(code: code, message: detail?.message ?? "the platform answered HTTP \(status)", status: status,
                  retryable: status >= 500 || status == 429)
    }
}
