import CCAIWire
import Foundation
import LuaRuntime

/// A pass/fail criterion on a metric, in k6's expression syntax: `"p(95) < 5"`,
/// `"rate > 0.99"`, `"count >= 100"`. A threshold that fails makes the run exit 99; with
/// `abort_on_fail` it also stops the run as soon as it fails.
///
/// ```lua
/// thresholds = {
///   checks = "rate > 0.99",
///   iteration_duration_seconds = { "p(95) < 5", { threshold = "max < 30", abort_on_fail = true } },
/// }
/// ```
public struct Threshold: Sendable, Equatable {
    /// What a threshold reads of its metric.
    public enum Aggregation: Sendable, Equatable, CustomStringConvertible {
        case average, minimum, maximum, median, percentile(Double), rate, count, value

        public var description: String {
            switch self {
            case .average: return "avg"
            case .minimum: return "min"
            case .maximum: return "max"
            case .median: return "med"
            case .percentile(let percent): return "p(\(ScenarioSummary.number(percent)))"
            case .rate: return "rate"
            case .count: return "count"
            case .value: return "value"
            }
        }
    }

    public enum Comparison: String, Sendable, CaseIterable {
        case lessOrEqual = "<=", greaterOrEqual = ">=", equal = "==", notEqual = "!=", less = "<", greater = ">"

        func holds(_ left: Double, _ right: Double) -> Bool {
            switch self {
            case .less: return left < right
            case .lessOrEqual: return left <= right
            case .greater: return left > right
            case .greaterOrEqual: return left >= right
            case .equal: return left == right
            case .notEqual: return left != right
            }
        }
    }

    /// The metric as written, tags included (`"chat_seconds{queue:billing}"`).
    public var metric: String
    /// The metric's name, without tags.
    public var metricName: String
    /// The tags a sample must have to count (a sub-metric); empty: every sample.
    public var tags: [String: String]
    public var kind: MetricKind
    /// The expression as written (`"p(95) < 5"`).
    public var source: String
    public var aggregation: Aggregation
    public var comparison: Comparison
    public var bound: Double
    public var abortOnFail = false

    /// Parses one expression for `metric` (a built-in one, or one of `declared`, the
    /// scenario's own metrics by name); a problem names the option it came from.
    public init(metric: String, expression: String, abortOnFail: Bool = false, declared: [String: MetricKind] = [:]) throws {
        self.metric = metric
        self.source = expression
        self.abortOnFail = abortOnFail
        let option = "options.thresholds.\(metric)"
        (metricName, tags) = try Self.split(metric, option: option)
        guard let kind = BuiltInMetric.kind(of: metricName) ?? declared[metricName] else {
            let suggestion = Suggestion.didYouMean(metricName, among: BuiltInMetric.names + declared.keys)
            throw ScenarioOptions.Problem(option: option, message: "no metric named \(metricName)\(suggestion) (built in: "
                                          + BuiltInMetric.names.joined(separator: ", ") + "; declared with ccai.metrics: "
                                          + (declared.isEmpty ? "none" : declared.keys.sorted().joined(separator: ", ")) + ")")
        }
        self.kind = kind
        let text = expression.trimmingCharacters(in: .whitespaces)
        guard let comparison = Comparison.allCases.first(where: { text.contains($0.rawValue) }),
            let split = text.range(of: comparison.rawValue)
        else {
            throw ScenarioOptions.Problem(option: option, message: "\"\(expression)\" is not an expression such as "
                                          + "\"p(95) < 5\" (an aggregation, one of < <= > >= == !=, a number)")
        }
        self.comparison = comparison
        let left = text[..<split.lowerBound].trimmingCharacters(in: .whitespaces)
        let right = text[split.upperBound...].trimmingCharacters(in: .whitespaces)
        // A decimal number as k6 reads one (Swift's Double would also take "0x10" or "inf").
        let decimal = !right.isEmpty && right.unicodeScalars.allSatisfy { "0123456789.+-eE".unicodeScalars.contains($0) }
        guard decimal, let bound = Double(right), bound.isFinite else {
            throw ScenarioOptions.Problem(option: option, message: "\"\(expression)\": a number expected after "
                                          + "\(comparison.rawValue), got \"\(right)\"")
        }
        self.bound = bound
        guard let aggregation = Self.aggregation(left) else {
            throw ScenarioOptions.Problem(option: option, message: "\"\(expression)\": unknown aggregation \"\(left)\" "
                                          + "(\(kind.aggregations))")
        }
        guard kind.allows(aggregation) else {
            throw ScenarioOptions.Problem(option: option, message: "\"\(expression)\": \(metric) is a \(kind.rawValue), "
                                          + "its thresholds read \(kind.aggregations)")
        }
        self.aggregation = aggregation
    }

