import Foundation
import Timekeeping

/// What a run records, from every VU at once: the built-in metrics (``BuiltInMetric``),
/// the scenario's own (`ccai.metrics`), checks by name, and the errors that failed
/// iterations (each distinct message once, with a count, so that thousands of VUs failing
/// alike log one line).
///
/// ```swift
/// let metrics = ScenarioMetrics()
/// metrics.recordCheck("status is 200", passed: true)
/// metrics.snapshot().checks   // [("status is 200", passes: 1, fails: 0)]
/// ```
public final class ScenarioMetrics: @unchecked Sendable {
    public struct Check: Sendable, Equatable, Codable {
        public var name: String
        /// The group it was made in (`ccai.group`: `"::outer::inner"`); nil: none.
        public var group: String?
        public var passes = 0
        public var fails = 0

        /// What tells two checks apart: the group and the name.
        var key: String { (group ?? "") + "\u{0}" + name }
    }

    /// An error message and how many iterations it failed.
    public struct ErrorCount: Sendable, Equatable, Codable {
        public var message: String
        public var count: Int
    }

    /// One sample as it was recorded, for outputs that stream them (`--out json`).
    public struct Sample: Sendable {
        public var metric: String
        public var kind: MetricKind
        public var time: Date
        public var value: Double
        public var tags: [String: String]
    }

    /// The figures of a run so far.
    public struct Snapshot: Sendable, Equatable {
        /// In the order they were first recorded.
        public var checks: [Check] = []
        /// In the order they first happened.
        public var errors: [ErrorCount] = []
        /// What the run did over time (``Timeline``); segments' merge as they ran, at the same time.
        public var timeline = Timeline()
        /// The built-in metrics (``BuiltInMetric`` order), then the scenario's own in the
        /// order they were declared.
        public var metrics: [Metric] = BuiltInMetric.allCases.map { Metric(name: $0.rawValue, kind: $0.kind) }

        public init() {}

        init(metrics: [Metric]) {
            self.metrics = metrics
        }

        public func metric(named name: String) -> Metric? { metrics.first { $0.name == name } }
        public func metric(_ builtIn: BuiltInMetric) -> Metric { metrics[BuiltInMetric.allCases.firstIndex(of: builtIn)!] }

        public var iterations: Int { metric(.iterations).total.count }
        public var failedIterations: Int { metric(.iterationFailed).total.trues }
        public var checkPasses: Int { checks.reduce(0) { $0 + $1.passes } }
        public var checkFails: Int { checks.reduce(0) { $0 + $1.fails } }
        /// The metrics the scenario declared, by name.
        public var declaredKinds: [String: MetricKind] {
            Dictionary(metrics.dropFirst(BuiltInMetric.allCases.count).map { ($0.name, $0.kind) }, uniquingKeysWith: { a, _ in a })
        }

        /// Adds `other`'s figures: the same scenario's run in another segment.
        public mutating func merge(_ other: Snapshot) {
            for check in other.checks {
                if let index = checks.firstIndex(where: { $0.key == check.key }) {
                    checks[index].passes += check.passes
                    checks[index].fails += check.fails
                } else {
                    checks.append(check)
                }
            }
            // As in a run: past the distinct errors kept, the rest count as "other errors".
            for error in other.errors {
                if let index = errors.firstIndex(where: { $0.message == error.message }) {
                    errors[index].count += error.count
                } else if errors.count < ScenarioMetrics.distinctErrors {
                    errors.append(error)
                } else if let index = errors.firstIndex(where: { $0.message == ScenarioMetrics.otherErrors }) {
                    errors[index].count += error.count
                } else {
                    errors.append(ErrorCount(message: ScenarioMetrics.otherErrors, count: error.count))
                }
            }
            for metric in other.metrics {
                guard let index = metrics.firstIndex(where: { $0.name == metric.name }) else {
                    metrics.append(metric)
                    continue
                }
                // The segments ran at the same time: their VUs add up.
                if metric.name == BuiltInMetric.vus.rawValue { metrics[index].mergeConcurrent(metric) }
                else { metrics[index].merge(metric) }
            }
            timeline = Timeline.concurrent([timeline, other.timeline])
        }
    }

    /// Distinct error messages kept; past this, errors are counted under ``otherErrors``.
    static let distinctErrors = 100
    static let otherErrors = "other errors"

    /// The run's metrics this is a view of (``scoped(_:)``), which it records into; nil:
    /// this holds them.
    private let root: ScenarioMetrics?
    /// The tags a view adds to every sample it records (a VU's scenario and group).
    public let scope: MetricScope?

