import Foundation

/// What a person changes in a run while it goes on (the controls of `ccai run
/// --dashboard`): arrivals paused, a scenario's arrival rate, a scenario's VU target. The
/// executors read it between iterations and wake when it changes.
///
/// - Paused, an open model's arrivals that come due start no iteration: each is counted in
///   `dropped_iterations` with the reason `paused`, so that iterations and dropped ones
///   still add up to the arrivals planned. A closed model's VUs finish the iteration they
///   are in and wait before the next.
/// - A new arrival rate holds from the moment it is set to the scenario's end, flat (a
///   ramp's later stages are replaced): the plan is what was planned until then and the new
///   rate since.
/// - A VU target holds until changed again: VUs above it finish their iteration and wait;
///   below it they take part again, up to the VUs the scenario plans (its `vus`, or its
///   stages' highest target).
///
/// ```swift
/// let control = LiveControl()
/// runner.control = control
/// control.setPaused(true)                        // from the dashboard's Pause button
/// control.setRate(120, scenario: "chatters")     // arrivals per time unit
/// ```
public final class LiveControl: @unchecked Sendable {
    /// The controls as they stand.
    public struct State: Sendable, Equatable {
        public var paused = false
        /// Arrival rates set, in arrivals per the scenario's time unit, by scenario name.
        public var rates: [String: Double] = [:]
        /// VU targets set, by scenario name.
        public var vuTargets: [String: Int] = [:]
        /// Counts the changes.
        public var generation = 0
    }

    private let lock = NSLock()
    private var state = State()
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var lastWaiter = 0

    public init() {}

    /// The controls now.
    public var current: State { lock.withLock { state } }

    public func setPaused(_ paused: Bool) { change { $0.paused = paused } }

    /// Sets `scenario`'s arrival rate (arrivals per its time unit, not negative).
    public func setRate(_ rate: Double, scenario: String) { change { $0.rates[scenario] = max(0, rate) } }

    /// Sets `scenario`'s VU target (not negative).
    public func setVUTarget(_ target: Int, scenario: String) { change { $0.vuTargets[scenario] = max(0, target) } }

    private func change(_ body: (inout State) -> Void) {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            body(&state)
            state.generation += 1
            defer { waiters = [:] }
            return Array(waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns once a change comes after `generation` (at once if one has), or the task is
    /// cancelled.
    func changed(after generation: Int) async {
        let id = lock.withLock { () -> Int in
            lastWaiter += 1
            return lastWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock {
                    if state.generation > generation || Task.isCancelled { return true }
                    waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            lock.withLock { waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
