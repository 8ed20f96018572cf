import Foundation

/// A clock that moves only when told: `advance` runs the timers it passes, in the order
/// of their deadlines, each with the clock set to its deadline. Tests use it so that a
/// 30-second patience is tested in microseconds and never races; simulations use it to
/// run hours in virtual time.
///
/// ```swift
/// let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
/// let sandbox = try Sandbox(clock: clock)
/// await clock.waitForTimers()        // the code under test is asleep
/// clock.advance(by: 31)              // and wakes up 31 seconds later
/// ```
public final class ManualClock: TimeSource, @unchecked Sendable {
    private struct Pending {
        let id: Int
        let deadline: Date
        let action: @Sendable () -> Void
    }

    private let lock = NSLock()
    private var current: Date
    private var pending: [Pending] = []
    private var nextID = 0
    private var watchers: [(condition: @Sendable ([Double]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    private let runDue: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// A clock that reads `start` until it is advanced. Timers scheduled with no delay
    /// are handed to `runningDueTimers` (by default, a global dispatch queue: they run at
    /// once, as a real clock's would; a ``VirtualTime`` runs them in its order).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000),
                runningDueTimers: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = {
                    DispatchQueue.global().async(execute: $0)
                }) {
        current = start
        runDue = runningDueTimers
    }

    public func now() -> Date { lock.withLock { current } }

    /// Timers whose delay has already passed run at once (see `runningDueTimers`); the
    /// others wait for `advance`.
    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        let delay = ClockDelay.clamped(seconds)
        if delay == 0 {
            runDue(action)
            return ClockTimer {}
        }
        let (id, ready) = lock.withLock { () -> (Int, [CheckedContinuation<Void, Never>]) in
            nextID += 1
            pending.append(Pending(id: nextID, deadline: current.addingTimeInterval(delay), action: action))
            return (nextID, takeSatisfiedWatchers())
        }
        ready.forEach { $0.resume() }
        return ClockTimer { [weak self] in self?.remove(id) }
    }

    /// How many timers are waiting for the clock to move.
    public var pendingTimers: Int { lock.withLock { pending.count } }

    /// The deadline of the next timer, if any.
    public var nextDeadline: Date? { lock.withLock { pending.map(\.deadline).min() } }

    /// Returns once at least `count` timers are waiting: the code under test has gone to
    /// sleep, and advancing now wakes it.
    public func waitForTimers(count: Int = 1) async {
        await waitForTimers { $0.count >= count }
    }

    /// Returns once `condition` holds for the waiting timers' delays (seconds from now, to
    /// the microsecond): `{ $0.contains(0.25) }` waits for whatever sleeps a quarter of a
    /// second.
    public func waitForTimers(where condition: @escaping @Sendable (_ delays: [Double]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = lock.withLock { () -> Bool in
                if condition(delays) { return true }
                watchers.append((condition, continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    /// Moves the clock forward by `seconds` (a negative or NaN amount is none), running
    /// each timer it passes.
    public func advance(by seconds: Double) {
        advance(to: now().addingTimeInterval(ClockDelay.clamped(seconds)))
    }

    /// Moves the clock to `date` (never back), running each timer it passes.
    public func advance(to date: Date) {
        while let due = takeNextTimer(until: date) {
            due.action()
        }
        lock.withLock { current = max(current, date) }
    }

    /// Sets the clock to `date`, back or forth, running no timer: those waiting keep their
    /// delays. For a clock that starts once its user knows when (``VirtualTime/begin(at:)``).
    func move(to date: Date) {
        lock.withLock {
            let shift = date.timeIntervalSince(current)
            current = date
            pending = pending.map { Pending(id: $0.id, deadline: $0.deadline.addingTimeInterval(shift), action: $0.action) }
        }
    }

    /// Moves the clock forward by `seconds` one deadline at a time, for code that sleeps
    /// again after each wake-up (a periodic chore): each step first waits until `sleepers`
    /// timers are waiting, then moves to the next deadline, so every wake-up reads the
    /// clock standing at its own time and no period is skipped because its sleep started
    /// late. Returns once `sleepers` timers wait again: the last wake-up's work is done.
    ///
    /// ```swift
    /// let sandbox = try Sandbox(configuration: withChatTimeout, clock: clock)  // 2 chores
    /// await clock.advance(by: 70, stepWhenAsleep: 2)   // idle chats ended at 65 s
    /// ```
    public func advance(by seconds: Double, stepWhenAsleep sleepers: Int) async {
        let target = now().addingTimeInterval(ClockDelay.clamped(seconds))
        while true {
            await waitForTimers(count: sleepers)
            guard let deadline = nextDeadline, deadline <= target else { break }
            advance(to: deadline)
        }
        advance(to: target)
    }

    /// Moves the clock to the next timer's deadline and runs it (and any due with it);
    /// false when no timer is waiting.
    @discardableResult
    public func advanceToNextTimer() -> Bool {
        guard let deadline = nextDeadline else { return false }
        advance(to: deadline)
        return true
    }

    private func takeNextTimer(until date: Date) -> Pending? {
        lock.withLock {
            guard let index = pending.indices.min(by: { pending[$0].deadline < pending[$1].deadline }),
                  pending[index].deadline <= date else { return nil }
            let due = pending.remove(at: index)
            current = max(current, due.deadline)
            return due
        }
    }

    private func remove(_ id: Int) {
        lock.withLock { pending.removeAll { $0.id == id } }
    }

    /// The waiting timers' delays from now; called with the lock held.
    private var delays: [Double] {
        pending.map { ($0.deadline.timeIntervalSince(current) * 1e6).rounded() / 1e6 }
    }

    /// Called with the lock held.
    private func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
        let delays = self.delays
        var ready: [CheckedContinuation<Void, Never>] = []
        watchers.removeAll { watcher in
            guard watcher.condition(delays) else { return false }
            ready.append(watcher.continuation)
            return true
        }
        return ready
    }
}
