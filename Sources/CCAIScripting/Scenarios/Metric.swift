import Foundation

/// One metric of a run, built in or declared with `ccai.metrics`, and its samples by tag
/// set, so that a threshold can read a tagged sub-metric (`"sdk_call_seconds{method:start}"`):
/// the samples whose tags include those.
///
/// ```swift
/// var metric = Metric(name: "queue_wait_seconds", kind: .trend)
/// metric.record(4.2, tags: ["queue": "billing"], sequence: 1)
/// metric.matching(["queue": "billing"]).digest.percentile(80)   // about 4.2
/// ```
public struct Metric: Sendable, Equatable {
    /// What one tag set of a metric holds; adding two of them is exact for counts, sums,
    /// rates, min and max, and digest-exact for percentiles.
    public struct Series: Sendable, Equatable {
        public var count = 0
        public var sum = 0.0
        /// Samples other than 0 (a rate's true ones).
        public var trues = 0
        public var min = Double.infinity
        public var max = -Double.infinity
        /// The latest value, and when it came (the run's sample count then).
        public var last = 0.0
        var lastSequence = 0
        /// The values, for trends only.
        public var digest = TrendDigest()

        mutating func record(_ value: Double, isTrend: Bool, sequence: Int) {
            count += 1
            sum += value
            if value != 0 { trues += 1 }
            min = Swift.min(min, value)
            max = Swift.max(max, value)
            last = value
            lastSequence = sequence
            if isTrend { digest.add(value) }
        }

        mutating func merge(_ other: Series) {
            count += other.count
            sum += other.sum
            trues += other.trues
            min = Swift.min(min, other.min)
            max = Swift.max(max, other.max)
            if other.count > 0, other.lastSequence >= lastSequence {
                last = other.last
                lastSequence = other.lastSequence
            }
            digest.merge(other.digest)
        }
    }

    public var name: String
    public var kind: MetricKind
    /// Series by tag set (``key(_:)``: sorted `key:value` pairs joined by commas; "" for none).
    public var series: [String: Series] = [:]

    public init(name: String, kind: MetricKind) {
        self.name = name
        self.kind = kind
    }

    /// Every sample, whatever its tags.
    public var total: Series { matching([:]) }

    /// The samples whose tags include every one of `tags`, as one series.
    public func matching(_ tags: [String: String]) -> Series {
        var total = Series()
        for (key, value) in series.sorted(by: { $0.key < $1.key }) where Self.includes(key, tags) {
            total.merge(value)
        }
        return total
    }

    mutating func record(_ value: Double, tags: [String: String], sequence: Int) {
        record(value, key: Self.key(tags), sequence: sequence)
    }

    /// Records in place: a copy of the metric would copy all its series on every sample.
    mutating func record(_ value: Double, key: String, sequence: Int) {
        series[key, default: Series()].record(value, isTrend: kind == .trend, sequence: sequence)
    }

    /// Adds `other`'s samples (the same metric, from another segment of the run).
    mutating func merge(_ other: Metric) {
        for (key, value) in other.series { series[key, default: Series()].merge(value) }
    }

    /// Adds `other`'s gauge of something that existed at the same time (the VUs of
    /// another segment): the last values, the minimums and the maximums add up (the sum
    /// of maximums bounds the true maximum from above, the sum of minimums the true
    /// minimum from below).
    mutating func mergeConcurrent(_ other: Metric) {
        for (key, value) in other.series {
            guard var mine = series[key], mine.count > 0 else {
                series[key] = value
                continue
            }
            guard value.count > 0 else { continue }
            mine.count += value.count
            mine.sum += value.sum
            mine.trues += value.trues
            mine.min += value.min
            mine.max += value.max
            mine.last += value.last
            series[key] = mine
        }
    }

    /// The distinct values the series give the tags `names` (those series that have them
    /// all), in the order of their keys: the sub-metrics a summary shows by those tags.
    public func tagValues(_ names: [String]) -> [[String: String]] {
        var seen = Set<String>(), values: [[String: String]] = []
        for key in series.keys.sorted() {
            let tags = Self.tags(of: key)
            let picked = names.compactMap { name in tags[name].map { (name, $0) } }
            guard picked.count == names.count else { continue }
            let chosen = Dictionary(uniqueKeysWithValues: picked)
            if seen.insert(Self.key(chosen)).inserted { values.append(chosen) }
        }
        return values
    }

    /// The tag set's key: `"method:start,service:chat"`.
    public static func key(_ tags: [String: String]) -> String {
        tags.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
    }

    /// The tags of a key.
    public static func tags(of key: String) -> [String: String] {
        var tags: [String: String] = [:]
        // Empty names and values are tags too (`{ q = "" }` is `q:`).
        for pair in key.split(separator: ",") {
            let parts = pair.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { tags[String(parts[0])] = String(parts[1]) }
        }
        return tags
    }

    private static func includes(_ key: String, _ tags: [String: String]) -> Bool {
        guard !tags.isEmpty else { return true }
        let pairs = Set(key.split(separator: ",").map(String.init))
        return tags.allSatisfy { pairs.contains("\($0.key):\($0.value)") }
    }
}

