import CCAIWire
import Foundation

/// The end-of-run summary, laid out like k6's: the thresholds (✓ or ✗, the expression and
/// the value it read), the checks (each with ✓ or ✗ and, when some failed, how many), then
/// the metrics that have samples in name order (with the tagged sub-metrics thresholds
/// name), then each distinct error that failed iterations, with its count.
///
/// ```
///      thresholds:
///      ✓ checks: rate > 0.9 (rate=95.00%)
///
///      ✓ chat started
///      ✗ agent answered
///       ↳  90% — ✓ 9 / ✗ 1
///
///      checks.........................: 95.00% ✓ 19  ✗ 1
///      iteration_duration_seconds.....: avg=1.2s min=1.02s med=1.1s max=2.5s p(90)=1.9s p(95)=2.2s
///      sdk_call_seconds...............: avg=12ms min=3ms med=9ms max=80ms p(90)=20ms p(95)=31ms
///        {method:start}...............: avg=25ms min=9ms med=21ms max=80ms p(90)=40ms p(95)=52ms
/// ```
///
/// The full mode (`--summary-mode full`) adds Locust's stats table after the metrics
/// (``MethodStats``): by SDK method, the calls, failures, percentiles and calls a second.
public enum ScenarioSummary {
    /// How much the summary shows: `compact` (the default) or `full`, with the stats table.
    public enum Mode: String, Sendable, CaseIterable {
        case compact, full
    }

