import CCAIWire
import Foundation

/// How one kind of call is retried: its budget and its backoff, from ``RetryPolicy``'s
/// numbers (``RetryPolicy/request(timeout:)``, ``RetryPolicy/message(writtenAt:)``,
/// ``RetryPolicy/download(timeout:)``). A call has one loop (``HTTPClient``'s), which
/// reads it.
struct RetrySchedule: Sendable, Equatable {
    /// Seconds from ``start`` (or the call's first attempt) past which no retry begins:
    /// the caller's timeout, or an outgoing message's patience.
    var budget: TimeInterval
    /// When the budget started, if before the first attempt (a message queued behind
    /// another waits on its own patience).
    var start: Date?
    /// Attempts in all.
    var attempts: Int
    /// The wait before the first retry of a failure that may pass, doubled at each retry
    /// up to ``longestBackoff``.
    var firstBackoff: TimeInterval
    var longestBackoff: TimeInterval
    /// Whether failures that may pass are retried whatever the request's method (an
    /// outgoing message, whose client id makes a second send harmless), or for
    /// idempotent requests only.
    var retriesEveryMethod = false

    /// The backoff before attempt `attempt` (2 or more).
    func backoff(before attempt: Int) -> TimeInterval {
        min(firstBackoff * pow(2, Double(min(max(attempt - 2, 0), 30))), longestBackoff)
    }
}

extension RetryPolicy {
    /// An ordinary request: within its timeout, ``maximumRetries`` retries after
    /// ``initialBackoff`` doubling.
    func request(timeout: TimeInterval) -> RetrySchedule {
        RetrySchedule(budget: timeout, attempts: maximumRetries + 1, firstBackoff: initialBackoff, longestBackoff: .infinity)
    }

    /// An outgoing message written at `written`: retried for ``messagePatience`` from
    /// then, 0.25 s apart doubling to 2 s.
    func message(writtenAt written: Date) -> RetrySchedule {
        RetrySchedule(budget: messagePatience, start: written, attempts: .max, firstBackoff: 0.25, longestBackoff: 2,
                      retriesEveryMethod: true)
    }

    /// A transcript download saved to a file: ``downloadAttempts`` in all, 1 s then 2 s
    /// apart, within its request's timeout.
    func download(timeout: TimeInterval) -> RetrySchedule {
        RetrySchedule(budget: timeout, attempts: downloadAttempts, firstBackoff: 1, longestBackoff: .infinity)
    }
}

/// One call's retries as they go: after each failure, what the code's ``ErrorCode/Retry`` and
/// the schedule's budget allow next.
///
/// ```swift
/// var retries = CallRetries(schedule: policy.request(timeout: 30), policy: policy, start: now,
///                           isIdempotent: true, canRenewToken: false)
/// retries.next(after: .unavailable, retryAfter: nil, now: now)   // .wait(0.1)
/// ```
struct CallRetries {
    enum Next: Equatable {
        /// Renew the token and try again at once.
        case renewToken
        /// Try again after these seconds.
        case wait(TimeInterval)
        /// The failure is the call's answer.
        case fail
    }

    /// What a call does after an attempt (``step(after:now:)``).
    enum Step: Equatable {
        /// The attempt's outcome is the call's: its 2xx answer, or the failure.
        case answer
        /// Try again at once, with a renewed token (``isRenewing``).
        case again
        /// Try again after these seconds.
        case wait(TimeInterval)
    }

    let schedule: RetrySchedule
    let policy: RetryPolicy
    let deadline: Date
    let isIdempotent: Bool
    let canRenewToken: Bool
    private(set) var attempts = 1
    private var renewals = 0
    /// Attempts sent so far, renewals included.
    private(set) var sent = 0
    /// Whether the next attempt follows a refused token (its token is to be renewed).
    private(set) var isRenewing = false

    init(schedule: RetrySchedule, policy: RetryPolicy, start: Date, isIdempotent: Bool, canRenewToken: Bool) {
        self.schedule = schedule
        self.policy = policy
        deadline = (schedule.start ?? start).addingTimeInterval(schedule.budget)
        self.isIdempotent = isIdempotent
        self.canRenewToken = canRenewToken
    }

    /// Seconds from `now` to the call's deadline (negative past it).
    func timeLeft(at now: Date) -> TimeInterval { deadline.timeIntervalSince(now) }

    /// What follows an attempt's `outcome` at `now`: a 2xx answer is the call's; after any
    /// other, ``next(after:retryAfter:now:)`` decides from its code. Out of line: the call's
    /// frame keeps only what the loop needs while an attempt is in flight.
    @inline(never)
    mutating func step(after outcome: Result<HTTPClientResponse, TransportError>, now: Date) -> Step {
        sent += 1
        let next: Next
        switch outcome {
        case .success(let response):
            guard !(200..<300).contains(response.status) else { return .answer }
            next = self.next(after: CCAIError(status: response.status, body: response.body).code,
                             retryAfter: response.headers["retry-after"], now: now)
        case .failure(let error):
            next = self.next(after: NetworkError(error, operation: nil).code, retryAfter: nil, now: now)
        }
        isRenewing = next == .renewToken
        switch next {
        case .fail: return .answer
        case .renewToken: return .again
        case .wait(let seconds): return .wait(seconds)
        }
    }

    /// What follows a failure with `code` (a 429's `Retry-After` header as it came), at `now`.
    mutating func next(after code: ErrorCode, retryAfter: String?, now: Date) -> Next {
        switch code.retry {
        case .never:
            return .fail
        case .afterRenewal:
            guard canRenewToken, renewals < policy.reauthentications else { return .fail }
            renewals += 1
            return .renewToken
        case .rateLimitOnly:
            guard let seconds = retryAfter.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }), seconds >= 0,
                  seconds <= policy.maximumRetryAfter else { return .fail }
            return wait(seconds, now: now)
        case .transient:
            guard isIdempotent || schedule.retriesEveryMethod else { return .fail }
            return wait(schedule.backoff(before: attempts + 1), now: now)
        }
    }

    /// A wait of `seconds`, if another attempt is left and it would begin before the
    /// deadline (with time left to be answered).
    private mutating func wait(_ seconds: TimeInterval, now: Date) -> Next {
        guard attempts < schedule.attempts, now.addingTimeInterval(seconds) < deadline else { return .fail }
        attempts += 1
        return .wait(seconds)
    }
}
