import Foundation

/// What the live dashboard of `ccai run --dashboard` shows, once a second: the run's
/// figures now, its last ``seriesLength`` seconds (or slices) for the charts, its
/// thresholds going green or red, its checks, top errors, Locust's table of SDK calls by
/// method, and what its controls can change. A value, encoded as JSON (snake_case) for
/// the page's event stream; every text in it (check names, errors) is shown as text.
///
/// ```swift
/// let update = DashboardFeed.update(snapshot, progress: runner.progress(), control: control.current)
/// let json = try DashboardFeed.encoder.encode(update)
/// ```
public enum DashboardFeed {
    /// The slices of the timeline an update carries.
    public static let seriesLength = 300
    /// The most checks, errors and SDK methods an update lists.
    public static let listLength = 50
    /// The trends whose percentiles the page shows, in its order.
    static let trends: [BuiltInMetric] = [.chatWait, .callWait, .messageRoundTrip, .chatFirstResponse, .sdkCall, .iterationDuration]

    /// One update of the page.
    public struct Update: Encodable, Sendable, Equatable {
        /// `running`, `paused`, `stopping` (interrupted: iterations finishing), or `ended`.
        public var state: String
        public var elapsedSeconds: Double
        /// The simulated clock's time of day in a virtual-time run (nil otherwise).
        public var simulatedTime: String?
        public var vus: Int
        public var peakVus: Int
        public var iterations: Int
        public var failedIterations: Int
        public var droppedIterations: Int
        public var checksPassed: Int
        public var checksFailed: Int
        public var sliceSeconds: Double
        public var series: [Point]
        public var trends: [TrendFigures]
        public var thresholds: [ThresholdState]
        public var checks: [CheckState]
        public var errors: [ErrorState]
        public var methods: [MethodRow]
        public var scenarios: [ScenarioState]
        /// Whether the controls other than Stop work (not in virtual time).
        public var controls: Bool
    }

    /// One slice of the timeline: the VUs at its end, its iterations and failures a
    /// second, and percentiles of the waits and round trips in it (nil: none came).
    public struct Point: Encodable, Sendable, Equatable {
        public var seconds: Double
        public var vus: Double?
        public var iterationsPerSecond: Double
        public var failuresPerSecond: Double
        public var roundTripP50: Double?
        public var roundTripP95: Double?
        public var chatWaitP50: Double?
        public var chatWaitP95: Double?
        public var callsPerSecond: Double
    }

    public struct TrendFigures: Encodable, Sendable, Equatable {
        public var metric: String
        public var count: Int
        public var p50: Double
        public var p95: Double
        public var max: Double
    }

    public struct ThresholdState: Encodable, Sendable, Equatable {
        public var metric: String
        public var expression: String
        public var holds: Bool
        /// nil while the metric has no sample.
        public var observed: Double?
        public var abortOnFail: Bool
    }

    public struct CheckState: Encodable, Sendable, Equatable {
        public var name: String
        public var passes: Int
        public var fails: Int
    }

    public struct ErrorState: Encodable, Sendable, Equatable {
        public var message: String
        public var count: Int
    }

    /// A row of Locust's table: `Aggregated` last, with an empty service.
    public struct MethodRow: Encodable, Sendable, Equatable {
        public var service: String
        public var method: String
        public var calls: Int
        public var failures: Int
        public var p50: Double
        public var p95: Double
        public var p99: Double
        public var max: Double
        public var perSecond: Double
    }

    /// A scenario and what the controls set for it.
    public struct ScenarioState: Encodable, Sendable, Equatable {
        public var name: String
        /// `arrival` (an open model: its rate can change) or `vus` (a closed one: its VU
        /// target can change).
        public var model: String
        /// Arrivals per `time_unit` seconds: as set, else as planned now (open models).
        public var rate: Double?
        public var timeUnit: Double?
        /// The VU target set (nil: as planned), and the most VUs the scenario plans.
        public var vuTarget: Int?
        public var plannedVus: Int
    }

