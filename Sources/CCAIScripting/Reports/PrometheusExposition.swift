import CCAIWire
import Foundation

/// A run's metrics as Prometheus scrapes them while it lives (`ccai run --out
/// prometheus=HOST:PORT`, docs/observability.md). Every metric is named `ccai_` and its
/// name; its tags are labels:
///
/// - a counter is a counter, `ccai_NAME_total`, the sum of its samples;
/// - a gauge is a gauge, `ccai_NAME`, its last value;
/// - a rate is two counters, `ccai_NAME_total` (samples) and `ccai_NAME_true_total`
///   (samples not 0), and a gauge `ccai_NAME_ratio`, the share over the whole run that its
///   thresholds read;
/// - a trend is a summary, `ccai_NAME`, with the quantiles 0.5, 0.9, 0.95 and 0.99 over
///   the whole run (from its digest: within 1%), `_sum` and `_count`.
///
/// Each threshold is a gauge `ccai_threshold_holds` (1 or 0) labelled with its metric and
/// expression, and `ccai_run_elapsed_seconds` the run's time (simulated in virtual time).
/// A metric shows its ``seriesPerMetric`` tag sets with the most samples; the others are
/// added up into one series labelled `overflow="true"`, so that sums over a metric stay
/// whole while its label sets stay bounded.
public enum PrometheusExposition {
    /// The most tag sets one metric shows.
    public static let seriesPerMetric = 100
    /// The quantiles of a trend's summary.
    public static let quantiles: [Double] = [0.5, 0.9, 0.95, 0.99]

    /// The exposition of `snapshot` at `elapsed` seconds into the run, with `thresholds`.
    public static func text(_ snapshot: ScenarioMetrics.Snapshot, thresholds: [Threshold] = [], elapsed: Double) -> String {
        var text = PrometheusText()
        for metric in snapshot.metrics.sorted(by: { $0.name < $1.name }) { write(metric, into: &text) }
        text.family("ccai_threshold_holds", .gauge, help: "whether each threshold holds now (1) or not (0)")
        for threshold in thresholds {
            let holds = threshold.evaluate(snapshot, elapsed: elapsed).holds
            text.sample("ccai_threshold_holds", labels: [("metric", threshold.metric), ("threshold", threshold.source)], holds ? 1 : 0)
        }
        text.family("ccai_run_elapsed_seconds", .gauge, help: "the run's time so far (simulated, in virtual time)")
        text.sample("ccai_run_elapsed_seconds", elapsed)
        return text.body
    }

    private static func write(_ metric: Metric, into text: inout PrometheusText) {
        let name = "ccai_" + metric.name
        let help = BuiltInMetric(rawValue: metric.name)?.meaning ?? "declared by the scenario (ccai.metrics)"
        let series = bounded(metric.series)
        switch metric.kind {
        case .counter:
            text.family(name + "_total", .counter, help: help)
            // A counter with no sample yet reads 0, so that a query for it has an answer.
            if series.isEmpty { text.sample(name + "_total", 0) }
            for (labels, values) in series { text.sample(name + "_total", labels: labels, values.sum) }
        case .gauge:
            text.family(name, .gauge, help: help)
            for (labels, values) in series { text.sample(name, labels: labels, values.last) }
        case .rate:
            text.family(name + "_total", .counter, help: help + " (samples)")
            for (labels, values) in series { text.sample(name + "_total", labels: labels, Double(values.count)) }
            text.family(name + "_true_total", .counter, help: help + " (samples not 0)")
            for (labels, values) in series { text.sample(name + "_true_total", labels: labels, Double(values.trues)) }
            text.family(name + "_ratio", .gauge, help: help + " (over the whole run)")
            for (labels, values) in series {
                text.sample(name + "_ratio", labels: labels, values.count == 0 ? 0 : Double(values.trues) / Double(values.count))
            }
        case .trend:
            text.family(name, .summary, help: help)
            for (labels, values) in series {
                for quantile in quantiles {
                    text.sample(name, labels: labels + [("quantile", PrometheusText.number(quantile))],
                                values.digest.percentile(quantile * 100))
                }
                text.sample(name + "_sum", labels: labels, values.sum)
                text.sample(name + "_count", labels: labels, Double(values.count))
            }
        }
    }

    /// The series to show, as labels and values: the ``seriesPerMetric`` - 1 with the most
    /// samples and, when there are more, the rest added up under `overflow="true"`; in the
    /// order of their keys.
    static func bounded(_ series: [String: Metric.Series]) -> [(labels: [(String, String)], values: Metric.Series)] {
        var kept = series.sorted { $0.key < $1.key }
        var overflow: Metric.Series?
        if kept.count > seriesPerMetric {
            let ranked = kept.enumerated().sorted { ($0.element.value.count, -$0.offset) > ($1.element.value.count, -$1.offset) }
            let shown = Set(ranked.prefix(seriesPerMetric - 1).map(\.offset))
            var rest = Metric.Series()
            for (offset, element) in kept.enumerated() where !shown.contains(offset) { rest.merge(element.value) }
            kept = kept.enumerated().filter { shown.contains($0.offset) }.map(\.element)
            overflow = rest
        }
        var result = kept.map { (labels: labels(Metric.tags(of: $0.key)), values: $0.value) }
        if let overflow { result.append((labels: [("overflow", "true")], values: overflow)) }
        return result
    }

    /// A tag set as labels: names made valid, none taken twice (a second `a-b` after `a_b`
    /// becomes `a_b_2`), and none of the names Prometheus gives a meaning (`quantile`, `le`)
    /// nor `overflow`: those get a `tag_` prefix.
    static func labels(_ tags: [String: String]) -> [(String, String)] {
        var taken = Set<String>(), labels: [(String, String)] = []
        for (name, value) in tags.sorted(by: { $0.key < $1.key }) {
            var label = PrometheusText.labelName(name)
            if ["quantile", "le", "overflow"].contains(label) { label = "tag_" + label }
            var candidate = label, suffix = 2
            while taken.contains(candidate) {
                candidate = "\(label)_\(suffix)"
                suffix += 1
            }
            taken.insert(candidate)
            labels.append((candidate, value))
        }
        return labels
    }
}
