import CCAIWire

/// How the SDK retries a call that failed with an error code, said once for every code
/// (``ErrorCode/retry``); ``RetryPolicy`` has the numbers, and docs/sdk-and-sandbox.md
/// lists the rule of each code (a test checks the table against this).
///
/// ```swift
/// ErrorCode.conflict.retry        // .never
/// ErrorCode.unavailable.retry     // .withBackoff
/// ```
public enum RetryRule: String, Sendable, CaseIterable {
    /// Not retried: the same request would get the same answer (a quota, a refusal, a
    /// bad argument, a handler's failure).
    case never
    /// The token is renewed through the delegate and the call made once more, at once;
    /// a second refusal is the answer.
    case onceWithANewToken
    /// Only a rate limit is retried: a 429 whose `Retry-After` (seconds) is at most
    /// ``RetryPolicy/maximumRetryAfter`` and fits the call's budget is waited for; a quota
    /// (a longer `Retry-After`, or none) fails the call at once.
    case whenARateLimitPasses
    /// Tried again after a backoff while the call's budget lasts: idempotent requests and
    /// outgoing messages (their client message id makes a second send harmless).
    case withBackoff

    /// The rule in the words of the docs' table.
    public var summary: String {
        switch self {
        case .never: "never"
        case .onceWithANewToken: "once, at once, after the delegate renews the token"
        case .whenARateLimitPasses:
            "a rate limit only: after its `Retry-After` when that is at most `maximumRetryAfter` (10 s) and within the call's "
                + "budget; a quota (a longer `Retry-After`, or none) never"
        case .withBackoff: "idempotent requests and outgoing messages, after a backoff, within the call's budget"
        }
    }

    /// Whether trying again later may succeed: the `retryable` of an error with a code of
    /// this rule (a refusal the SDK would not retry is not).
    public var isTransient: Bool { self == .withBackoff }
}

extension ErrorCode {
    /// How the SDK retries a call that failed with this code.
    public var retry: RetryRule {
        switch self {
        case .invalidArgument, .notInitialized, .forbidden, .notFound, .conflict, .tooLarge, .cancelled, .internal: .never
        case .unauthenticated: .onceWithANewToken
        case .limitExceeded: .whenARateLimitPasses
        case .unavailable, .timeout: .withBackoff
        }
    }
}