    public static func text(_ snapshot: ScenarioMetrics.Snapshot, options: ScenarioOptions, elapsed: Double,
                            abortedBy: Threshold? = nil, mode: Mode = .compact) -> String {
        var lines: [String] = []
        if !options.thresholds.isEmpty {
            lines.append("     thresholds:")
            for threshold in options.thresholds {
                let (holds, observed) = threshold.evaluate(snapshot, elapsed: elapsed)
                lines.append("     \(holds ? "✓" : "✗") \(TerminalText.escaped(threshold.metric)): \(TerminalText.escaped(threshold.source)) "
                             + "(\(threshold.aggregation)=\(shown(observed, of: threshold)))")
            }
            if let abortedBy {
                lines.append("     the run was aborted when \(TerminalText.escaped(abortedBy.metric)): "
                             + "\(TerminalText.escaped(abortedBy.source)) failed (abort_on_fail)")
            }
            lines.append("")
        }
        lines += checkLines(snapshot.checks)
        if !snapshot.checks.isEmpty { lines.append("") }
        let subMetrics = Dictionary(grouping: options.thresholds.filter { !$0.tags.isEmpty }, by: \.metricName)
        let summaryTags = options.shownSummaryTags
        for metric in snapshot.metrics.sorted(by: { $0.name < $1.name }) {
            let all = metric.total
            guard all.count > 0 || metric.name == BuiltInMetric.iterations.rawValue else { continue }
            lines.append(row(metric.name, indent: 5, value(of: all, metric, elapsed: elapsed)))
            var shown = Set<String>()
            let named = (subMetrics[metric.name] ?? []).map(\.tags)
                + (summaryTags[metric.name].map { metric.tagValues($0) } ?? [])
            for tags in named where shown.insert(Metric.key(tags)).inserted {
                let label = "{" + Metric.key(tags) + "}"
                lines.append(row(TerminalText.escaped(label), indent: 7, value(of: metric.matching(tags), metric, elapsed: elapsed)))
            }
        }
        if mode == .full { lines += methodTable(MethodStats.table(snapshot), elapsed: elapsed) }
        if !snapshot.errors.isEmpty {
            lines.append("")
            lines.append("     errors that failed iterations:")
            for error in snapshot.errors { lines.append("       \(error.count)× \(TerminalText.escaped(error.message))") }
        }
        if let seed = options.seed {
            lines.append("")
            lines.append(row("seed", indent: 5, "\(seed) (replay the run's random draws with --seed \(seed))"))
        }
        if options.virtualTime, let start = options.start {
            let end = ISO8601DateFormatter().string(from: start.date(in: .gmt).addingTimeInterval(elapsed))
            lines.append(row("virtual time", indent: 5, "\(start) to \(end) (replay with --virtual-time --start \(start)"
                             + (options.seed.map { " --seed \($0)" } ?? "") + ")"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The checks made outside any group, then each group's under its name (`█ checkout`),
    /// nested groups indented under theirs, as k6 lists them.
    private static func checkLines(_ checks: [ScenarioMetrics.Check]) -> [String] {
        var lines: [String] = []
        let groups = Dictionary(grouping: checks) { $0.group ?? "" }
        for group in groups.keys.sorted() {
            let names = group.components(separatedBy: "::").dropFirst()
            let indent = String(repeating: "  ", count: names.count)
            if let name = names.last { lines.append("     \(String(repeating: "  ", count: names.count - 1))█ \(TerminalText.escaped(name))") }
            for check in groups[group] ?? [] {
                if check.fails == 0 {
                    lines.append("     \(indent)✓ \(TerminalText.escaped(check.name))")
                } else {
                    lines.append("     \(indent)✗ \(TerminalText.escaped(check.name))")
                    let total = check.passes + check.fails
                    lines.append("      \(indent)↳  \(percent(check.passes, of: total)) — ✓ \(check.passes) / ✗ \(check.fails)")
                }
            }
        }
        return lines
    }

    /// Locust's stats table, its columns lined up; nothing when no SDK call was made.
    ///
    /// ```
    ///      SDK calls by method:
    ///      type  name        calls  failures  p(50)  p(95)  p(99)   max  calls/s
    ///      chat  start          20         1   12ms   31ms   40ms  41ms     0.33
    ///            Aggregated     20         1   12ms   31ms   40ms  41ms     0.33
    /// ```
    static func methodTable(_ rows: [MethodStats], elapsed: Double) -> [String] {
        guard !rows.isEmpty else { return [] }
        let header = ["type", "name", "calls", "failures", "p(50)", "p(95)", "p(99)", "max", "calls/s"]
        let cells = [header] + rows.map { row -> [String] in
            let digest = row.figures.seconds
            return [TerminalText.escaped(row.type), TerminalText.escaped(row.name), "\(row.figures.calls)", "\(row.figures.failures)",
                    duration(digest.percentile(50)), duration(digest.percentile(95)), duration(digest.percentile(99)),
                    duration(digest.count > 0 ? digest.max : 0), String(format: "%.2f", row.callsPerSecond(over: elapsed))]
        }
        let widths = header.indices.map { column in cells.map { $0[column].count }.max()! }
        // The names are read left-aligned, the figures right-aligned.
        let table = cells.map { cell in
            cell.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - cell[column].count)
                return column < 2 ? cell[column] + padding : padding + cell[column]
            }.joined(separator: "  ")
        }
        return ["", "     SDK calls by method:"] + table.map { "     " + $0 }
    }

    /// `name.......: value`, the values of every row lined up.
    private static func row(_ name: String, indent: Int, _ value: String) -> String {
        String(repeating: " ", count: indent) + name + String(repeating: ".", count: max(3, 36 - indent - name.count)) + ": " + value
    }

    /// What a row shows of a series, by the metric's kind, as k6 does: a trend's avg, min,
    /// med, max, p(90) and p(95); a counter's count and rate per second; a rate's share
    /// and counts; a gauge's last value with its min and max.
    private static func value(of series: Metric.Series, _ metric: Metric, elapsed: Double) -> String {
        let show: (Double) -> String = metric.name.hasSuffix("_seconds") ? duration : number
        let empty = series.count == 0
        switch metric.kind {
        case .trend:
            let parts = [("avg", series.digest.average), ("min", empty ? 0 : series.min), ("med", series.digest.percentile(50)),
                         ("max", empty ? 0 : series.max), ("p(90)", series.digest.percentile(90)),
                         ("p(95)", series.digest.percentile(95))]
            return parts.map { "\($0.0)=\(show($0.1))" }.joined(separator: " ")
        case .counter:
            return "\(number(series.sum))  \(String(format: "%.2f", elapsed > 0 ? series.sum / elapsed : 0))/s"
        case .rate:
            return "\(percent(series.trues, of: series.count)) ✓ \(series.trues)  ✗ \(series.count - series.trues)"
        case .gauge:
            return empty ? "0" : "\(number(series.last))  min=\(number(series.min)) max=\(number(series.max))"
        }
    }

    /// The thresholds of `options` that do not hold at the end of a run.
    public static func failedThresholds(_ snapshot: ScenarioMetrics.Snapshot, options: ScenarioOptions, elapsed: Double)
        -> [Threshold]
    {
        options.thresholds.filter { !$0.evaluate(snapshot, elapsed: elapsed).holds }
    }

    /// A threshold's value as its metric shows.
    static func shown(_ value: Double, of threshold: Threshold) -> String {
        shown(value, aggregation: threshold.aggregation.description, kind: threshold.kind, metric: threshold.metricName)
    }

    /// A metric's value as it shows: a share for a rate's rate, a duration for trends of
    /// seconds, a plain number otherwise.
    static func shown(_ value: Double, aggregation: String, kind: MetricKind, metric: String) -> String {
        guard !value.isNaN else { return "no samples" }
        switch kind {
        case .rate: return String(format: "%.2f%%", value * 100)
        case .trend where metric.hasSuffix("_seconds"): return duration(value)
        default: return number(value)
        }
    }

    /// `4`, `2.5`, `385.1`: whole numbers without a fraction, others to four digits.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.4g", value)
    }

    /// `"95.00%"`; `"0.00%"` of nothing.
    static func percent(_ part: Int, of whole: Int) -> String {
        String(format: "%.2f%%", whole == 0 ? 0 : Double(part) * 100 / Double(whole))
    }

    /// k6's way: `850µs`, `12.5ms`, `1.2s`, `2m3s`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e12 else { return String(format: "%gs", seconds) }
        if seconds == 0 { return "0s" }
        switch seconds {
        case ..<0.001: return String(format: "%.0fµs", seconds * 1e6)
        case ..<1: return trimmed(String(format: "%.2f", seconds * 1000)) + "ms"
        case ..<60: return trimmed(String(format: "%.2f", seconds)) + "s"
        default:
            let minutes = Int(seconds / 60)
            return "\(minutes)m" + trimmed(String(format: "%.1f", seconds - Double(minutes) * 60)) + "s"
        }
    }

    static func trimmed(_ number: String) -> String {
        guard number.contains(".") else { return number }
        var text = number
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
