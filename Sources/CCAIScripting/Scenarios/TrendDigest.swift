import Foundation

/// The values of a trend metric (durations, ratings) in logarithmic buckets, HDR-style:
/// a value `v > 0` falls in bucket `floor(log(v) / log(1 + 2ε))` and reads back as the
/// bucket's midpoint, so every percentile is within a relative error of ε = 1% of a value
/// that was recorded. Zero and negative values keep buckets of their own sign. Two
/// digests merge by adding their buckets, which is why percentiles of merged runs are
/// right rather than averages of percentiles. Count, sum, min and max are exact.
///
/// ```swift
/// var digest = TrendDigest()
/// for seconds in [0.12, 0.31, 0.09] { digest.add(seconds) }
/// digest.percentile(95)   // about 0.31, within 1%
/// ```
public struct TrendDigest: Sendable, Equatable {
    /// The relative error bound of a percentile.
    public static let relativeError = 0.01
    private static let logBase = log(1 + 2 * relativeError)

    public private(set) var count = 0
    public private(set) var sum = 0.0
    public private(set) var min = Double.infinity
    public private(set) var max = -Double.infinity
    /// Bucket index -> how many values, for positive values and for negative ones (by magnitude).
    private var positive: [Int: Int] = [:]
    private var negative: [Int: Int] = [:]
    private var zeros = 0

    public init() {}

    public var average: Double { count == 0 ? 0 : sum / Double(count) }

    public mutating func add(_ value: Double) {
        guard value.isFinite else { return }
        count += 1
        sum += value
        min = Swift.min(min, value)
        max = Swift.max(max, value)
        if value > 0 {
            positive[Self.bucket(value), default: 0] += 1
        } else if value < 0 {
            negative[Self.bucket(-value), default: 0] += 1
        } else {
            zeros += 1
        }
    }

    public mutating func merge(_ other: TrendDigest) {
        count += other.count
        sum += other.sum
        min = Swift.min(min, other.min)
        max = Swift.max(max, other.max)
        zeros += other.zeros
        positive.merge(other.positive, uniquingKeysWith: +)
        negative.merge(other.negative, uniquingKeysWith: +)
    }

    /// The value below which `percent` percent of the values lie (k6's `p(N)`; 50 is the
    /// median), clamped to the exact min and max; 0 when there is no value.
    public func percentile(_ percent: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = Swift.max(1, Int((percent / 100 * Double(count)).rounded(.up)))
        var seen = 0
        for index in negative.keys.sorted(by: >) {
            seen += negative[index]!
            if seen >= rank { return clamp(-Self.value(of: index)) }
        }
        seen += zeros
        if seen >= rank { return clamp(0) }
        for index in positive.keys.sorted() {
            seen += positive[index]!
            if seen >= rank { return clamp(Self.value(of: index)) }
        }
        return max
    }

    private func clamp(_ value: Double) -> Double { Swift.min(max, Swift.max(min, value)) }

    /// The digest as a summary file keeps it: exact figures, and the buckets as
    /// `[index, count]` pairs (`positive`, `negative` by magnitude) and `zeros`.
    public struct Stored: Codable, Equatable, Sendable {
        public var count: Int
        public var sum: Double
        public var min: Double?
        public var max: Double?
        public var zeros: Int
        public var positive: [[Int]]
        public var negative: [[Int]]
    }

    /// The largest count a summary file may give (a quadrillion): the counts of the at most
    /// ``ScenarioReport/maximumFiles`` files merged add up without overflowing.
    static let maximumStoredCount = 1_000_000_000_000_000

    var stored: Stored {
        Stored(count: count, sum: sum, min: count > 0 ? min : nil, max: count > 0 ? max : nil, zeros: zeros,
               positive: positive.sorted { $0.key < $1.key }.map { [$0.key, $0.value] },
               negative: negative.sorted { $0.key < $1.key }.map { [$0.key, $0.value] })
    }

    /// A digest read back; nil when its parts do not add up (a bucket's count not
    /// positive, counts that do not sum to `count`, an index out of range).
    init?(_ stored: Stored) {
        let limit = Self.maximumStoredCount
        func buckets(_ pairs: [[Int]]) -> [Int: Int]? {
            var result: [Int: Int] = [:]
            for pair in pairs {
                guard pair.count == 2, pair[1] > 0, pair[1] <= limit, abs(pair[0]) < 1_000_000, result[pair[0]] == nil
                else { return nil }
                result[pair[0]] = pair[1]
            }
            return result
        }
        guard let positive = buckets(stored.positive), let negative = buckets(stored.negative),
            (0...limit).contains(stored.zeros), (0...limit).contains(stored.count), stored.sum.isFinite
        else { return nil }
        var total = stored.zeros
        for part in Array(positive.values) + Array(negative.values) {
            let (sum, overflow) = total.addingReportingOverflow(part)
            guard !overflow else { return nil }
            total = sum
        }
        guard total == stored.count else { return nil }
        if stored.count > 0 {
            guard let min = stored.min, let max = stored.max, min.isFinite, max.isFinite, min <= max else { return nil }
            self.min = min
            self.max = max
        }
        count = stored.count
        sum = stored.sum
        zeros = stored.zeros
        self.positive = positive
        self.negative = negative
    }

    private static func bucket(_ magnitude: Double) -> Int {
        Int((log(magnitude) / logBase).rounded(.down))
    }

    /// The midpoint of a bucket: within ε of every value in it.
    private static func value(of bucket: Int) -> Double {
        let low = exp(Double(bucket) * logBase), high = exp(Double(bucket + 1) * logBase)
        return (low + high) / 2
    }
}
