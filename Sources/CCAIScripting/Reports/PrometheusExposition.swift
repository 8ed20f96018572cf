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
///
/// What a script records cannot break the exposition nor make it huge: a declared metric
/// whose names would be another's (`orders_total` beside a counter `orders`, or one of
/// those above) is left out and counted in `ccai_exposition_metrics_skipped`; tag sets that
/// become the same labels are one series; a metric shows its ``seriesPerMetric`` tag sets
/// with the most samples and adds up the others into one series labelled
/// `overflow="true"`, and once the exposition holds ``seriesInAll`` series or
/// ``maximumBytes`` bytes, each metric left shows only that one series. Sums over a metric
/// stay whole either way.
public enum PrometheusExposition {
    /// The most tag sets one metric shows.
    public static let seriesPerMetric = 100
    /// The most series the whole exposition shows before metrics are folded whole.
    public static let seriesInAll = 2_000
    /// The size past which the metrics left are folded whole.
    public static let maximumBytes = 4 << 20
    /// The quantiles of a trend's summary.
    public static let quantiles: [Double] = [0.5, 0.9, 0.95, 0.99]

    /// The names the exposition gives its own metrics.
    static let ownNames: Set<String> = ["ccai_threshold_holds", "ccai_run_elapsed_seconds", "ccai_exposition_metrics_skipped"]

    /// The exposition of `snapshot` at `elapsed` seconds into the run, with `thresholds`;
    /// past `seriesInAll` series or `maximumBytes`, metrics are folded whole.
    public static func text(_ snapshot: ScenarioMetrics.Snapshot, thresholds: [Threshold] = [], elapsed: Double,
                            seriesInAll: Int = seriesInAll, maximumBytes: Int = maximumBytes) -> String {
        var text = PrometheusText()
        text.family("ccai_threshold_holds", .gauge, help: "whether each threshold holds now (1) or not (0)")
        for threshold in thresholds {
            let holds = threshold.evaluate(snapshot, elapsed: elapsed).holds
            text.sample("ccai_threshold_holds", labels: [("metric", threshold.metric), ("threshold", threshold.source)], holds ? 1 : 0)
        }
        text.family("ccai_run_elapsed_seconds", .gauge, help: "the run's time so far (simulated, in virtual time)")
        text.sample("ccai_run_elapsed_seconds", elapsed)
        // Built-in metrics first, so that none of their names is taken by a declared one.
        let builtIn = Set(BuiltInMetric.allCases.map(\.rawValue))
        let ordered = snapshot.metrics.filter { builtIn.contains($0.name) }
            + snapshot.metrics.filter { !builtIn.contains($0.name) }.sorted { $0.name < $1.name }
        var used = ownNames, skipped = 0, seriesShown = 0
        for metric in ordered {
            let names = sampleNames(metric)
            guard used.isDisjoint(with: names) else {
                skipped += 1
                continue
            }
            used.formUnion(names)
            let roomLeft = seriesShown < seriesInAll && text.body.utf8.count < maximumBytes
            let series = bounded(metric.series, keeping: roomLeft ? seriesPerMetric : 1)
            seriesShown += series.count
            write(metric, series, into: &text)
        }
        text.family("ccai_exposition_metrics_skipped", .gauge,
                    help: "declared metrics left out because their names would be another metric's")
        text.sample("ccai_exposition_metrics_skipped", Double(skipped))
        return text.body
    }

    /// The sample names `metric` is written with.
    static func sampleNames(_ metric: Metric) -> Set<String> {
        let name = PrometheusText.metricName("ccai_" + metric.name)
        switch metric.kind {
        case .counter: return [name + "_total"]
        case .gauge: return [name]
        case .rate: return [name + "_total", name + "_true_total", name + "_ratio"]
        case .trend: return [name, name + "_sum", name + "_count"]
        }
    }

