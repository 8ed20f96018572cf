import CCAISandbox
import Foundation

/// A clock the test moves: the sandbox's time stands still until `advance`.
///
/// ```swift
/// let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
/// let sandbox = try Sandbox(clock: clock)
/// clock.advance(3_600)
/// ```
public final class ManualClock: SandboxClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ date: Date) { current = date }

    public func now() -> Date { lock.withLock { current } }

    public func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}