    /// The thresholds of an `options.thresholds` table: by metric name, a string, or a list
    /// of strings and `{ threshold = "...", abort_on_fail = true }` tables. Every bad one
    /// is reported at once: one problem, or `options.thresholds` listing each.
    static func parse(_ value: LuaValue, declared: [String: MetricKind]) throws -> [Threshold] {
        guard let fields = value.dictionaryValue else {
            throw ScenarioOptions.Problem(option: "options.thresholds", message: "a table by metric name expected, got \(value.typeName)")
        }
        var thresholds: [Threshold] = []
        var problems: [ScenarioOptions.Problem] = []
        for metric in fields.keys.sorted() {
            let entry = fields[metric]!
            let items = entry.arrayValue ?? [entry]
            if items.isEmpty {
                problems.append(ScenarioOptions.Problem(option: "options.thresholds.\(metric)", message: "no expression given"))
            }
            for item in items {
                do { thresholds.append(try threshold(item, metric: metric, declared: declared)) } catch let problem as ScenarioOptions.Problem {
                    problems.append(problem)
                }
            }
        }
        guard problems.count < 2 else {
            throw ScenarioOptions.Problem(option: "options.thresholds", message: "\(problems.count) thresholds are wrong:\n  "
                                          + problems.map(\.description).joined(separator: "\n  "))
        }
        if let problem = problems.first { throw problem }
        return thresholds
    }

    /// One item of a metric's thresholds: an expression, or `{ threshold = "...", abort_on_fail = true }`.
    private static func threshold(_ item: LuaValue, metric: String, declared: [String: MetricKind]) throws -> Threshold {
        if let expression = item.stringValue { return try Threshold(metric: metric, expression: expression, declared: declared) }
        guard let table = item.dictionaryValue, let expression = table["threshold"]?.stringValue else {
            throw ScenarioOptions.Problem(option: "options.thresholds.\(metric)", message: "an expression such as "
                                          + "\"p(95) < 5\", a list of them, or { threshold = \"...\", abort_on_fail = true } expected")
        }
        let abort = table["abort_on_fail"]
        guard abort == nil || abort?.boolValue != nil else {
            throw ScenarioOptions.Problem(option: "options.thresholds.\(metric)",
                                          message: "abort_on_fail: a boolean expected, got \(abort!.typeName)")
        }
        return try Threshold(metric: metric, expression: expression, abortOnFail: abort?.boolValue ?? false, declared: declared)
    }

    /// The metric's value for this threshold, and whether the threshold holds. A trend,
    /// a rate or a gauge without a sample has no value (NaN): its threshold fails, so that
    /// a service level does not hold when no chat was answered. A counter without a
    /// sample counts 0.
    public func evaluate(_ snapshot: ScenarioMetrics.Snapshot, elapsed: Double) -> (holds: Bool, observed: Double) {
        let series = snapshot.metric(named: metricName)?.matching(tags) ?? Metric.Series()
        guard series.count > 0 || kind == .counter else { return (false, .nan) }
        let observed = Self.value(of: series, kind: kind, aggregation, elapsed: elapsed)
        return (comparison.holds(observed, bound), observed)
    }

    /// Whether the metric has a sample yet: while a run goes on, `abort_on_fail` waits
    /// for one (an empty rate reads 0, which would abort before anything happened).
    public func hasSamples(_ snapshot: ScenarioMetrics.Snapshot) -> Bool {
        (snapshot.metric(named: metricName)?.matching(tags).count ?? 0) > 0
    }

    /// What `aggregation` reads of a series of a metric of `kind`.
    static func value(of series: Metric.Series, kind: MetricKind, _ aggregation: Aggregation, elapsed: Double) -> Double {
        switch (kind, aggregation) {
        case (.rate, _): return series.count == 0 ? 0 : Double(series.trues) / Double(series.count)
        case (.counter, .count): return series.sum
        case (.counter, _): return elapsed > 0 ? series.sum / elapsed : 0
        case (.gauge, _): return series.last
        case (.trend, .average): return series.digest.average
        case (.trend, .minimum): return series.count == 0 ? 0 : series.digest.min
        case (.trend, .maximum): return series.count == 0 ? 0 : series.digest.max
        case (.trend, .median): return series.digest.percentile(50)
        case (.trend, .percentile(let percent)): return series.digest.percentile(percent)
        case (.trend, _): return 0
        }
    }

    /// `"name{a:b,c:d}"` -> ("name", ["a": "b", "c": "d"]).
    private static func split(_ metric: String, option: String) throws -> (String, [String: String]) {
        guard let brace = metric.firstIndex(of: "{") else { return (metric, [:]) }
        guard metric.hasSuffix("}") else {
            throw ScenarioOptions.Problem(option: option, message: "a sub-metric is written name{tag:value,...}")
        }
        var tags: [String: String] = [:]
        for pair in metric[metric.index(after: brace)..<metric.index(before: metric.endIndex)].split(separator: ",") {
            let parts = pair.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ScenarioOptions.Problem(option: option, message: "a sub-metric is written name{tag:value,...}")
            }
            guard tags.updateValue(parts[1], forKey: parts[0]) == nil else {
                throw ScenarioOptions.Problem(option: option, message: "the tag \(parts[0]) is given twice")
            }
        }
        guard !tags.isEmpty else {
            throw ScenarioOptions.Problem(option: option, message: "a sub-metric is written name{tag:value,...}, with a tag at least")
        }
        return (String(metric[..<brace]), tags)
    }

    private static func aggregation(_ text: String) -> Aggregation? {
        switch text {
        case "avg": return .average
        case "min": return .minimum
        case "max": return .maximum
        case "med": return .median
        case "rate": return .rate
        case "count": return .count
        case "value": return .value
        default:
            guard text.hasPrefix("p("), text.hasSuffix(")"),
                let percent = Double(text.dropFirst(2).dropLast()), percent >= 0, percent <= 100
            else { return nil }
            return .percentile(percent)
        }
    }
}
