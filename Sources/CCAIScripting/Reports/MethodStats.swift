import Foundation

/// An SDK method, as the `sdk_call_seconds` samples are tagged: its service (`chat`) and
/// its method (`start`).
public struct SDKMethod: Sendable, Hashable, Comparable, Codable {
    public var service: String
    public var method: String

    public init(service: String, method: String) {
        self.service = service
        self.method = method
    }

    /// The method of a sample's tags; nil when they do not name one.
    init?(tags: [String: String]) {
        guard let service = tags["service"], let method = tags["method"] else { return nil }
        self.init(service: service, method: method)
    }

    public static func < (left: SDKMethod, right: SDKMethod) -> Bool {
        (left.service, left.method) < (right.service, right.method)
    }
}

/// What calls of an SDK method did: their durations (a digest: the count, the sum, the
/// extremes and the percentiles) and how many failed (a `status` other than `ok`).
public struct SDKCallFigures: Sendable, Equatable {
    public var seconds = TrendDigest()
    public var failures = 0

    public init() {}

    public var calls: Int { seconds.count }

    /// Adds one call of `seconds` that ended with `status`.
    mutating func add(_ seconds: Double, status: String?) {
        self.seconds.add(seconds)
        if let status, status != Self.success { failures += 1 }
    }

    mutating func merge(_ other: SDKCallFigures) {
        seconds.merge(other.seconds)
        failures += other.failures
    }

    /// The `status` of a call that succeeded.
    static let success = "ok"
}

/// Locust's stats table: by SDK method, the calls, the failures, their durations'
/// percentiles and the calls a second; then the `Aggregated` row of every call. It is read
/// from the `sdk_call_seconds` samples (``BuiltInMetric/sdkCall``), so a merged summary
/// shows the table of the whole run.
///
/// ```swift
/// for row in MethodStats.table(snapshot) { print(row.type, row.name, row.figures.calls) }
/// ```
public struct MethodStats: Sendable, Equatable {
    /// nil for the `Aggregated` row.
    public var method: SDKMethod?
    public var figures: SDKCallFigures

    /// The name of the row of every call, Locust's.
    public static let aggregatedName = "Aggregated"

    /// Locust's `Type` column: the service (empty for `Aggregated`).
    public var type: String { method?.service ?? "" }
    /// Locust's `Name` column: the method, or `Aggregated`.
    public var name: String { method?.method ?? Self.aggregatedName }

    /// The rows of a run: one per method that was called, in order of service and method,
    /// then `Aggregated`; none when no SDK call was made.
    public static func table(_ snapshot: ScenarioMetrics.Snapshot) -> [MethodStats] {
        var byMethod: [SDKMethod: SDKCallFigures] = [:]
        for (key, series) in snapshot.metric(.sdkCall).series where series.count > 0 {
            let tags = Metric.tags(of: key)
            guard let method = SDKMethod(tags: tags) else { continue }
            var figures = SDKCallFigures()
            figures.seconds = series.digest
            figures.failures = tags["status"] == SDKCallFigures.success ? 0 : series.count
            byMethod[method, default: SDKCallFigures()].merge(figures)
        }
        return rows(byMethod)
    }

    /// The rows of figures by method, with their `Aggregated` row.
    static func rows(_ byMethod: [SDKMethod: SDKCallFigures]) -> [MethodStats] {
        guard !byMethod.isEmpty else { return [] }
        var total = SDKCallFigures()
        var rows: [MethodStats] = []
        for method in byMethod.keys.sorted() {
            rows.append(MethodStats(method: method, figures: byMethod[method]!))
            total.merge(byMethod[method]!)
        }
        return rows + [MethodStats(method: nil, figures: total)]
    }

    /// Calls a second over `seconds`.
    public func callsPerSecond(over seconds: Double) -> Double {
        seconds > 0 ? Double(figures.calls) / seconds : 0
    }

    /// Failures a second over `seconds`.
    public func failuresPerSecond(over seconds: Double) -> Double {
        seconds > 0 ? Double(figures.failures) / seconds : 0
    }
}
