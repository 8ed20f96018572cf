import Foundation
import Testing
import Timekeeping

/// The manual clock runs timers in deadline order as it passes them, sleeps end on time
/// or on cancellation, and delays never trap.
@Suite struct ClockTests {
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String] = []
        func add(_ entry: String) { lock.withLock { entries.append(entry) } }
        var all: [String] { lock.withLock { entries } }
    }

    @Test func advancingRunsTheTimersItPassesInDeadlineOrderAtTheirDeadlines() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_000))
        let log = Log()
        let late = clock.schedule(after: 30) { log.add("late at \(clock.now().timeIntervalSince1970)") }
        let early = clock.schedule(after: 10) { log.add("early at \(clock.now().timeIntervalSince1970)") }
        let cancelled = clock.schedule(after: 20) { log.add("cancelled") }
        cancelled.cancel()
        clock.advance(by: 15)
        #expect(log.all == ["early at 1010.0"])
        #expect(clock.now() == Date(timeIntervalSince1970: 1_015) && clock.pendingTimers == 1)
        clock.advance(by: 60)
        #expect(log.all == ["early at 1010.0", "late at 1030.0"])
        #expect(clock.now() == Date(timeIntervalSince1970: 1_075) && clock.pendingTimers == 0)
        _ = (late, early)
    }

    @Test func aReleasedTimerNeverRuns() {
        let clock = ManualClock()
        let log = Log()
        _ = clock.schedule(after: 1) { log.add("ran") }
        #expect(clock.pendingTimers == 0)
        clock.advance(by: 2)
        #expect(log.all.isEmpty)
    }

    @Test func aSleepEndsWhenTheClockPassesItsDeadline() async throws {
        let clock = ManualClock()
        let start = clock.now()
        let sleeper = Task { try await clock.sleep(for: 90); return clock.now() }
        await clock.waitForTimers()
        #expect(clock.nextDeadline == start.addingTimeInterval(90))
        clock.advance(by: 89)
        #expect(clock.pendingTimers == 1, "not yet")
        clock.advance(by: 1)
        #expect(try await sleeper.value == start.addingTimeInterval(90))
    }

    @Test func aCancelledSleepThrowsAtOnceAndLeavesNoTimer() async {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: 3_600) }
        await clock.waitForTimers()
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.pendingTimers == 0)
    }

    @Test func aRepeatingChoreRunsEachPeriodUntilCancelled() async {
        let clock = ManualClock()
        let log = Log()
        let chore = clock.repeating(every: 5) { log.add("ran") }
        for _ in 0..<3 {
            await clock.waitForTimers()
            clock.advance(by: 5)
        }
        await clock.waitForTimers()
        #expect(log.all.count == 3, "each run ends before the next wait starts")
        chore.cancel()
        #expect(clock.pendingTimers == 0, "cancelling stops the wait at once")
        clock.advance(by: 60)
        #expect(log.all.count == 3)
    }

    /// A chore that works for a while after each wake-up is not skipped: every period
    /// runs, each reading its own time, and the last run is over when the advance returns.
    @Test func advancingInStepsRunsEveryPeriodOfASlowChore() async {
        let clock = ManualClock()
        let start = clock.now()
        let log = Log()
        let chore = clock.repeating(every: 5) {
            let woke = clock.now()
            await Task.yield()
            log.add(String(Int(woke.timeIntervalSince(start))))
        }
        await clock.advance(by: 22, stepWhenAsleep: 1)
        #expect(log.all == ["5", "10", "15", "20"])
        #expect(clock.now() == start.addingTimeInterval(22))
        #expect(clock.nextDeadline == start.addingTimeInterval(25))
        chore.cancel()
    }

    @Test func aSystemClockSleepOfNoTimeReturns() async throws {
        try await SystemClock().sleep(for: 0)
        try await SystemClock().sleep(for: -.infinity)
        try await SystemClock().sleep(until: .distantPast)
    }

    @Test func delaysFromOutsideNeverTrap() {
        #expect(ClockDelay.clamped(.nan) == 0 && ClockDelay.clamped(-5) == 0 && ClockDelay.clamped(.infinity) == ClockDelay.maximumSeconds)
        #expect(ClockDelay.nanoseconds(1e300) == Int(ClockDelay.maximumSeconds * 1e9))
        let clock = ManualClock()
        let timer = clock.schedule(after: 1e300) {}
        #expect(clock.nextDeadline == clock.now().addingTimeInterval(ClockDelay.maximumSeconds))
        timer.cancel()
    }
}
