import CCAIWire
import Foundation

/// An SDK call that failed where none of the focused types fits (``SDKError``): the
/// platform's refusal (its status and code), a bad argument, a module not initialized.
///
/// ```swift
/// do { _ = try await ccai.companyService?.get() }
/// catch let error as CCAIError where error.code == .unauthenticated { ... }
/// ```
public struct CCAIError: SDKError, Equatable {
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

    public static func notInitialized(_ what: String) -> CCAIError {
        CCAIError(code: .notInitialized, message: "\(what) is not initialized: call initialize(options:) first")
    }

    public static func invalidArgument(_ message: String) -> CCAIError {
        CCAIError(code: .invalidArgument, message: message)
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
                  retryable: code.retry.isTransient)
    }
}
