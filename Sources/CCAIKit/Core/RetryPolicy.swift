import Foundation

/// How the SDK retries, said once: every call of the SDK has one retry loop
/// (``HTTPClient``'s), with one budget, and reads its numbers here; each error code's
/// ``ErrorCode/Retry`` (``ErrorCode/retry``) says whether a failure is retried at all
/// (docs/sdk-and-sandbox.md, retries).
///
/// - **An ordinary request**'s budget is its timeout: an idempotent one is sent again after
///   a dropped connection or a 502, 503 or 504, up to ``maximumRetries`` times,
///   ``initialBackoff`` seconds first and doubling.
/// - **A 429** is waited for when it is a rate limit: its `Retry-After` at most
///   ``maximumRetryAfter`` and within the call's budget. A longer one (a quota, such as an
///   end user's chats an hour), or none, fails the call at once.
/// - **A refused token** is renewed through the delegate once per call, and the call made
///   once more at once (``reauthentications``), inside the same loop.
/// - **Outgoing messages**' budget is ``messagePatience`` seconds from when they were
///   written; they are tried again 0.25 s apart, doubling to 2 s. The outbox only keeps
///   their order.
/// - **Transcript downloads** to a file are tried ``downloadAttempts`` times in all, 1 s,
///   then 2 s apart.
/// - **The event stream** starts again after a failure (a refused token, an unreachable
///   platform, an error answer): a refused token is renewed at once the first time, then
///   every attempt waits ``streamDelay(afterFailures:jitter:)``: ``streamBackoff`` seconds
///   doubling to ``maximumStreamBackoff``, each less up to half by jitter. An event resets it.
///
/// ```swift
/// let http = HTTPClient(retryPolicy: RetryPolicy(maximumRetries: 1, messagePatience: 5))
/// ```
public struct RetryPolicy: Sendable, Equatable {
    /// Retries of one request at the transport, after the first attempt (default 3).
    public var maximumRetries: Int
    /// Seconds before the transport's first retry; doubled each time (default 0.1).
    public var initialBackoff: TimeInterval
    /// The longest `Retry-After` waited for (default 10 s): a platform cannot park a request
    /// for longer, and a 429 that asks for more is not retried (a quota, not a rate).
    public var maximumRetryAfter: TimeInterval
    /// Renewals of a refused token per call (the seeds' delegate is asked once).
    public let reauthentications = 1
    /// How long an outgoing message waits for the platform, from when it was written,
    /// before its send fails (30 s).
    public var messagePatience: TimeInterval
    /// Attempts of a transcript download, in all (default 3).
    public var downloadAttempts: Int
    /// Seconds before the event stream's first attempt after a failure (default 0.5).
    public var streamBackoff: TimeInterval
    /// The longest wait of the event stream between two attempts (default 30 s).
    public var maximumStreamBackoff: TimeInterval

    public init(maximumRetries: Int = 3, initialBackoff: TimeInterval = 0.1, maximumRetryAfter: TimeInterval = 10,
                messagePatience: TimeInterval = 30, downloadAttempts: Int = 3, streamBackoff: TimeInterval = 0.5,
                maximumStreamBackoff: TimeInterval = 30) {
        self.maximumRetries = maximumRetries
        self.initialBackoff = initialBackoff
        self.maximumRetryAfter = maximumRetryAfter
        self.messagePatience = messagePatience
        self.downloadAttempts = downloadAttempts
        self.streamBackoff = streamBackoff
        self.maximumStreamBackoff = maximumStreamBackoff
    }

    /// The event stream's wait after `failures` failures in a row (1 or more):
    /// ``streamBackoff`` doubled per earlier failure, at most ``maximumStreamBackoff``, times
    /// `jitter` (a factor within 0.5...1, random by default, so that many hosts refused
    /// at once do not come back at once).
    ///
    /// ```swift
    /// RetryPolicy.standard.streamDelay(afterFailures: 3, jitter: 1)   // 2.0
    /// ```
    public func streamDelay(afterFailures failures: Int, jitter: Double = .random(in: 0.5...1)) -> TimeInterval {
        let doubled = streamBackoff * pow(2, Double(min(max(failures - 1, 0), 30)))
        return min(doubled, maximumStreamBackoff) * min(max(jitter, 0.5), 1)
    }

    /// The policy of an SDK that is not told otherwise.
    public static let standard = RetryPolicy()
}