/// The four kinds of metric, k6's.
public enum MetricKind: String, Sendable, Codable {
    case trend, rate, counter, gauge

    var aggregations: String {
        switch self {
        case .trend: return "avg, min, max, med or p(N)"
        case .rate: return "rate"
        case .counter: return "count or rate"
        case .gauge: return "value"
        }
    }

    func allows(_ aggregation: Threshold.Aggregation) -> Bool {
        switch (self, aggregation) {
        case (.trend, .average), (.trend, .minimum), (.trend, .maximum), (.trend, .median), (.trend, .percentile),
             (.rate, .rate), (.counter, .count), (.counter, .rate), (.gauge, .value):
            return true
        default:
            return false
        }
    }
}

/// The metrics every run records by itself (LUA-API section 6), said once: their names,
/// kinds and what they measure, for the recorder, thresholds, the summary and the docs.
public enum BuiltInMetric: String, CaseIterable, Sendable {
    case checks
    case iterations
    case iterationDuration = "iteration_duration_seconds"
    case iterationFailed = "iteration_failed"
    case groupDuration = "group_duration_seconds"
    case droppedIterations = "dropped_iterations"
    case pluginErrors = "plugin_errors"
    case eventsDropped = "events_dropped"
    case vus
    case sdkCall = "sdk_call_seconds"
    case chatStart = "chat_start_seconds"
    case chatFirstResponse = "chat_first_response_seconds"
    case chatWait = "chat_wait_seconds"
    case chatHandle = "chat_handle_seconds"
    case abandoned
    case messageRoundTrip = "message_round_trip_seconds"
    case csatRating = "csat_rating"
    case queueLength = "queue_length"
    case agentsBusy = "agents_busy"
    // Voice calls (``CallMetricsRecorder``), tagged `type`: `instant` or `scheduled`.
    case callWait = "call_wait_seconds"
    case callSetup = "call_setup_seconds"
    case callHandle = "call_handle_seconds"
    case callAbandoned = "call_abandoned"

    public var kind: MetricKind {
        switch self {
        case .checks, .iterationFailed, .abandoned, .callAbandoned: return .rate
        case .iterations, .droppedIterations, .pluginErrors, .eventsDropped: return .counter
        case .vus, .queueLength, .agentsBusy: return .gauge
        case .iterationDuration, .groupDuration, .sdkCall, .chatStart, .chatFirstResponse, .chatWait, .chatHandle, .messageRoundTrip, .csatRating,
             .callWait, .callSetup, .callHandle:
            return .trend
        }
    }

    /// What the metric measures, as the docs and `ccai help run` say it.
    public var meaning: String {
        switch self {
        case .checks: return "the share of ccai.check calls that passed (tagged check)"
        case .iterations: return "iterations run"
        case .iterationDuration: return "how long an iteration took"
        case .iterationFailed:
            return "the share of iterations that failed (a failed one is tagged reason: error, it raised one; interrupted, the end "
                + "of the run cut it off)"
        case .droppedIterations:
            return "arrivals of the open model that started no iteration (tagged reason: no_free_vu, every VU busy and the pool at "
                + "max_vus; run_ending, the run ended before they could start)"
        case .groupDuration: return "how long each ccai.group took (tagged group, k6's path: ::outer::inner)"
        case .eventsDropped:
            return "events no script waited for, dropped oldest first past 1,000 of a name or the VU's budget of unclaimed "
                + "event bytes, a quarter of its memory limit (tagged event: ccai.chat.messages_received)"
        case .pluginErrors:
            return "plugin hooks that raised, timed out or gave an answer that could not be used (tagged plugin and hook); "
                + "the host went on with the default answer"
        case .vus: return "VUs taking part in the run, sampled each second"
        case .sdkCall: return "each SDK call (tagged service, method, status: ok or the error code)"
        case .chatStart: return "ccai.chat.start, from the call until the chat is created"
        case .chatFirstResponse: return "from ccai.chat.start until the first agent or virtual agent message"
        case .chatWait: return "from ccai.chat.start until an agent or virtual agent takes the chat"
        case .chatHandle: return "from an agent or virtual agent taking a chat until it ends"
        case .abandoned:
            return "the share of the VUs' chats that ended before an agent or virtual agent took them, or that an iteration "
                + "cut off by the end of the run left open"
        case .queueLength: return "chats and calls waiting for an agent in the embedded sandbox, sampled each second"
        case .agentsBusy: return "the embedded sandbox's human agents with at least one chat or call, sampled each second"
        case .messageRoundTrip: return "from a customer message until the next agent or virtual agent message"
        case .csatRating: return "the ratings the customers gave (ccai.rate)"
        case .callWait: return "from placing a call until an agent or virtual agent takes it (tagged type: instant or scheduled)"
        case .callSetup: return "from placing a call until it is connected (tagged type)"
        case .callHandle: return "from a call being connected until it ends (tagged type)"
        case .callAbandoned: return "the share of the VUs' calls that ended, or were left waiting, before anyone took them (tagged type)"
        }
    }

    static func kind(of name: String) -> MetricKind? { BuiltInMetric(rawValue: name)?.kind }
    static var names: [String] { allCases.map(\.rawValue).sorted() }
}
