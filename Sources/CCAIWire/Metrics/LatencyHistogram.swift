/// Durations counted into fixed buckets, as a Prometheus histogram holds them: its count,
/// its sum, and for each upper bound how many took at most that long. Histograms of the
/// same bounds add up exactly (across routes, across processes), which summaries' quantiles
/// do not.
///
/// ```swift
/// var histogram = LatencyHistogram()
/// histogram.observe(0.003)
/// var text = PrometheusText()
/// text.family("ccai_sandbox_store_statement_seconds", .histogram, help: "each SQL statement")
/// histogram.write(into: &text, name: "ccai_sandbox_store_statement_seconds")
/// ```
public struct LatencyHistogram: Sendable, Equatable {
    /// The upper bounds, in seconds: from 50 microseconds (one SQL statement) to 10 s (a
    /// request held to its deadline).
    public static let bounds: [Double] = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                          0.25, 0.5, 1, 2.5, 5, 10]

    /// Durations at most each bound (not cumulative: ``write(into:name:labels:)`` adds them up).
    public private(set) var buckets = [Int](repeating: 0, count: bounds.count)
    public private(set) var count = 0
    public private(set) var sum = 0.0

    public init() {}

    /// Counts one duration; a negative or NaN one counts as 0.
    public mutating func observe(_ seconds: Double) {
        let value = seconds.isNaN ? 0 : max(0, seconds)
        count += 1
        sum += value
        if let index = Self.bounds.firstIndex(where: { value <= $0 }) { buckets[index] += 1 }
    }

    /// Adds `other`'s durations.
    public mutating func merge(_ other: LatencyHistogram) {
        count += other.count
        sum += other.sum
        for index in buckets.indices { buckets[index] += other.buckets[index] }
    }

    /// Writes the samples of the family `name` (started by the caller): a cumulative
    /// `_bucket` per bound and `+Inf`, `_sum` and `_count`, each with `labels` first.
    public func write(into text: inout PrometheusText, name: String, labels: [(String, String)] = []) {
        var cumulative = 0
        for (bound, inBucket) in zip(Self.bounds, buckets) {
            cumulative += inBucket
            text.sample(name + "_bucket", labels: labels + [("le", PrometheusText.number(bound))], Double(cumulative))
        }
        text.sample(name + "_bucket", labels: labels + [("le", "+Inf")], Double(count))
        text.sample(name + "_sum", labels: labels, sum)
        text.sample(name + "_count", labels: labels, Double(count))
    }
}
