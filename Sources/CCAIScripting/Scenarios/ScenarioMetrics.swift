import Foundation

/// What a run records, from every VU at once: checks by name, iterations and their
/// durations, and the errors that failed iterations (each distinct message once, with a
/// count, so that thousands of VUs failing alike log one line).
///
/// ```swift
/// let metrics = ScenarioMetrics()
/// metrics.recordCheck("status is 200", passed: true)
/// metrics.snapshot().checks   // [("status is 200", passes: 1, fails: 0)]
/// ```
public final class ScenarioMetrics: @unchecked Sendable {
    public struct Check: Sendable, Equatable {
        public var name: String
        public var passes = 0
        public var fails = 0
    }

    /// An error message and how many iterations it failed.
    public struct ErrorCount: Sendable, Equatable {
        public var message: String
        public var count: Int
    }

    /// The figures of a run so far.
    public struct Snapshot: Sendable {
        /// In the order they were first recorded.
        public var checks: [Check] = []
        public var iterations = 0
        public var failedIterations = 0
        public var iterationSeconds = TrendDigest()
        /// In the order they first happened.
        public var errors: [ErrorCount] = []
        /// The scenario's own metrics, in the order they were declared.
        public var custom: [CustomMetric] = []

        public var checkPasses: Int { checks.reduce(0) { $0 + $1.passes } }
        public var checkFails: Int { checks.reduce(0) { $0 + $1.fails } }
    }

    /// Distinct error messages kept; past this, errors are counted under the last entry.
    static let distinctErrors = 100

    private let lock = NSLock()
    private var state = Snapshot()
    private var checkIndex: [String: Int] = [:]
    private var errorIndex: [String: Int] = [:]
    private var customIndex: [String: Int] = [:]
    private var samples = 0

    public init() {}

    /// The longest check name, the most distinct checks, the most declared metrics, and
    /// the longest error message kept (longer ones are cut): what a script records lives
    /// outside its Lua memory budget, so it is bounded here.
    public static let maximumCheckNameBytes = 256
    public static let maximumChecks = 1_000
    public static let maximumMetrics = 1_000
    static let maximumErrorBytes = 1_024

    /// Records a check; returns the problem when its name is too long or there are too
    /// many distinct checks already.
    @discardableResult
    public func recordCheck(_ name: String, passed: Bool) -> String? {
        guard name.utf8.count <= Self.maximumCheckNameBytes else {
            return "a check name has at most \(Self.maximumCheckNameBytes) bytes"
        }
        return lock.withLock {
            if checkIndex[name] == nil, state.checks.count >= Self.maximumChecks {
                return "a run has at most \(Self.maximumChecks) distinct checks"
            }
            let index = checkIndex[name] ?? {
                state.checks.append(Check(name: name))
                checkIndex[name] = state.checks.count - 1
                return state.checks.count - 1
            }()
            if passed { state.checks[index].passes += 1 } else { state.checks[index].fails += 1 }
            return nil
        }
    }

    /// Records an ended iteration; `error` is the message of what failed it.
    public func recordIteration(seconds: Double, error: String?) {
        let error = error.map { $0.utf8.count <= Self.maximumErrorBytes ? $0 : Self.cut($0) }
        lock.withLock {
            state.iterations += 1
            state.iterationSeconds.add(seconds)
            guard let error else { return }
            state.failedIterations += 1
            if let index = errorIndex[error] {
                state.errors[index].count += 1
            } else if state.errors.count < Self.distinctErrors {
                state.errors.append(ErrorCount(message: error, count: 1))
                errorIndex[error] = state.errors.count - 1
            } else {
                let other = "other errors"
                if let index = errorIndex[other] { state.errors[index].count += 1 } else {
                    state.errors.append(ErrorCount(message: other, count: 1))
                    errorIndex[other] = state.errors.count - 1
                }
            }
        }
    }

    public func snapshot() -> Snapshot { lock.withLock { state } }

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

    /// The most tags one sample may carry, and the most tag sets one metric keeps.
    static let tagsPerSample = 16
    static let seriesPerMetric = 1_000

    /// Declares a metric (each VU's top level declares it again: the same kind is fine);
    /// returns the problem when the name is not a name, is built in, or has another kind.
    public func declare(_ name: String, kind: MetricKind) -> String? {
        guard Self.isValidName(name) else {
            return "a metric name is a letter or _, then letters, digits and _ (at most 128), got '\(name)'"
        }
        if BuiltInMetric.kind(of: name) != nil { return "\(name) is a built-in metric" }
        return lock.withLock {
            if let existing = customIndex[name] {
                let declared = state.custom[existing].kind
                return declared == kind ? nil : "\(name) is already a \(declared.rawValue)"
            }
            guard state.custom.count < Self.maximumMetrics else { return "a run has at most \(Self.maximumMetrics) metrics" }
            state.custom.append(CustomMetric(name: name, kind: kind))
            customIndex[name] = state.custom.count - 1
            return nil
        }
    }

    /// Records a sample of a declared metric (a rate's value is 1 for true, 0 for false).
    public func add(_ name: String, value: Double, tags: [String: String]) {
        let key = CustomMetric.key(tags)
        lock.withLock {
            guard let index = customIndex[name] else { return }
            let isTrend = state.custom[index].kind == .trend
            if state.custom[index].series[key] == nil, state.custom[index].series.count >= Self.seriesPerMetric { return }
            // In place: a copy of the metric would copy all its series on every sample.
            samples += 1
            state.custom[index].series[key, default: CustomMetric.Series()].record(value, isTrend: isTrend, sequence: samples)
        }
    }

    /// The declared metrics' kinds by name.
    public var declaredKinds: [String: MetricKind] {
        lock.withLock { Dictionary(uniqueKeysWithValues: state.custom.map { ($0.name, $0.kind) }) }
    }
}
