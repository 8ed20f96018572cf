import Foundation

/// The end-of-run summary, laid out like k6's: the thresholds (✓ or ✗, the expression and
/// the value it read), the checks (each with ✓ or ✗ and, when some failed, how many), then
/// the metrics in name order, then each distinct error that failed iterations, with its
/// count.
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
/// ```
public enum ScenarioSummary {
    public static func text(_ snapshot: ScenarioMetrics.Snapshot, options: ScenarioOptions, elapsed: Double,
                            abortedBy: Threshold? = nil) -> String {
        var lines: [String] = []
        if !options.thresholds.isEmpty {
            lines.append("     thresholds:")
            for threshold in options.thresholds {
                let (holds, observed) = threshold.evaluate(snapshot, vus: options.vus, elapsed: elapsed)
                lines.append("     \(holds ? "✓" : "✗") \(threshold.metric): \(threshold.source) "
                             + "(\(threshold.aggregation)=\(shown(observed, of: threshold)))")
            }
            if let abortedBy {
                lines.append("     the run was aborted when \(abortedBy.metric): \(abortedBy.source) failed (abort_on_fail)")
            }
            lines.append("")
        }
        for check in snapshot.checks {
            if check.fails == 0 {
                lines.append("     ✓ \(check.name)")
            } else {
                lines.append("     ✗ \(check.name)")
                let total = check.passes + check.fails
                lines.append("      ↳  \(percent(check.passes, of: total)) — ✓ \(check.passes) / ✗ \(check.fails)")
            }
        }
        if !snapshot.checks.isEmpty { lines.append("") }
        var metrics: [(String, String)] = []
        if !snapshot.checks.isEmpty {
            let total = snapshot.checkPasses + snapshot.checkFails
            metrics.append(("checks", "\(percent(snapshot.checkPasses, of: total)) ✓ \(snapshot.checkPasses)  ✗ \(snapshot.checkFails)"))
        }
        let trend = snapshot.iterationSeconds
        if trend.count > 0 {
            let parts = [("avg", trend.average), ("min", trend.min), ("med", trend.percentile(50)), ("max", trend.max),
                         ("p(90)", trend.percentile(90)), ("p(95)", trend.percentile(95))]
            metrics.append(("iteration_duration_seconds", parts.map { "\($0.0)=\(duration($0.1))" }.joined(separator: " ")))
        }
        let failed = snapshot.failedIterations
        metrics.append(("iteration_failed", "\(percent(failed, of: snapshot.iterations)) ✓ \(failed)  ✗ \(snapshot.iterations - failed)"))
        let perSecond = elapsed > 0 ? Double(snapshot.iterations) / elapsed : 0
        metrics.append(("iterations", "\(snapshot.iterations)  \(String(format: "%.2f", perSecond))/s"))
        metrics.append(("vus", "\(options.vus)"))
        for metric in snapshot.custom {
            let all = metric.matching([:])
            switch metric.kind {
            case .trend:
                let show: (Double) -> String = metric.name.hasSuffix("_seconds") ? duration : number
                let parts = [("avg", all.digest.average), ("min", all.count == 0 ? 0 : all.digest.min),
                             ("med", all.digest.percentile(50)), ("max", all.count == 0 ? 0 : all.digest.max),
                             ("p(90)", all.digest.percentile(90)), ("p(95)", all.digest.percentile(95))]
                metrics.append((metric.name, parts.map { "\($0.0)=\(show($0.1))" }.joined(separator: " ")))
            case .counter:
                metrics.append((metric.name, "\(number(all.sum))  \(String(format: "%.2f", elapsed > 0 ? all.sum / elapsed : 0))/s"))
            case .rate:
                metrics.append((metric.name, "\(percent(all.trues, of: all.count)) ✓ \(all.trues)  ✗ \(all.count - all.trues)"))
            case .gauge:
                metrics.append((metric.name, number(all.last)))
            }
        }
        for (name, value) in metrics.sorted(by: { $0.0 < $1.0 }) {
            lines.append("     " + name + String(repeating: ".", count: max(3, 31 - name.count)) + ": " + value)
        }
        if !snapshot.errors.isEmpty {
            lines.append("")
            lines.append("     errors that failed iterations:")
            for error in snapshot.errors { lines.append("       \(error.count)× \(error.message)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The thresholds of `options` that do not hold at the end of a run.
    public static func failedThresholds(_ snapshot: ScenarioMetrics.Snapshot, options: ScenarioOptions, elapsed: Double)
        -> [Threshold]
    {
        options.thresholds.filter { !$0.evaluate(snapshot, vus: options.vus, elapsed: elapsed).holds }
    }

    /// A threshold's value as its metric shows: a share for rates, a duration for trends of
    /// seconds, a plain number otherwise.
    private static func shown(_ value: Double, of threshold: Threshold) -> String {
        switch threshold.kind {
        case .rate: return String(format: "%.2f%%", value * 100)
        case .trend where threshold.metricName.hasSuffix("_seconds"): return duration(value)
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
        switch seconds {
        case ..<0.001: return String(format: "%.0fµs", seconds * 1e6)
        case ..<1: return trimmed(String(format: "%.2f", seconds * 1000)) + "ms"
        case ..<60: return trimmed(String(format: "%.2f", seconds)) + "s"
        default:
            let minutes = Int(seconds / 60)
            return "\(minutes)m" + trimmed(String(format: "%.1f", seconds - Double(minutes) * 60)) + "s"
        }
    }

    private static func trimmed(_ number: String) -> String {
        guard number.contains(".") else { return number }
        var text = number
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
