import Foundation

/// Nanoseconds per operation of a timed loop: the best of several rounds, so that a
/// stray pause of the machine does not count.
struct Timing {
    static func nanosecondsPerOperation(operations: Int, rounds: Int = 5, _ body: () throws -> Void) rethrows
        -> Double
    {
        var best = Double.infinity
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
            best = min(best, elapsed / Double(operations))
        }
        return best
    }
}

extension Array where Element == Double {
    /// The sample at `fraction` (0.5: the median) of the sorted samples, nearest rank; NaN
    /// when there is none.
    func percentile(_ fraction: Double) -> Double {
        let sorted = self.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[Swift.min(sorted.count - 1, Swift.max(0, Int((Double(sorted.count) * fraction).rounded(.up)) - 1))]
    }
}

/// A latency measured alone, then in a crowd (`crowd` at once): its figures are the p50
/// and p99 of each in milliseconds (`<prefix>_p50_1_ms`, `<prefix>_p99_1000_ms`, ...) and
/// the ratio of the p50s (`ratioName`).
struct CrowdLatency {
    var single: [Double]
    var many: [Double]
    var crowd: Int

    /// The names of the figures ``results(prefix:ratioName:what:singleDetail:crowdDetail:)``
    /// gives, for a crowd of 1,000.
    static func figures(prefix: String, ratioName: String) -> [String] {
        ["1", "1000"].flatMap { ["\(prefix)_p50_\($0)_ms", "\(prefix)_p99_\($0)_ms"] } + [ratioName]
    }

    /// `what` names one of the things measured (`chat`, `call`); the details say how.
    func results(prefix: String, ratioName: String, what: String, singleDetail: String, crowdDetail: String) -> [BenchmarkResult] {
        func ms(_ seconds: Double) -> Double { seconds * 1_000 }
        let (p50One, p99One) = (single.percentile(0.50), single.percentile(0.99))
        let (p50Many, p99Many) = (many.percentile(0.50), many.percentile(0.99))
        return [
            BenchmarkResult(name: "\(prefix)_p50_1_ms", value: ms(p50One), target: "-", detail: singleDetail),
            BenchmarkResult(name: "\(prefix)_p99_1_ms", value: ms(p99One), target: "-", detail: "same run"),
            BenchmarkResult(name: "\(prefix)_p50_\(crowd)_ms", value: ms(p50Many), target: "-", detail: crowdDetail),
            BenchmarkResult(name: "\(prefix)_p99_\(crowd)_ms", value: ms(p99Many), target: "-", detail: "same run"),
            BenchmarkResult(name: ratioName, value: p50Many / p50One, target: "-",
                            detail: "p50 at \(crowd) \(what)s / p50 at 1 \(what) "
                                + String(format: "(%.2f ms / %.2f ms)", ms(p50Many), ms(p50One))),
        ]
    }
}

/// One line of the report: a named figure, with what it was computed from; a figure that
/// could not be measured has no value, and a reason instead.
struct BenchmarkResult {
    var name: String
    var value: Double?
    var target: String
    var detail: String
    /// Why the figure is missing (nil when it was measured).
    var missingReason: String?

    init(name: String, value: Double, target: String, detail: String) {
        (self.name, self.value, self.target, self.detail) = (name, value, target, detail)
    }

    /// The figure `name`, missing because of `reason`.
    init(missing name: String, reason: String) {
        (self.name, self.value, self.target, self.detail, missingReason) = (name, nil, "-", "missing: " + reason, reason)
    }
}
