import Foundation
import Synchronization

/// Where a component reads the time and waits for it: the SDK (outbox, retries, event
/// stream reconnects), the Lua scheduler (`ccai.sleep`, `wait_for` timeouts, budgets) and
/// the sandbox (business hours, token expiry, timeouts) take one, so that a test moves time
/// with a ``ManualClock`` instead of sleeping.
///
/// A clock gives the wall time and runs timers; `sleep` is built on the timers.
///
/// ```swift
/// let clock: any TimeSource = SystemClock()
/// let timer = clock.schedule(after: 30) { print("30 seconds later") }
/// try await clock.sleep(for: 0.25)
/// timer.cancel()
/// ```
public protocol TimeSource: Sendable {
    /// The current time.
    func now() -> Date

    /// Runs `action` once, `seconds` from now (a negative or NaN delay is no delay, one
    /// past ``ClockDelay/maximumSeconds`` is that long), unless the returned timer is
    /// cancelled or released first.
    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> ClockTimer
}

extension TimeSource {
    /// Suspends the calling task for `seconds`; throws `CancellationError` at once when
    /// the task is cancelled, and the timer goes with it.
    public func sleep(for seconds: Double) async throws {
        try Task.checkCancellation()
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                sleeper.start(continuation)
                sleeper.hold(schedule(after: seconds) { sleeper.finish(nil) })
            }
        } onCancel: {
            sleeper.finish(CancellationError())
        }
    }

    /// Suspends the calling task until `deadline` (no wait if it has passed).
    public func sleep(until deadline: Date) async throws {
        try await sleep(for: deadline.timeIntervalSince(now()))
    }
}

/// A scheduled action; cancelling it (or releasing the last reference) stops it if it has
/// not run, and frees what it captured at once.
public final class ClockTimer: Sendable {
    private let stop: Mutex<(@Sendable () -> Void)?>

    /// A timer that `stop` cancels; clocks make these.
    public init(stop: @escaping @Sendable () -> Void) {
        self.stop = Mutex(stop)
    }

    /// Stops the timer if it has not fired; calling it again does nothing.
    public func cancel() {
        let stop = self.stop.withLock { stop -> (@Sendable () -> Void)? in
            defer { stop = nil }
            return stop
        }
        stop?()
    }

    deinit { cancel() }
}

/// Delays as timers take them: never trapping, never negative, at most 100 years.
public enum ClockDelay {
    /// The longest delay: 100 years.
    public static let maximumSeconds: Double = 100 * 365 * 86_400

    /// `seconds` clamped to `0...maximumSeconds` (NaN is 0).
    public static func clamped(_ seconds: Double) -> Double {
        guard seconds > 0 else { return 0 }
        return min(seconds, maximumSeconds)
    }

    /// `seconds` as whole nanoseconds, clamped.
    public static func nanoseconds(_ seconds: Double) -> Int {
        Int(clamped(seconds) * 1e9)
    }
}

/// One `sleep`: resumed once, by its timer or by cancellation, whichever comes first.
private final class Sleeper: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Error>?
    private var timer: ClockTimer?
    private var outcome: Error??

    func start(_ continuation: CheckedContinuation<Void, Error>) {
        let early = lock.withLock { () -> Error?? in
            if outcome == nil { self.continuation = continuation }
            return outcome
        }
        if let early { resume(continuation, early) }
    }

    func hold(_ timer: ClockTimer) {
        let done = lock.withLock { () -> Bool in
            if outcome == nil { self.timer = timer }
            return outcome != nil
        }
        if done { timer.cancel() }
    }

    func finish(_ error: Error?) {
        let (continuation, timer) = lock.withLock { () -> (CheckedContinuation<Void, Error>?, ClockTimer?) in
            guard outcome == nil else { return (nil, nil) }
            outcome = .some(error)
            defer { self.continuation = nil; self.timer = nil }
            return (self.continuation, self.timer)
        }
        timer?.cancel()
        if let continuation { resume(continuation, error) }
    }

    private func resume(_ continuation: CheckedContinuation<Void, Error>, _ error: Error?) {
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
}

extension TimeSource {
    /// Runs `action` every `seconds`, each time `seconds` after the last run ended, until
    /// the returned timer is cancelled or released.
    ///
    /// ```swift
    /// let chore = clock.repeating(every: 60) { await store.prune() }
    /// ```
    public func repeating(every seconds: Double, _ action: @escaping @Sendable () async -> Void) -> ClockTimer {
        repeating(after: seconds) {
            await action()
            return seconds
        }
    }

    /// Runs `action` `first` seconds from now, then again each time as many seconds after a
    /// run as that run returned, until the returned timer is cancelled or released: a chore
    /// with nothing to do may wait longer (in virtual time, idle hours then cost a few runs,
    /// not thousands).
    ///
    /// ```swift
    /// let chore = clock.repeating(after: 5) { await queue.isEmpty ? 3600 : 5 }
    /// ```
    public func repeating(after first: Double, _ action: @escaping @Sendable () async -> Double) -> ClockTimer {
        let task = Task {
            var wait = first
            while true {
                do { try await sleep(for: wait) } catch { return }
                wait = await action()
            }
        }
        return ClockTimer { task.cancel() }
    }
}
