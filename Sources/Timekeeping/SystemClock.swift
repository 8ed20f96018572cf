import Dispatch
import Foundation

/// The real time. Its timers are dispatch timers: a cancelled one frees its action at
/// once, where a cancelled `Task.sleep` on Linux keeps its task (and everything it
/// captured) until the deadline would have passed; with long timeouts cut short thousands
/// of times that is memory that only grows (docs/benchmarks.md, sandbox_rss_per_1000_chats).
/// They fire on dispatch's shared queue: an action should be short (resume a task, start
/// one), and nothing may block that queue's few threads (ChildProcess reads on threads of
/// its own for that reason).
///
/// ```swift
/// let timer = SystemClock().schedule(after: 600) { mailbox.expire(id) }
/// timer.cancel()   // the message came first
/// ```
public struct SystemClock: TimeSource {
    public init() {}

    public func now() -> Date { Date() }

    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        let source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + .nanoseconds(ClockDelay.nanoseconds(seconds)))
        source.setEventHandler(handler: action)
        source.resume()
        return ClockTimer { source.cancel() }
    }
}