    /// The JSON encoder of updates: snake_case keys. Figures with no value are nil, so no
    /// NaN or infinity is meant to reach it; one that did would be a string, not a failure.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity",
                                                                      nan: "NaN")
        return encoder
    }()

    /// The update of a run at `progress` (nil: not started yet or over) with `snapshot`,
    /// `control` (nil: no controls, as in virtual time), `ended` once it is over.
    public static func update(_ snapshot: ScenarioMetrics.Snapshot, progress: ScenarioRunner.Progress?, control: LiveControl.State?,
                              interrupted: Bool = false, ended: Bool = false, simulatedTime: String? = nil) -> Update {
        let options = progress?.options ?? ScenarioOptions()
        let elapsed = progress?.elapsed ?? 0
        let state = ended ? "ended" : interrupted ? "stopping" : control?.paused == true ? "paused" : "running"
        let timeline = snapshot.timeline
        let sliceSeconds = timeline.sliceSeconds
        let first = max(0, timeline.slices.count - seriesLength)
        let series = timeline.slices[first...].enumerated().map { offset, slice in
            Point(seconds: Double(first + offset + 1) * sliceSeconds, vus: slice.vus,
                  iterationsPerSecond: Double(slice.iterations) / sliceSeconds,
                  failuresPerSecond: Double(slice.failedIterations) / sliceSeconds,
                  roundTripP50: percentile(slice.roundTrip, 50), roundTripP95: percentile(slice.roundTrip, 95),
                  chatWaitP50: percentile(slice.chatWait, 50), chatWaitP95: percentile(slice.chatWait, 95),
                  callsPerSecond: Double(slice.calls.values.reduce(0) { $0 + $1.calls }) / sliceSeconds)
        }
        let trendFigures = trends.compactMap { metric -> TrendFigures? in
            let total = snapshot.metric(metric).total
            guard total.count > 0 else { return nil }
            return TrendFigures(metric: metric.rawValue, count: total.count, p50: total.digest.percentile(50),
                                p95: total.digest.percentile(95), max: total.max)
        }
        let thresholds = options.thresholds.map { threshold in
            let (holds, observed) = threshold.evaluate(snapshot, elapsed: elapsed)
            return ThresholdState(metric: threshold.metric, expression: threshold.source, holds: holds,
                                  observed: observed.isFinite ? observed : nil, abortOnFail: threshold.abortOnFail)
        }
        let methods = MethodStats.table(snapshot).suffix(listLength + 1).map { row in
            MethodRow(service: row.type, method: row.name, calls: row.figures.calls, failures: row.figures.failures,
                      p50: row.figures.seconds.percentile(50), p95: row.figures.seconds.percentile(95),
                      p99: row.figures.seconds.percentile(99), max: row.figures.seconds.max,
                      perSecond: elapsed > 0 ? Double(row.figures.calls) / elapsed : 0)
        }
        let scenarios = options.workloads.map { scenario -> ScenarioState in
            switch scenario.run.executor {
            case .arrivalRate(let arrival):
                let planned = ArrivalSchedule(arrival, seed: RandomSeed(0)).rate(at: elapsed - scenario.startTime) * arrival.timeUnit
                return ScenarioState(name: scenario.name, model: "arrival", rate: control?.rates[scenario.name] ?? planned,
                                     timeUnit: arrival.timeUnit, vuTarget: nil, plannedVus: arrival.maxVUs)
            default:
                return ScenarioState(name: scenario.name, model: "vus", rate: nil, timeUnit: nil,
                                     vuTarget: control?.vuTargets[scenario.name], plannedVus: scenario.run.peakVUs)
            }
        }
        return Update(state: state, elapsedSeconds: elapsed, simulatedTime: simulatedTime, vus: progress?.activeVUs ?? 0,
                      peakVus: progress?.peakVUs ?? 0, iterations: snapshot.iterations, failedIterations: snapshot.failedIterations,
                      droppedIterations: Int(snapshot.metric(.droppedIterations).total.sum),
                      checksPassed: snapshot.checkPasses, checksFailed: snapshot.checkFails, sliceSeconds: sliceSeconds,
                      series: Array(series), trends: trendFigures, thresholds: thresholds,
                      checks: snapshot.checks.prefix(listLength).map { CheckState(name: $0.name, passes: $0.passes, fails: $0.fails) },
                      errors: snapshot.errors.sorted { $0.count > $1.count }.prefix(10).map { ErrorState(message: $0.message, count: $0.count) },
                      methods: Array(methods), scenarios: scenarios, controls: control != nil)
    }

    private static func percentile(_ digest: TrendDigest, _ percent: Double) -> Double? {
        digest.count > 0 ? digest.percentile(percent) : nil
    }
}
