/// Measures how long something takes on the monotonic clock, for metrics (never for what
/// a simulation decides: that reads a ``TimeSource``).
///
/// ```swift
/// let stopwatch = Stopwatch()
/// try work()
/// histogram.observe(stopwatch.seconds)
/// ```
public struct Stopwatch: Sendable {
    private let started = ContinuousClock.now

    public init() {}

    /// Seconds since the stopwatch was made.
    public var seconds: Double {
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
}
