import Foundation
import Timekeeping

/// Another clock's time, shifted so that it read `start` when the offset clock was made:
/// the business clock of a configuration with `clock_start`. Its timers are the base
/// clock's.
///
/// ```swift
/// let business = OffsetClock(base: SystemClock(), start: ISO8601DateFormatter().date(from: "2026-12-07T18:30:00Z")!)
/// ```
struct OffsetClock: TimeSource {
    private let base: any TimeSource
    private let offset: TimeInterval

    init(base: any TimeSource, start: Date) {
        self.base = base
        offset = start.timeIntervalSince(base.now())
    }

    func now() -> Date { base.now().addingTimeInterval(offset) }

    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        base.schedule(after: seconds, action)
    }
}
