import CCAIWire
import Foundation

/// What every error the SDK throws says, whatever its type: one of the scripting
/// contract's codes (``ErrorCode``), a message, the HTTP status when the platform
/// answered, and whether trying again later may succeed. The seeds' focused types
/// (``NetworkError``, ``ChatProviderError``, ``CallError``, ``ScreenShareError``) and
/// ``CCAIError`` (the platform's refusals, bad arguments, a module not initialized) all
/// conform: branch on a type where it matters, read these four where it does not.
///
/// ```swift
/// do { try await ccai.chatService!.endChat() }
/// catch ChatProviderError.noCurrentChat { showStartButton() }
/// catch let error as any SDKError where error.retryable { retryLater() }
/// ```
public protocol SDKError: Error, Sendable, LocalizedError, CustomStringConvertible {
    var code: ErrorCode { get }
    var message: String { get }
    /// The HTTP status, when the platform answered.
    var status: Int? { get }
    /// Whether trying again later may succeed.
    var retryable: Bool { get }
}

extension SDKError {
    public var status: Int? { nil }
    public var retryable: Bool { false }
    public var errorDescription: String? { message }
    public var description: String { "\(message) [\(code.rawValue)]" }
}

/// The platform could not be talked to (seed 000's `NetworkError`): no answer in time,
/// no connection, an answer larger than allowed, or a request the transport could not
/// make. The first two are worth retrying, and the SDK retries them where the seeds say
/// it does (messages, transcript downloads, the event stream).
///
/// ```swift
/// catch NetworkError.unavailable(let operation, let reason) { banner("offline: \(reason)") }
/// ```
public enum NetworkError: SDKError, Equatable {
    /// No answer within `seconds` (`timeout`, retryable).
    case timedOut(operation: String?, seconds: TimeInterval)
    /// The platform could not be reached or dropped the connection (`unavailable`, retryable).
    case unavailable(operation: String?, reason: String)
    /// The answer was larger than the endpoint allows; the transfer was aborted (`too_large`).
    case responseTooLarge(operation: String?, limit: Int)
    /// The transport could not make the request (a malformed URL, say: `internal`).
    case failed(operation: String?, reason: String)

    /// The error of a transport failure; `operation` (`"GET /company"`) names what was called.
    init(_ error: TransportError, operation: String?) {
        switch error {
        case .timeout(let seconds): self = .timedOut(operation: operation, seconds: seconds)
        case .unavailable(let reason): self = .unavailable(operation: operation, reason: reason)
        case .tooLarge(let limit): self = .responseTooLarge(operation: operation, limit: limit)
        case .failed(let reason): self = .failed(operation: operation, reason: reason)
        }
    }

    public var code: ErrorCode {
        switch self {
        case .timedOut: .timeout
        case .unavailable: .unavailable
        case .responseTooLarge: .tooLarge
        case .failed: .internal
        }
    }

    public var message: String {
        switch self {
        case .timedOut(_, let seconds): TransportError.timeout(seconds).description
        case .unavailable(_, let reason): TransportError.unavailable(reason).description
        case .responseTooLarge(let operation, let limit):
            "the answer\(operation.map { " to \($0)" } ?? "") is larger than its limit of \(limit) bytes: the transfer was aborted"
        case .failed(_, let reason): reason
        }
    }

    public var retryable: Bool {
        switch self {
        case .timedOut, .unavailable: true
        case .responseTooLarge, .failed: false
        }
    }
}

/// The chat provider has no chat to act on as asked (seed 000's `ChatProviderError`).
///
/// ```swift
/// catch ChatProviderError.chatEnded(let id) { offerNewChat(after: id) }
/// ```
public enum ChatProviderError: SDKError, Equatable {
    /// No chat was started or resumed (`not_found`).
    case noCurrentChat
    /// The chat has ended and cannot be resumed (`conflict`).
    case chatEnded(chatId: Int)

    public var code: ErrorCode {
        switch self {
        case .noCurrentChat: .notFound
        case .chatEnded: .conflict
        }
    }

    public var message: String {
        switch self {
        case .noCurrentChat: "no current chat; start or resume one"
        case .chatEnded(let id): "chat \(id) has ended and cannot be resumed"
        }
    }
}

/// A call control or request the SDK refuses before asking the platform (seed 002's call
/// errors); what the platform refuses (a second call, a queue closed) is a ``CCAIError``
/// with its status.
///
/// ```swift
/// catch CallError.invalidPhoneNumber { highlightPhoneField() }
/// ```
public enum CallError: SDKError, Equatable {
    /// No call was started or resumed (`not_found`).
    case noCurrentCall
    /// The current call is over (`not_found`): start or resume another.
    case noCallInProgress(callId: Int, status: CallStatus)
    /// A scheduled call's number is not in E.164 form (`invalid_argument`).
    case invalidPhoneNumber(String)
    /// An interruption's length is outside 0 to 86,400 seconds (`invalid_argument`).
    case invalidInterruption(seconds: Double)

    public var code: ErrorCode {
        switch self {
        case .noCurrentCall, .noCallInProgress: .notFound
        case .invalidPhoneNumber, .invalidInterruption: .invalidArgument
        }
    }

    public var message: String {
        switch self {
        case .noCurrentCall: "no current call; start or resume one"
        case .noCallInProgress(let id, let status): "no call in progress (call \(id) has \(status.rawValue)); start or resume one"
        case .invalidPhoneNumber(let number):
            "phone_number must be in E.164 form (a '+', the country code and the number, up to 15 digits, like "
                + "+14155550123), got '\(String(String.UnicodeScalarView(number.unicodeScalars.prefix(40))))'"
        case .invalidInterruption(let seconds): "seconds must be from 0 to 86400, got \(seconds)"
        }
    }
}

/// Screen sharing cannot go on (seed 002's `ScreenShareError`): the app throws
/// ``serviceNotAvailable`` itself when `screenShareService` is nil, as the seed shows,
/// and the SDK throws ``noSession`` for a session it never created.
///
/// ```swift
/// guard let screenShare = ccai.screenShareService else { throw ScreenShareError.serviceNotAvailable }
/// ```
public enum ScreenShareError: SDKError, Equatable {
    /// Screen sharing is not initialized (``CCAI/initializeScreenShare(options:)``):
    /// `not_initialized`.
    case serviceNotAvailable
    /// No screen share session was created (`not_found`).
    case noSession

    public var code: ErrorCode {
        switch self {
        case .serviceNotAvailable: .notInitialized
        case .noSession: .notFound
        }
    }

    public var message: String {
        switch self {
        case .serviceNotAvailable: "screen sharing is not available: call initializeScreenShare(options:) first"
        case .noSession: "no screen share session; create one first"
        }
    }
}
