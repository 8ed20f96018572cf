import Foundation

/// The metrics a scenario declares with `ccai.metrics.trend|counter|rate|gauge(name)`,
/// and their samples by tag set, so that a threshold can read a tagged sub-metric
/// (`"chat_seconds{queue:billing}"`): the samples whose tags include those.
public struct CustomMetric: Sendable {
    /// What one tag set of a metric holds; adding two of them is exact for counts, sums,
    /// rates and min/max, and digest-exact for percentiles.
    public struct Series: Sendable {
        public var count = 0
        public var sum = 0.0
        public var trues = 0
        /// The latest value, and when it came (the run's sample count then).
        public var last = 0.0
        var lastSequence = 0
        public var digest = TrendDigest()

        mutating func record(_ value: Double, isTrend: Bool, sequence: Int) {
            count += 1
            sum += value
            if value != 0 { trues += 1 }
            last = value
            lastSequence = sequence
            if isTrend { digest.add(value) }
        }

        mutating func merge(_ other: Series) {
            count += other.count
            sum += other.sum
            trues += other.trues
            if other.count > 0, other.lastSequence >= lastSequence {
                last = other.last
                lastSequence = other.lastSequence
            }
            digest.merge(other.digest)
        }
    }

    public var name: String
    public var kind: MetricKind
    /// Series by tag set (sorted `key:value` pairs joined by commas; "" for none).
    public var series: [String: Series] = [:]

    /// The samples whose tags include every one of `tags`, as one series.
    public func matching(_ tags: [String: String]) -> Series {
        var total = Series()
        for (key, value) in series.sorted(by: { $0.key < $1.key }) where Self.includes(key, tags) {
            total.merge(value)
        }
        return total
    }

    static func key(_ tags: [String: String]) -> String {
        tags.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
    }

    private static func includes(_ key: String, _ tags: [String: String]) -> Bool {
        guard !tags.isEmpty else { return true }
        let pairs = Set(key.split(separator: ",").map(String.init))
        return tags.allSatisfy { pairs.contains("\($0.key):\($0.value)") }
    }
}

/// The four kinds of metric, k6's.
public enum MetricKind: String, Sendable {
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