    private let lock = NSLock()
    /// What the run recorded (a view holds none: it records into its root).
    private var state: Snapshot
    private var checkIndex: [String: Int] = [:]
    private var errorIndex: [String: Int] = [:]
    private var metricIndex: [String: Int]
    private var samples = 0
    private var sink: (@Sendable (Sample) -> Void)?

    /// The time samples are stamped with.
    public let clock: any TimeSource

    public init(clock: any TimeSource = SystemClock()) {
        self.clock = clock
        root = nil
        scope = nil
        state = Snapshot()
        metricIndex = Dictionary(uniqueKeysWithValues: state.metrics.enumerated().map { ($1.name, $0) })
    }

    private init(root: ScenarioMetrics, scope: MetricScope) {
        self.root = root
        self.scope = scope
        clock = root.clock
        // A VU's view: none of the built-in metrics' storage.
        state = Snapshot(metrics: [])
        metricIndex = [:]
    }

    /// A view of these metrics that adds `scope`'s tags to every sample it records (a tag
    /// the sample has itself wins), and files checks under its group: a VU's.
    public func scoped(_ scope: MetricScope) -> ScenarioMetrics {
        ScenarioMetrics(root: root ?? self, scope: scope)
    }

    /// `tags` with the scope's added.
    private func scoped(_ tags: [String: String]) -> [String: String] {
        guard let added = scope?.tags, !added.isEmpty else { return tags }
        return tags.isEmpty ? added : added.merging(tags) { _, own in own }
    }

    /// How many samples the run has recorded so far (of every metric): what a sampler
    /// compares to tell a run doing something from one that waits.
    public var sampleCount: Int { root?.sampleCount ?? lock.withLock { samples } }

    /// Hands every sample to `sink` as it is recorded (called with the recorder's lock
    /// held: it must be quick and must not record).
    public func streamSamples(to sink: @escaping @Sendable (Sample) -> Void) {
        if let root { return root.streamSamples(to: sink) }
        lock.withLock { self.sink = sink }
    }

    /// The longest check name, the most distinct checks, the most declared metrics, and
    /// the longest error message kept (longer ones are cut): what a script records lives
    /// outside its Lua memory budget, so it is bounded here.
    public static let maximumCheckNameBytes = 256
    public static let maximumChecks = 1_000
    public static let maximumMetrics = 1_000
    static let maximumErrorBytes = 1_024

    /// Records a check (and a sample of `checks` tagged with its name); returns the
    /// problem when its name is too long or there are too many distinct checks already.
    @discardableResult
    public func recordCheck(_ name: String, passed: Bool) -> String? {
        recordCheck(name, passed: passed, tags: [:])
    }

    private func recordCheck(_ name: String, passed: Bool, tags: [String: String]) -> String? {
        if let root { return root.recordCheck(name, passed: passed, tags: scoped(tags)) }
        guard name.utf8.count <= Self.maximumCheckNameBytes else {
            return "a check name has at most \(Self.maximumCheckNameBytes) bytes"
        }
        let check = Check(name: name, group: tags[MetricScope.groupTag])
        return lock.withLock {
            if checkIndex[check.key] == nil, state.checks.count >= Self.maximumChecks {
                return "a run has at most \(Self.maximumChecks) distinct checks"
            }
            let index = checkIndex[check.key] ?? {
                state.checks.append(check)
                checkIndex[check.key] = state.checks.count - 1
                return state.checks.count - 1
            }()
            if passed { state.checks[index].passes += 1 } else { state.checks[index].fails += 1 }
            recordLocked(.checks, passed ? 1 : 0, tags: tags.merging(["check": name]) { _, name in name })
            return nil
        }
    }

    /// What failed an iteration: its message, and the `reason` its `iteration_failed` sample
    /// is tagged with.
    public struct IterationFailure: Sendable, Equatable {
        public enum Reason: String, Sendable, CaseIterable {
            /// The iteration raised an error.
            case error
            /// The end of the run cut it off: its `graceful_stop` passed, the run timed out,
            /// or it was stopped by Ctrl-C.
            case interrupted
        }

        public var message: String
        public var reason: Reason

        public init(message: String, reason: Reason) {
            self.message = message
            self.reason = reason
        }
    }

    /// Records an ended iteration; `error` is the message of what failed it (an error).
    public func recordIteration(seconds: Double, error: String?) {
        recordIteration(seconds: seconds, failure: error.map { IterationFailure(message: $0, reason: .error) })
    }

    /// Records an ended iteration, failed by `failure` when there is one.
    public func recordIteration(seconds: Double, failure: IterationFailure?) {
        recordIteration(seconds: seconds, failure: failure, tags: [:])
    }

