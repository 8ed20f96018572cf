@testable import CCAIScripting
import Foundation
import LuaRuntime
import Testing

/// What the dashboard's controls change in a run (``LiveControl``), and what its page is
/// sent (``DashboardFeed``).
@Suite struct LiveControlTests {
    /// A rate set at 5 s of a 10 s plan at 4 a second: the first 20 arrivals keep their
    /// place, then 8 a second until the end, evenly spaced from the moment it was set.
    @Test func aNewRateHoldsFromItsMomentToTheEnd() {
        var schedule = ArrivalSchedule(ScenarioOptions.Arrival(rate: 4, duration: 10), seed: RandomSeed(1))
        var before: [Double] = []
        while let next = schedule.peek(), next < 5 { before.append(schedule.next()!) }
        #expect(before.count == 20 && before.last == 4.75)
        schedule.setRate(8, from: 5, until: 10)
        #expect(schedule.expected == 60)
        #expect(schedule.rate(at: 2) == 4 && schedule.rate(at: 7) == 8)
        var after: [Double] = []
        while let next = schedule.next() { after.append(next) }
        #expect(after.count == 40 && after.first == 5 && after[1] == 5.125, "\(after.prefix(3))")
        #expect(after.allSatisfy { $0 >= 5 && $0 < 10 })
    }

    /// A rate of 0 leaves no arrival to come; a later rate brings them back, from then on.
    @Test func aRateOfZeroStopsArrivalsUntilAnotherIsSet() {
        var schedule = ArrivalSchedule(ScenarioOptions.Arrival(rate: 10, timeUnit: 60, duration: 60), seed: RandomSeed(2))
        _ = schedule.next()
        schedule.setRate(0, from: 3, until: 60)
        #expect(schedule.peek() == nil && schedule.rate(at: 30) == 0)
        schedule.setRate(1, from: 30, until: 60)
        #expect(schedule.peek().map { abs($0 - 30.5) < 1e-9 } == true, "the next after the one handed out: \(String(describing: schedule.peek()))")
        var count = 0
        while schedule.next() != nil { count += 1 }
        #expect(count == 30, "30 s at 1 a second, the first of them half way through its second (its place in the plan)")
    }

    /// A change wakes whoever waits for one, and only a change after what they saw.
    @Test func aChangeWakesThoseWaitingForIt() async {
        let control = LiveControl()
        let seen = control.current.generation
        control.setPaused(true)
        await control.changed(after: seen)   // returns at once: a change came after `seen`
        let now = control.current.generation
        async let woken: Void = control.changed(after: now)
        control.setVUTarget(3, scenario: "loopers")
        await woken
        #expect(control.current == LiveControl.State(paused: true, rates: [:], vuTargets: ["loopers": 3], generation: 2))
        control.setRate(-5, scenario: "chatters")
        #expect(control.current.rates["chatters"] == 0, "no negative rate")
    }

    /// The page's update: the run's figures, its thresholds going red, its scenarios with
    /// what the controls set, and whether the controls work.
    @Test func theUpdateCarriesTheRunAndItsControls() throws {
        let options = try ScenarioOptions(table: ["scenarios": [
            "chatters": ["executor": "constant_arrival", "rate": 6, "time_unit": "1m", "duration": "2m", "max_vus": 10],
            "loopers": ["executor": "constant_vus", "vus": 4, "duration": "2m"],
        ], "thresholds": ["checks": "rate > 0.9"]])
        let metrics = ScenarioMetrics()
        metrics.recordCheck("answered <b>", passed: false)
        metrics.recordIteration(seconds: 0.5, error: "boom")
        let progress = ScenarioRunner.Progress(options: options, elapsed: 30, activeVUs: 5, peakVUs: 6, iterations: 1, failedIterations: 1,
                                               plannedIterations: nil, checkPasses: 0, checkFails: 1)
        let control = LiveControl()
        control.setPaused(true)
        control.setVUTarget(2, scenario: "loopers")
        let update = DashboardFeed.update(metrics.snapshot(), progress: progress, control: control.current)
        #expect(update.state == "paused" && update.controls && update.vus == 5 && update.failedIterations == 1)
        #expect(update.thresholds == [.init(metric: "checks", expression: "rate > 0.9", holds: false, observed: 0, abortOnFail: false)])
        #expect(update.checks == [.init(name: "answered <b>", passes: 0, fails: 1)])
        #expect(update.errors.first?.message.contains("boom") == true)
        #expect(update.scenarios == [
            .init(name: "chatters", model: "arrival", rate: 6, timeUnit: 60, vuTarget: nil, plannedVus: 10),
            .init(name: "loopers", model: "vus", rate: nil, timeUnit: nil, vuTarget: 2, plannedVus: 4),
        ])
        let json = String(decoding: try DashboardFeed.encoder.encode(update), as: UTF8.self)
        #expect(json.contains(#""failed_iterations":1"#) && json.contains(#""vu_target":2"#))

        let virtual = DashboardFeed.update(metrics.snapshot(), progress: progress, control: nil, interrupted: true)
        #expect(virtual.state == "stopping" && !virtual.controls, "in virtual time only Stop works")
        #expect(DashboardFeed.update(metrics.snapshot(), progress: nil, control: nil, ended: true).state == "ended")
    }
}
