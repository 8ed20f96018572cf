@testable import CCAIScripting
import Foundation
import TestSupport
import Testing

/// A run's metrics as `--out prometheus` serves them (``PrometheusExposition``).
@Suite struct PrometheusExpositionTests {
    @Test func eachKindOfMetricHasItsPrometheusShape() throws {
        let metrics = ScenarioMetrics()
        metrics.record(.iterations, 1, tags: ["scenario": "browse"])
        metrics.record(.iterations, 1, tags: ["scenario": "browse"])
        metrics.record(.vus, 3)
        metrics.record(.vus, 5)
        metrics.recordCheck("answered", passed: true)
        metrics.recordCheck("answered", passed: false)
        for seconds in [0.1, 0.2, 0.3, 0.4] { metrics.record(.sdkCall, seconds, tags: ["method": "start", "service": "chat"]) }
        #expect(metrics.declare("orders", kind: .counter) == nil)
        metrics.add("orders", value: 2.5, tags: [:])
        let threshold = try Threshold(metric: "sdk_call_seconds{method:start}", expression: "p(95) < 0.35")

        let samples = try PrometheusSamples(PrometheusExposition.text(metrics.snapshot(), thresholds: [threshold], elapsed: 12))
        #expect(samples.value("ccai_iterations_total", ["scenario": "browse"]) == 2)
        #expect(samples.types["ccai_iterations_total"] == "counter")
        #expect(samples.value("ccai_vus") == 5, "a gauge's last value")
        #expect(samples.value("ccai_checks_total", ["check": "answered"]) == 2)
        #expect(samples.value("ccai_checks_true_total", ["check": "answered"]) == 1)
        #expect(samples.value("ccai_checks_ratio", ["check": "answered"]) == 0.5)
        let call = ["method": "start", "service": "chat"]
        #expect(samples.types["ccai_sdk_call_seconds"] == "summary")
        #expect(abs((samples.value("ccai_sdk_call_seconds", call.merging(["quantile": "0.5"]) { $1 }) ?? 0) - 0.2) < 0.01)
        #expect(abs((samples.value("ccai_sdk_call_seconds", call.merging(["quantile": "0.99"]) { $1 }) ?? 0) - 0.4) < 0.01)
        #expect(samples.value("ccai_sdk_call_seconds_count", call) == 4)
        #expect(abs((samples.value("ccai_sdk_call_seconds_sum", call) ?? 0) - 1.0) < 1e-9)
        #expect(samples.value("ccai_orders_total") == 2.5, "a declared counter")
        #expect(samples.value("ccai_dropped_iterations_total") == 0, "a counter without samples reads 0")
        #expect(samples.named("ccai_chat_wait_seconds").isEmpty, "a trend without samples has no quantiles to show")
        #expect(samples.value("ccai_threshold_holds", ["metric": "sdk_call_seconds{method:start}", "threshold": "p(95) < 0.35"]) == 0,
                "p(95) is about 0.4")
        #expect(samples.value("ccai_run_elapsed_seconds") == 12)
    }

    @Test func tagsBecomeLabelsThatCannotCollide() throws {
        let metrics = ScenarioMetrics()
        #expect(metrics.declare("waits", kind: .trend) == nil)
        metrics.add("waits", value: 1, tags: ["quantile": "q", "a-b": "dash", "a_b": "underscore", "note": "say \"hi\"\n"])
        let samples = try PrometheusSamples(PrometheusExposition.text(metrics.snapshot(), elapsed: 1))
        let labels = ["tag_quantile": "q", "a_b": "dash", "a_b_2": "underscore", "note": "say \"hi\"\n"]
        #expect(samples.value("ccai_waits_count", labels) == 1, "\(samples.named("ccai_waits_count"))")
        #expect(samples.value("ccai_waits", labels.merging(["quantile": "0.5"]) { $1 }) == 1)
    }

    @Test func aMetricShowsABoundedNumberOfLabelSetsAndLosesNoSample() throws {
        let metrics = ScenarioMetrics()
        #expect(metrics.declare("hits", kind: .counter) == nil)
        for user in 0..<250 { metrics.add("hits", value: 1, tags: ["user": "u\(user)"]) }
        for _ in 0..<5 { metrics.add("hits", value: 1, tags: ["user": "u249"]) }
        let samples = try PrometheusSamples(PrometheusExposition.text(metrics.snapshot(), elapsed: 1)).named("ccai_hits_total")
        #expect(samples.count == PrometheusExposition.seriesPerMetric)
        #expect(samples.reduce(0) { $0 + $1.value } == 255, "the rest add up under overflow")
        #expect(samples.contains { $0.labels == ["user": "u249"] && $0.value == 6 }, "the busiest tag set is shown")
        #expect(samples.contains { $0.labels == ["overflow": "true"] && $0.value == 151 })
    }

    @Test func labelNamesAreUniqueAsWrittenAndEqualLabelSetsAreOneSeries() throws {
        let metrics = ScenarioMetrics()
        #expect(metrics.declare("marks", kind: .counter) == nil)
        metrics.add("marks", value: 1, tags: ["-": "a", ".": "b", "tag__2": "c"])
        metrics.add("marks", value: 5, tags: ["a-b": "1"])
        metrics.add("marks", value: 7, tags: ["a_b": "1"])
        let text = PrometheusExposition.text(metrics.snapshot(), elapsed: 1)
        let samples = try PrometheusSamples(text)   // refuses a label named twice on one line
        let marks = samples.named("ccai_marks_total")
        #expect(marks.contains { $0.labels.values.sorted() == ["a", "b", "c"] }, "\(text)")
        #expect(marks.contains { $0.labels == ["a_b": "1"] && $0.value == 12 }, "a-b and a_b are one series: \(marks)")
        #expect(marks.count == 2)
    }

    @Test func aDeclaredMetricCannotTakeAnotherMetricsNames() throws {
        let metrics = ScenarioMetrics()
        for (name, kind) in [("threshold_holds", MetricKind.gauge), ("orders", .counter), ("orders_total", .gauge),
                             ("iterations_total", .gauge), ("checks_ratio", .gauge), ("waits", .trend), ("waits_sum", .gauge)] {
            #expect(metrics.declare(name, kind: kind) == nil)
            metrics.add(name, value: 1, tags: ["metric": "checks", "threshold": "rate > 0.95"])
        }
        metrics.recordCheck("answered", passed: false)
        let threshold = try Threshold(metric: "checks", expression: "rate > 0.95")
        let samples = try PrometheusSamples(PrometheusExposition.text(metrics.snapshot(), thresholds: [threshold], elapsed: 1))
        #expect(samples.named("ccai_threshold_holds").map(\.value) == [0], "a script cannot forge a threshold")
        #expect(samples.named("ccai_orders_total").count == 1 && samples.named("ccai_waits_sum").count == 1)
        #expect(samples.named("ccai_iterations_total").allSatisfy { $0.labels.isEmpty }, "the built-in keeps its name")
        #expect(samples.value("ccai_exposition_metrics_skipped") == 5)
    }

    /// Past the series budget, or the bytes budget, the metrics left are folded whole
    /// (the budgets made small here: the real ones are 2,000 series and 4 MiB).
    @Test func theWholeExpositionIsBoundedHoweverManyTagSetsAScriptMakes() throws {
        let metrics = ScenarioMetrics()
        let long = String(repeating: "x", count: 60)
        for index in 0..<12 {
            #expect(metrics.declare("trend_\(index)", kind: .trend) == nil)
            for set in 0..<30 {
                metrics.add("trend_\(index)", value: 1, tags: ["tag_\(long)": "\(set)\(long)", "other": "\(set % 3)"])
            }
        }
        func counts(_ text: String) throws -> (perMetric: [Double], seriesOfLast: Int) {
            let samples = try PrometheusSamples(text)
            let perMetric = (0..<12).map { index in samples.named("ccai_trend_\(index)_count").reduce(0) { $0 + $1.value } }
            return (perMetric, samples.named("ccai_trend_9_count").count)   // the last by name
        }
        let bySeries = try counts(PrometheusExposition.text(metrics.snapshot(), elapsed: 1, seriesInAll: 100))
        #expect(bySeries.perMetric.allSatisfy { $0 == 30 }, "every metric keeps all its samples: \(bySeries.perMetric)")
        #expect(bySeries.seriesOfLast == 1, "past 100 series, the last ones are folded whole")
        let small = 20_000
        let text = PrometheusExposition.text(metrics.snapshot(), elapsed: 1, maximumBytes: small)
        #expect(text.utf8.count < small + 30 * 6 * 256, "at most one metric's series past the budget: \(text.utf8.count) bytes")
        let byBytes = try counts(text)
        #expect(byBytes.perMetric.allSatisfy { $0 == 30 } && byBytes.seriesOfLast == 1)
    }
}