    private func recordIteration(seconds: Double, failure: IterationFailure?, tags: [String: String]) {
        if let root { return root.recordIteration(seconds: seconds, failure: failure, tags: scoped(tags)) }
        let error = failure.map { $0.message.utf8.count <= Self.maximumErrorBytes ? $0.message : Self.cut($0.message) }
        lock.withLock {
            recordLocked(.iterations, 1, tags: tags)
            recordLocked(.iterationDuration, seconds, tags: tags)
            let failed = failure.map { tags.merging(["reason": $0.reason.rawValue]) { _, reason in reason } } ?? tags
            recordLocked(.iterationFailed, failure == nil ? 0 : 1, tags: failed)
            guard let error else { return }
            if let index = errorIndex[error] {
                state.errors[index].count += 1
            } else if state.errors.count < Self.distinctErrors {
                state.errors.append(ErrorCount(message: error, count: 1))
                errorIndex[error] = state.errors.count - 1
            } else {
                let other = Self.otherErrors
                if let index = errorIndex[other] { state.errors[index].count += 1 } else {
                    state.errors.append(ErrorCount(message: other, count: 1))
                    errorIndex[other] = state.errors.count - 1
                }
            }
        }
    }

    /// Records a sample of a built-in metric.
    public func record(_ metric: BuiltInMetric, _ value: Double, tags: [String: String] = [:]) {
        if let root { return root.record(metric, value, tags: scoped(tags)) }
        lock.withLock { recordLocked(metric, value, tags: tags) }
    }

    private func recordLocked(_ metric: BuiltInMetric, _ value: Double, tags: [String: String]) {
        recordLocked(index: metricIndex[metric.rawValue]!, value, tags: tags)
        state.timeline.record(metric, value, tags: tags, at: clock.now())
    }

    private func recordLocked(index: Int, _ value: Double, tags: [String: String]) {
        let key = Metric.key(tags)
        if state.metrics[index].series[key] == nil, state.metrics[index].series.count >= Self.seriesPerMetric { return }
        samples += 1
        state.metrics[index].record(value, key: key, sequence: samples)
        sink?(Sample(metric: state.metrics[index].name, kind: state.metrics[index].kind, time: clock.now(), value: value, tags: tags))
    }

    public func snapshot() -> Snapshot { root?.snapshot() ?? lock.withLock { state } }

    /// The first ``maximumErrorBytes`` of a message (whole characters), marked as cut.
    private static func cut(_ message: String) -> String {
        var kept = ""
        for character in message {
            guard kept.utf8.count + character.utf8.count <= maximumErrorBytes else { break }
            kept.append(character)
        }
        return kept + "…"
    }

    /// Names a metric may have: a letter or `_`, then letters, digits and `_`, at most 128.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 128,
            first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }

    /// The most tags one sample may carry, and the most tag sets one metric keeps (later
    /// ones are dropped).
    static let tagsPerSample = 16
    static let seriesPerMetric = 1_000

    /// Declares a metric (each VU's top level declares it again: the same kind is fine);
    /// returns the problem when the name is not a name, is built in, or has another kind.
    public func declare(_ name: String, kind: MetricKind) -> String? {
        guard Self.isValidName(name) else {
            return "a metric name is a letter or _, then letters, digits and _ (at most 128), got '\(name)'"
        }
        if BuiltInMetric.kind(of: name) != nil { return "\(name) is a built-in metric" }
        if let root { return root.declare(name, kind: kind) }
        return lock.withLock {
            if let existing = metricIndex[name] {
                let declared = state.metrics[existing].kind
                return declared == kind ? nil : "\(name) is already a \(declared.rawValue)"
            }
            guard state.metrics.count - BuiltInMetric.allCases.count < Self.maximumMetrics else {
                return "a run has at most \(Self.maximumMetrics) metrics"
            }
            state.metrics.append(Metric(name: name, kind: kind))
            metricIndex[name] = state.metrics.count - 1
            return nil
        }
    }

    /// Records a sample of a declared metric (a rate's value is 1 for true, 0 for false);
    /// a name not declared, or built in, records nothing.
    public func add(_ name: String, value: Double, tags: [String: String]) {
        guard BuiltInMetric.kind(of: name) == nil else { return }
        if let root { return root.add(name, value: value, tags: scoped(tags)) }
        lock.withLock {
            guard let index = metricIndex[name] else { return }
            recordLocked(index: index, value, tags: tags)
        }
    }

    /// The declared metrics' kinds by name.
    public var declaredKinds: [String: MetricKind] { root?.declaredKinds ?? lock.withLock { state.declaredKinds } }
}
