import Dispatch
import Foundation

/// Runs an action once after a delay unless cancelled first, for timeouts that usually do
/// not fire. Cancelling frees the timer and its action at once, where a cancelled
/// `Task.sleep` on Linux keeps its task (and everything it captured) until the deadline
/// would have passed: with long timeouts cut short thousands of times, that is memory
/// that only grows (docs/benchmarks.md, sandbox_rss_per_1000_chats).
///
/// ```swift
/// let timer = OneShotTimer(after: 600) { mailbox.expire(id) }
/// timer.cancel()   // the message came first
/// ```
public final class OneShotTimer: @unchecked Sendable {
    private let source: DispatchSourceTimer

    /// Schedules `action` on a global queue after `seconds` (clamped like every script
    /// duration, ``LuaDuration``).
    public init(after seconds: Double, _ action: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + .nanoseconds(Int(clamping: LuaDuration.nanoseconds(seconds: seconds))))
        source.setEventHandler(handler: action)
        source.resume()
    }

    /// Stops the timer if it has not fired; its action is released.
    public func cancel() {
        source.cancel()
    }

    deinit { source.cancel() }
}
