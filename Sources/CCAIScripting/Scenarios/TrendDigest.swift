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

    private static func bucket(_ magnitude: Double) -> Int {
        Int((log(magnitude) / logBase).rounded(.down))
    }

    /// The midpoint of a bucket: within ε of every value in it.
    private static func value(of bucket: Int) -> Double {
        let low = exp(Double(bucket) * logBase), high = exp(Double(bucket + 1) * logBase)
        return (low + high) / 2
    }
}
