import Foundation
import Testing
import Timekeeping

/// A simulation stepped by hand (never installed: the test process keeps its executor):
/// work runs in the order it was handed over, and the clock moves only when no work is
/// left.
@Suite struct VirtualTimeTests {
    typealias Log = ClockTests.Log

    @Test func workRunsInOrderAndTheClockWaitsForAllOfIt() {
        let simulation = VirtualTime(start: Date(timeIntervalSince1970: 1_000))
        let clock = simulation.clock
        let log = Log()
        let timer = clock.schedule(after: 60) { log.add("timer at \(clock.now().timeIntervalSince1970)") }
        simulation.submit {
            log.add("first at \(clock.now().timeIntervalSince1970)")
            // Work that makes more work: the clock waits for that too.
            simulation.submit { log.add("third at \(clock.now().timeIntervalSince1970)") }
        }
        simulation.submit { log.add("second at \(clock.now().timeIntervalSince1970)") }
        #expect(simulation.step())
        #expect(log.all == ["first at 1000.0", "second at 1000.0", "third at 1000.0", "timer at 1060.0"])
        #expect(!simulation.step(), "nothing left: no work, no timer")
        _ = timer
    }

    @Test func timersDueNowRunInTurnWithTheWork() {
        let simulation = VirtualTime(start: Date(timeIntervalSince1970: 0))
        let log = Log()
        simulation.submit { log.add("work") }
        _ = simulation.clock.schedule(after: 0) { log.add("due now") }
        simulation.submit { log.add("more work") }
        simulation.runUntilIdle()
        #expect(log.all == ["work", "due now", "more work"])
        #expect(simulation.clock.now() == Date(timeIntervalSince1970: 0))
    }

    @Test func timersAtTheSameInstantRunInTheOrderTheyWereSet() {
        let simulation = VirtualTime(start: Date(timeIntervalSince1970: 0))
        let log = Log()
        let timers = (1...5).map { index in simulation.clock.schedule(after: 10) { log.add("\(index)") } }
        simulation.runUntilIdle()
        #expect(log.all == ["1", "2", "3", "4", "5"])
        _ = timers
    }
}
