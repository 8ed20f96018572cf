import Foundation
import LuaRuntime

/// A run's summary as a file (`--summary-out FILE`, and the last line of `--out json`):
/// the thresholds as written, the checks, the errors, and every metric's series with their
/// exact counts and their trends' digests, so that `ccai report merge` can add the
/// summaries of a run's segments and evaluate the thresholds again on the whole, with
/// percentiles of the merged data rather than averages of percentiles. Each metric also
/// says its values (`avg`, `p(95)`, `rate`, ...) for people and tools reading the file;
/// those are not read back.
///
/// ```swift
/// let report = ScenarioReport(snapshot, options: options, elapsed: 12.5, script: "load.lua", segment: .whole)
/// try report.json().write(to: url)
/// let merged = try ScenarioReport.merge([a, b, c])
/// ```
public struct ScenarioReport: Codable, Equatable, Sendable {
    /// A summary file that cannot be read or merged, naming what is wrong.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public struct StoredThreshold: Codable, Equatable, Sendable {
        public var metric: String
        public var threshold: String
        public var abortOnFail: Bool
        enum CodingKeys: String, CodingKey {
            case metric, threshold
            case abortOnFail = "abort_on_fail"
        }
    }

    public struct StoredSeries: Codable, Equatable, Sendable {
        public var tags: [String: String]
        public var count: Int
        public var sum: Double
        public var trues: Int
        public var min: Double?
        public var max: Double?
        public var last: Double
        public var digest: TrendDigest.Stored?
    }

    public struct StoredMetric: Codable, Equatable, Sendable {
        public var name: String
        public var kind: MetricKind
        /// What thresholds and the summary read of the metric (every sample): not read back.
        public var values: [String: Double]
        public var series: [StoredSeries]
    }

    public static let formatName = "ccai-scenario-summary"
    public static let currentVersion = 1
    /// The most summary files one merge reads, and the largest one.
    public static let maximumFiles = 1_000
    public static let maximumFileBytes = 256 << 20
    /// The most checks, errors, metrics and series of a metric a summary file may hold:
    /// more than one run records (a merge of segments holds what all of them saw).
    static let maximumStoredItems = 100_000

    public var format = Self.formatName
    public var version = Self.currentVersion
    public var script: String
    /// The seed the run drew its random numbers from (``RandomSeed``); the slices of a run
    /// share it.
    public var seed: UInt64?
    /// `"I/N"`; a merged summary lists the segments it holds, comma-separated.
    public var segment: String
    public var elapsedSeconds: Double
    public var thresholds: [StoredThreshold]
    public var abortedBy: StoredThreshold?
    public var checks: [ScenarioMetrics.Check]
    public var errors: [ScenarioMetrics.ErrorCount]
    public var metrics: [StoredMetric]
    /// The scenario's `summary_tags`, for a merged summary to show the same sub-metrics.
    public var summaryTags: [String: [String]]?
    /// What the run did over time (the charts, the history of `--out csv`); absent in the
    /// summaries of older versions and of runs without a sample.
    public var timeline: StoredTimeline?
    /// When the run began, its version, options and script (``RunFacts``); a merge keeps
    /// the first segment's, with the earliest start.
    public var run: RunFacts?

    enum CodingKeys: String, CodingKey {
        case format, version, script, seed, segment, thresholds, checks, errors, metrics, timeline, run
        case summaryTags = "summary_tags"
        case elapsedSeconds = "elapsed_seconds"
        case abortedBy = "aborted_by"
    }

    public init(_ snapshot: ScenarioMetrics.Snapshot, options: ScenarioOptions, elapsed: Double, script: String,
                segment: ScenarioSegment, abortedBy: Threshold? = nil, run: RunFacts? = nil) {
        self.script = script
        self.run = run
        timeline = StoredTimeline(snapshot.timeline)
        seed = options.seed?.value
        self.segment = segment.description
        elapsedSeconds = elapsed
        thresholds = options.thresholds.map(Self.stored)
        self.abortedBy = abortedBy.map(Self.stored)
        checks = snapshot.checks
        errors = snapshot.errors
        summaryTags = options.summaryTags.isEmpty ? nil : options.summaryTags
        metrics = snapshot.metrics.filter { $0.total.count > 0 }.map { metric in
            StoredMetric(name: metric.name, kind: metric.kind, values: Self.values(of: metric.total, kind: metric.kind, elapsed: elapsed),
                         series: metric.series.sorted { $0.key < $1.key }.map { key, series in
                             StoredSeries(tags: Metric.tags(of: key), count: series.count, sum: series.sum, trues: series.trues,
                                          min: series.count > 0 ? series.min : nil, max: series.count > 0 ? series.max : nil,
                                          last: series.last, digest: metric.kind == .trend ? series.digest.stored : nil)
                         })
        }
    }

    private static func stored(_ threshold: Threshold) -> StoredThreshold {
        StoredThreshold(metric: threshold.metric, threshold: threshold.source, abortOnFail: threshold.abortOnFail)
    }

    /// What a threshold would read of a series, by aggregation name.
    static func values(of series: Metric.Series, kind: MetricKind, elapsed: Double) -> [String: Double] {
        let aggregations: [Threshold.Aggregation]
        switch kind {
        case .trend: aggregations = [.average, .minimum, .median, .maximum, .percentile(90), .percentile(95), .percentile(99)]
        case .rate: aggregations = [.rate]
        case .counter: aggregations = [.count, .rate]
        case .gauge: aggregations = [.value]
        }
        var values: [String: Double] = [:]
        for aggregation in aggregations {
            values[aggregation.description] = Threshold.value(of: series, kind: kind, aggregation, elapsed: elapsed)
        }
        if kind == .gauge, series.count > 0 {
            values["min"] = series.min
            values["max"] = series.max
        }
        return values
    }

    // MARK: - Files

    /// The summary as JSON text (keys sorted, one object).
    public func json(pretty: Bool = true) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Reads a summary file, refusing one that is too large, not a summary, or whose
    /// figures do not add up.
    public static func read(_ path: String) throws -> ScenarioReport {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Problem(message: "\(path): cannot be read")
        }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: maximumFileBytes + 1) ?? Data()
        guard data.count <= maximumFileBytes else {
            throw Problem(message: "\(path): larger than \(maximumFileBytes >> 20) MiB, not a summary of ccai run")
        }
        let report: ScenarioReport
        do {
            report = try JSONDecoder().decode(ScenarioReport.self, from: data)
        } catch {
            throw Problem(message: "\(path): not a summary written by ccai run --summary-out (\(Self.describe(error)))")
        }
        guard report.format == formatName else { throw Problem(message: "\(path): format '\(report.format)', not \(formatName)") }
        guard report.version == currentVersion else {
            throw Problem(message: "\(path): version \(report.version) of the summary format; this ccai reads version \(currentVersion)")
        }
        _ = try report.snapshot(source: path)
        _ = try report.options(source: path)
        return report
    }

    private static func describe(_ error: Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        let failure = DecodingFailure(decoding)
        if failure.reason == .missing { return "no '\(failure.field)'" }
        return failure.field.isEmpty ? "not JSON" : "'\(failure.field)' is not what a summary has"
    }

    // MARK: - Back to figures

    /// The figures the summary holds, checked: names that are names, kinds that match the
    /// built-in metrics, counts within bounds, digests that add up.
    public func snapshot(source: String = "the summary") throws -> ScenarioMetrics.Snapshot {
        func problem(_ message: String) -> Problem { Problem(message: "\(source): \(message)") }
        let limit = TrendDigest.maximumStoredCount
        var snapshot = ScenarioMetrics.Snapshot()
        let most = Self.maximumStoredItems
        guard checks.count <= most, errors.count <= most, metrics.count <= most else {
            throw problem("more than \(most) checks, errors or metrics")
        }
        for check in checks {
            guard check.name.utf8.count <= ScenarioMetrics.maximumCheckNameBytes, (0...limit).contains(check.passes),
                (0...limit).contains(check.fails)
            else { throw problem("check '\(check.name.prefix(60))' is not what a run records") }
        }
        for error in errors where !(1...limit).contains(error.count) { throw problem("an error count out of range") }
        snapshot.checks = checks
        snapshot.errors = errors
        if let timeline {
            do { snapshot.timeline = try timeline.timeline() } catch let failure as Problem { throw problem(failure.message) }
        }
        guard run?.isBounded ?? true else { throw problem("run: longer texts than a run writes") }
        for stored in metrics {
            guard ScenarioMetrics.isValidName(stored.name) else { throw problem("'\(stored.name.prefix(60))' is not a metric name") }
            if let builtIn = BuiltInMetric(rawValue: stored.name), builtIn.kind != stored.kind {
                throw problem("\(stored.name) is a \(builtIn.kind.rawValue), not a \(stored.kind.rawValue)")
            }
            guard stored.series.count <= most else { throw problem("\(stored.name): more than \(most) series") }
            var metric = Metric(name: stored.name, kind: stored.kind)
            for item in stored.series {
                guard item.tags.count <= ScenarioMetrics.tagsPerSample, (0...limit).contains(item.count),
                    (0...item.count).contains(item.trues), item.sum.isFinite, item.last.isFinite
                else {
                    throw problem("\(stored.name): a series is not what a run records (counts from 0 to \(limit), "
                                  + "finite sums: a merge whose sums pass a Double's range cannot be kept)")
                }
                var series = Metric.Series()
                series.count = item.count
                series.sum = item.sum
                series.trues = item.trues
                series.last = item.last
                if item.count > 0 {
                    guard let min = item.min, let max = item.max, min.isFinite, max.isFinite, min <= max else {
                        throw problem("\(stored.name): a series without its min and max")
                    }
                    series.min = min
                    series.max = max
                }
                if stored.kind == .trend {
                    guard let digest = item.digest.flatMap(TrendDigest.init), digest.count == item.count else {
                        throw problem("\(stored.name): a trend's digest is missing or does not add up")
                    }
                    series.digest = digest
                }
                let key = Metric.key(item.tags)
                guard metric.series[key] == nil else { throw problem("\(stored.name): the tags \(key) twice") }
                metric.series[key] = series
            }
            if let index = snapshot.metrics.firstIndex(where: { $0.name == stored.name }) {
                guard snapshot.metrics[index].series.isEmpty else { throw problem("\(stored.name) twice") }
                snapshot.metrics[index] = metric
            } else {
                snapshot.metrics.append(metric)
            }
        }
        return snapshot
    }

    /// The options the thresholds make, parsed again as the run parsed them.
    public func options(source: String = "the summary") throws -> ScenarioOptions {
        var options = ScenarioOptions()
        let declared = try snapshot(source: source).declaredKinds
        do {
            options.thresholds = try thresholds.map {
                try Threshold(metric: $0.metric, expression: $0.threshold, abortOnFail: $0.abortOnFail, declared: declared)
            }
        } catch let problem as ScenarioOptions.Problem {
            throw Problem(message: "\(source): \(problem)")
        }
        options.seed = seed.map(RandomSeed.init)
        options.summaryTags = summaryTags ?? [:]
        return options
    }

    /// The threshold that aborted the run, if one did.
    public func abortingThreshold() -> Threshold? {
        guard let abortedBy else { return nil }
        return try? Threshold(metric: abortedBy.metric, expression: abortedBy.threshold, abortOnFail: true,
                              declared: (try? snapshot().declaredKinds) ?? [:])
    }

    // MARK: - Merging

    /// The summaries of a run's segments as one: counts add, trends merge their digests,
    /// the run lasted as long as its longest segment. The thresholds must be the same in
    /// every summary (the same scenario), and a segment may appear only once.
    public static func merge(_ reports: [ScenarioReport], sources: [String]? = nil) throws -> ScenarioReport {
        guard let first = reports.first else { throw Problem(message: "no summary to merge") }
        guard reports.count <= maximumFiles else { throw Problem(message: "at most \(maximumFiles) summaries merge at once") }
        let names = sources ?? reports.indices.map { "summary \($0 + 1)" }
        var snapshot = try first.snapshot(source: names[0])
        var segments: [ScenarioSegment] = []
        var merged = first
        for (report, source) in zip(reports, names) {
            if source != names[0] {
                guard report.thresholds == first.thresholds else {
                    throw Problem(message: "\(source): its thresholds differ from \(names[0])'s: not a segment of the same run")
                }
                guard report.seed == first.seed else {
                    throw Problem(message: "\(source): its seed (\(report.seed.map(String.init) ?? "none")) differs from \(names[0])'s "
                                  + "(\(first.seed.map(String.init) ?? "none")): not a segment of the same run")
                }
            }
            for text in report.segment.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                guard let segment = try? ScenarioSegment(text) else {
                    throw Problem(message: "\(source): '\(text.prefix(40))' is not a segment such as 2/3")
                }
                guard segments.first.map({ $0.count == segment.count }) ?? true else {
                    throw Problem(message: "\(source): segment \(segment) is of a run cut in \(segment.count), the others in "
                                  + "\(segments[0].count)")
                }
                guard !segments.contains(segment) else {
                    throw Problem(message: "\(source): segment \(segment) is already in the merge")
                }
                segments.append(segment)
            }
            guard source != names[0] else { continue }
            snapshot.merge(try report.snapshot(source: source))
            merged.elapsedSeconds = max(merged.elapsedSeconds, report.elapsedSeconds)
            merged.abortedBy = merged.abortedBy ?? report.abortedBy
            if report.script != merged.script { merged.script = merged.script + ", " + report.script }
            if let start = report.run?.startedAt, start < merged.run?.startedAt ?? start { merged.run?.startedAt = start }
        }
        var result = ScenarioReport(snapshot, options: try first.options(source: names[0]), elapsed: merged.elapsedSeconds,
                                    script: merged.script, segment: .whole, run: merged.run)
        result.segment = segments.map(\.description).joined(separator: ",")
        result.seed = first.seed
        result.abortedBy = merged.abortedBy
        _ = try result.snapshot(source: "the merge")
        return result
    }

    /// The segments the summary holds that leave gaps: for a merge of `I/N` segments, those
    /// of 1...N that are not there.
    public var missingSegments: [String] {
        let parts = segment.split(separator: ",").compactMap { try? ScenarioSegment(String($0)) }
        guard let count = parts.first?.count, count > 1, parts.allSatisfy({ $0.count == count }) else { return [] }
        let present = Set(parts.map(\.index))
        return (1...count).filter { !present.contains($0) }.map { "\($0)/\(count)" }
    }
}
