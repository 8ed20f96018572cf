import CCAIScripting
import Foundation
import LuaRuntime
import Testing

/// The pieces of a scenario run that need no platform: trend digests, durations, options.
@Suite struct ScenarioMetricsTests {
    /// Every percentile of a digest is within 1% of the exact one, for values spread over
    /// six orders of magnitude, and count, sum, min and max are exact.
    @Test func percentilesAreWithinTheErrorBound() {
        var generator = SystemRandomNumberGenerator()
        let values = (0..<20_000).map { _ in pow(10, Double.random(in: -4...2, using: &generator)) }
        var digest = TrendDigest()
        for value in values { digest.add(value) }
        let sorted = values.sorted()
        for percent in [1.0, 50, 90, 95, 99, 99.9] {
            let exact = sorted[max(0, Int((percent / 100 * Double(sorted.count)).rounded(.up)) - 1)]
            let estimate = digest.percentile(percent)
            #expect(abs(estimate - exact) / exact <= TrendDigest.relativeError, "p(\(percent)): \(estimate) vs \(exact)")
        }
        #expect(digest.count == values.count && digest.min == sorted.first && digest.max == sorted.last)
        #expect(abs(digest.sum - values.reduce(0, +)) < 1e-6)
    }

    /// Merging digests equals one digest of all the values: percentiles of merged runs are
    /// right, not averages of percentiles.
    @Test func mergedDigestsEqualOneDigestOfEverything() {
        let fast = (1...900).map { Double($0) / 1000 }, slow = (1...100).map { 5 + Double($0) / 10 }
        var a = TrendDigest(), b = TrendDigest(), all = TrendDigest()
        for value in fast { a.add(value); all.add(value) }
        for value in slow { b.add(value); all.add(value) }
        var merged = a
        merged.merge(b)
        for percent in [50.0, 90, 95, 99] { #expect(merged.percentile(percent) == all.percentile(percent)) }
        #expect(merged.count == 1000 && merged.max == all.max && merged.min == all.min)
        #expect(merged.percentile(95) > 5, "p(95) lies among the slow ones, where an average of percentiles would not")
        var withZero = TrendDigest()
        for value in [-2.0, 0, 3] { withZero.add(value) }
        #expect(withZero.percentile(1) == -2 && withZero.percentile(50) == 0 && withZero.percentile(100) == 3)
        #expect(TrendDigest().percentile(50) == 0)
    }

    @Test func durationsReadAsK6WritesThem() throws {
        #expect(try ScenarioDuration.seconds(in: "30s") == 30)
        #expect(try ScenarioDuration.seconds(in: "1h30m") == 5400)
        #expect(try ScenarioDuration.seconds(in: "250ms") == 0.25)
        #expect(try ScenarioDuration.seconds(in: "1.5m") == 90)
        #expect(try ScenarioDuration.seconds(in: "2") == 2)
        for bad in ["", "soon", "5 minutes", "-3s", "10x", "1e400", "999999999999d"] {
            #expect(throws: ScenarioDuration.Problem.self, "\(bad)") { try ScenarioDuration.seconds(in: bad) }
        }
    }

    @Test func optionsNameWhatIsWrong() throws {
        let options = try ScenarioOptions(table: ["vus": 4, "iterations": 10, "duration": "2m", "graceful_stop": 5])
        #expect(options.vus == 4 && options.iterations == 10 && options.duration == 120 && options.gracefulStop == 5)
        #expect(try ScenarioOptions(table: nil) == ScenarioOptions())
        let problems: [(LuaValue, String)] = [
            (["vus": 0], "options.vus"), (["vus": 1.5], "options.vus"), (["iterations": "ten"], "options.iterations"),
            (["stages": [:]], "options.stages"), (["stages": [["duration": "1s", "target": 2]], "iterations": 3], "options.stages"), (["thresholds": ["checks": "rate"]], "options.thresholds.checks"),
            (["thresholds": ["checks": [:]]], "options.thresholds.checks"), (["speed": 3], "options.speed"), ("fast", "options"),
        ]
        for (table, option) in problems {
            #expect(throws: ScenarioOptions.Problem.self) { try ScenarioOptions(table: table) }
            do { _ = try ScenarioOptions(table: table) } catch let problem as ScenarioOptions.Problem {
                #expect(problem.option == option, "\(problem)")
            }
        }
    }

    /// k6's expressions, read as k6 reads them, evaluated against what a run recorded.
    @Test func thresholdsReadK6Expressions() throws {
        let options = try ScenarioOptions(table: ["thresholds": [
            "iteration_duration_seconds": ["p(99.9) <= 2", "avg<1", ["threshold": "max != 0", "abort_on_fail": true]],
            "checks": "rate>=0.5",
        ]])
        #expect(options.thresholds.map(\.metric) == ["checks", "iteration_duration_seconds", "iteration_duration_seconds",
                                                     "iteration_duration_seconds"])
        #expect(options.thresholds[1].aggregation == .percentile(99.9) && options.thresholds[1].comparison == .lessOrEqual)
        #expect(options.thresholds[2].aggregation == .average && options.thresholds[2].bound == 1)
        #expect(options.thresholds[3].abortOnFail && options.thresholds[3].comparison == .notEqual)
        let metrics = ScenarioMetrics()
        metrics.recordCheck("a", passed: true)
        metrics.recordCheck("a", passed: false)
        for seconds in [0.5, 1.5, 3.0] { metrics.recordIteration(seconds: seconds, error: nil) }
        let results = options.thresholds.map { $0.evaluate(metrics.snapshot(), elapsed: 10) }
        #expect(results.map(\.holds) == [true, false, false, true], "\(results)")
        #expect(results[0].observed == 0.5 && abs(results[2].observed - 5.0 / 3) < 1e-9)
    }
}
