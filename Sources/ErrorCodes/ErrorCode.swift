/// The error codes of the scripting contract (docs/lua-runtime.md, errors), shared by every layer:
/// the Lua runtime's error values, the SDK's `CCAIError` and the sandbox's HTTP errors all
/// carry one, and its HTTP status is said here once. The module sits below them all;
/// CCAIWire re-exports it.
///
/// ```swift
/// ErrorCode.conflict.httpStatus            // 409
/// ErrorCode(httpStatus: 413)               // .tooLarge
/// ```
public enum ErrorCode: String, Codable, CaseIterable, Sendable {
    /// A bad argument or request: the message names it and what was expected.
    case invalidArgument = "invalid_argument"
    /// A module used before it was initialized (chat before `initializeChat`).
    case notInitialized = "not_initialized"
    case unauthenticated
    case forbidden
    case notFound = "not_found"
    /// The state does not allow it (a chat in progress already, a final smart action).
    case conflict
    /// Over an attachment's or a body's size limit.
    case tooLarge = "too_large"
    /// Over a budget or a quota (a Lua state's, an end user's rate).
    case limitExceeded = "limit_exceeded"
    /// The platform is down or unreachable; worth retrying.
    case unavailable
    case timeout
    case cancelled
    case `internal`

    /// The HTTP status the platform answers this code with.
    public var httpStatus: Int {
        switch self {
        case .invalidArgument: return 400
        case .unauthenticated: return 401
        case .forbidden: return 403
        case .notFound: return 404
        case .conflict: return 409
        case .tooLarge: return 413
        case .limitExceeded: return 429
        case .unavailable: return 503
        case .timeout: return 504
        case .notInitialized, .cancelled, .internal: return 500
        }
    }

    /// How the SDK retries a call refused with a code: said once here, for the SDK's retry
    /// loops and for the table of docs/sdk-and-sandbox.md (a test holds the two together).
    public enum Retry: String, Sendable, CaseIterable {
        /// Never: asking again gets the same answer.
        case never
        /// In the call's one retry loop (the transport's, for an idempotent request; the
        /// outbox's, for a message), while the retry policy's budget lasts.
        case transient
        /// Once, after the token is renewed through the delegate.
        case afterRenewal
        /// Only a rate limit whose `Retry-After` fits the call's timeout (and at most the
        /// policy's longest wait, 10 s); a quota (an hourly or daily limit) never.
        case rateLimitOnly

        /// The cell of the docs' table that says it.
        public var summary: String {
            switch self {
            case .never: return "never"
            case .transient: return "yes, within the call's one retry loop"
            case .afterRenewal: return "once, after the token is renewed"
            case .rateLimitOnly: return "only a short rate limit (its Retry-After fits), never a quota"
            }
        }
    }

    /// How the SDK retries a call refused with this code.
    public var retry: Retry {
        switch self {
        case .unavailable, .timeout: return .transient
        case .unauthenticated: return .afterRenewal
        case .limitExceeded: return .rateLimitOnly
        case .invalidArgument, .notInitialized, .forbidden, .notFound, .conflict, .tooLarge, .cancelled, .internal: return .never
        }
    }

    /// The code of an HTTP status that came without one.
    public init(httpStatus status: Int) {
        switch status {
        case 400, 405, 414, 422, 431: self = .invalidArgument
        case 401: self = .unauthenticated
        case 403: self = .forbidden
        case 404: self = .notFound
        case 409: self = .conflict
        case 413: self = .tooLarge
        case 429: self = .limitExceeded
        case 408, 504: self = .timeout
        case 502, 503: self = .unavailable
        default: self = .internal
        }
    }
}