    private static func write(_ metric: Metric, _ series: [(labels: [(String, String)], values: Metric.Series)],
                              into text: inout PrometheusText) {
        let name = PrometheusText.metricName("ccai_" + metric.name)
        let meaning = BuiltInMetric(rawValue: metric.name)?.meaning ?? "declared by the scenario (ccai.metrics)"
        switch metric.kind {
        case .counter:
            text.family(name + "_total", .counter, help: meaning)
            // A counter with no sample yet reads 0, so that a query for it has an answer.
            if series.isEmpty { text.sample(name + "_total", 0) }
            for (labels, values) in series { text.sample(name + "_total", labels: labels, values.sum) }
        case .gauge:
            text.family(name, .gauge, help: meaning)
            for (labels, values) in series { text.sample(name, labels: labels, values.last) }
        case .rate:
            text.family(name + "_total", .counter, help: "samples of the rate \(metric.name): \(meaning)")
            for (labels, values) in series { text.sample(name + "_total", labels: labels, Double(values.count)) }
            text.family(name + "_true_total", .counter, help: "samples of the rate \(metric.name) that were not 0")
            for (labels, values) in series { text.sample(name + "_true_total", labels: labels, Double(values.trues)) }
            text.family(name + "_ratio", .gauge, help: "\(meaning), over the whole run")
            for (labels, values) in series {
                text.sample(name + "_ratio", labels: labels, values.count == 0 ? 0 : Double(values.trues) / Double(values.count))
            }
        case .trend:
            text.family(name, .summary, help: meaning)
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

    /// The series to show, as labels and values, in the order of their labels: tag sets
    /// that become the same labels added up, then the `keeping` - 1 with the most samples
    /// and, when there are more, the rest added up under `overflow="true"`.
    static func bounded(_ series: [String: Metric.Series], keeping: Int) -> [(labels: [(String, String)], values: Metric.Series)] {
        var byLabels: [String: (labels: [(String, String)], values: Metric.Series)] = [:]
        for (key, values) in series.sorted(by: { $0.key < $1.key }) {
            let labels = labels(Metric.tags(of: key))
            let labelKey = labels.map { "\($0.0)=\($0.1.debugDescription)" }.joined(separator: ",")
            if byLabels[labelKey] == nil {
                byLabels[labelKey] = (labels, values)
            } else {
                byLabels[labelKey]?.values.merge(values)
            }
        }
        var kept = byLabels.sorted { $0.key < $1.key }.map(\.value)
        guard kept.count > keeping else { return kept }
        let ranked = kept.indices.sorted { (kept[$0].values.count, -$0) > (kept[$1].values.count, -$1) }
        let shown = Set(ranked.prefix(max(0, keeping - 1)))
        var rest = Metric.Series()
        for index in kept.indices where !shown.contains(index) { rest.merge(kept[index].values) }
        kept = kept.indices.filter { shown.contains($0) }.map { kept[$0] }
        return kept + [(labels: [("overflow", "true")], values: rest)]
    }

    /// A tag set as labels, each name as the text format writes it: names made valid,
    /// none taken twice (a second `a-b` after `a_b` becomes `a_b_2`), and none of the names
    /// Prometheus gives a meaning (`quantile`, `le`, `__` first) nor `overflow`: those get
    /// a `tag_` (or `tag`) prefix.
    static func labels(_ tags: [String: String]) -> [(String, String)] {
        var taken = Set<String>(), labels: [(String, String)] = []
        for (name, value) in tags.sorted(by: { $0.key < $1.key }) {
            var label = PrometheusText.labelName(name)
            if ["quantile", "le", "overflow"].contains(label) { label = "tag_" + label }
            var candidate = label, suffix = 2
            while taken.contains(candidate) {
                candidate = PrometheusText.labelName("\(label)_\(suffix)")
                suffix += 1
            }
            taken.insert(candidate)
            labels.append((candidate, value))
        }
        return labels
    }
}
