import CCAIWire
import Foundation
import LuaRuntime

/// How a scenario runs (LUA-API section 6): its `options` table, then the command line's
/// `--vus`, `--iterations` and `--duration` over it. Four executors, k6's:
///
/// - `vus` VUs share `iterations` (default: one each) until all have run;
/// - with `duration`, each VU runs iterations one after another until it has passed
///   (an iteration that is running then finishes within `graceful_stop`);
/// - with `stages`, the number of VUs running ramps from `vus` to each stage's `target`
///   over its `duration`, linearly;
/// - with `arrival`, iterations start at a rate whatever their length (the open model),
///   each on a free VU of a pool of at most `max_vus`.
///
/// ```swift
/// var options = try ScenarioOptions(table: ["vus": 10, "duration": "30s"])
/// options.vus = 2   // --vus 2
/// ```
public struct ScenarioOptions: Sendable, Equatable {
    /// A problem with one option, named as the script wrote it (`options.vus`).
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var option: String
        public var message: String
        public var description: String { "\(option): \(message)" }
    }

    /// The most VUs a run may have.
    public static let maximumVUs = 100_000

    public var vus = 1
    /// Total iterations shared by the VUs; nil: one per VU (or none counted, with a duration).
    public var iterations: Int?
    /// Seconds the VUs loop for (with `iterations`, at most that many in all); nil: until
    /// the iterations are done.
    public var duration: Double?
    /// Seconds a running iteration gets to finish once the duration has passed (or a
    /// threshold with `abort_on_fail` has failed).
    public var gracefulStop: Double = 30
    /// Seconds the whole run may take; nil: no limit.
    public var timeout: Double?
    /// The seed of the run's random numbers (`seed = 42`; `--seed` wins over it); once the
    /// run has started, the seed it ran with, given or chosen (``RandomSeed``).
    public var seed: RandomSeed?
    /// `virtual_time = true`: the run goes in virtual time (LUA-API 14; `--virtual-time`).
    public var virtualTime = false
    /// `start = "2026-12-07T08:00"`: the moment the run begins (`--start` wins over it).
    public var start: ScenarioStart?
    /// The run's pass/fail criteria, in the order of their metrics' names.
    public var thresholds: [Threshold] = []
    /// `summary_tags = { sdk_call_seconds = { "method" } }`: the summary shows a sub-metric
    /// for each value of these tags, besides those thresholds name; over the defaults
    /// (``defaultSummaryTags``), which a scenario may replace metric by metric.
    public var summaryTags: [String: [String]] = [:]

    /// The sub-metrics every summary shows: why arrivals were dropped, and why iterations failed.
    public static let defaultSummaryTags: [String: [String]] = [
        BuiltInMetric.droppedIterations.rawValue: ["reason"],
        BuiltInMetric.iterationFailed.rawValue: ["reason"],
    ]

    /// The tags whose sub-metrics the summary shows, metric by metric.
    public var shownSummaryTags: [String: [String]] { Self.defaultSummaryTags.merging(summaryTags) { $1 } }

    /// `max_memory = "4GiB"`: the most memory the run's process may hold; past it the run
    /// stops with an error (``RunMemory``). nil: three quarters of the machine's (or its
    /// container's) memory.
    public var maxMemory: RunMemory?

    /// The run's memory budget: ``maxMemory`` or the machine's default.
    public var memory: RunMemory { maxMemory ?? .machineDefault }

    /// `strict_plugins = true` (`--strict-plugins`): a plugin hook that raises, times out or
    /// answers what cannot be used fails the iteration that set it off, rather than only
    /// counting in `plugin_errors` while the host goes on with the default answer.
    public var strictPlugins = false

    /// `dashboard = true` or `"HOST:PORT"` (`ccai run --dashboard`): the run serves its live
    /// dashboard, at the address given or ``defaultDashboardAddress``; nil: it does not.
    public var dashboard: String?

    /// Where `dashboard = true` serves: loopback, k6's port.
    public static let defaultDashboardAddress = "127.0.0.1:5665"

    /// The most metrics `summary_tags` may name, and tags per metric.
    static let maximumSummaryTags = 100

    /// Ramping VUs: each stage moves the number of VUs running from the previous target
    /// (at first `vus`) to its `target` over its duration.
    public var stages: [Stage]?
    /// The open model: iterations arrive at a rate.
    public var arrival: Arrival?
    /// `scenarios = { NAME = { executor = "...", ... } }`: several scenarios in one file,
    /// each its own executor (``NamedScenario``); empty: the top level's executor.
    public var scenarios: [NamedScenario] = []

    /// One stage of a ramping run: `{ duration = "30s", target = 100 }`.
    public struct Stage: Sendable, Equatable {
        public var duration: Double
        public var target: Int
        public init(duration: Double, target: Int) {
            self.duration = duration
            self.target = target
        }
    }

    /// `arrival = { rate = 100, time_unit = "1h", duration = "12h", max_vus = 200, poisson = true }`:
    /// `rate` iterations start per `time_unit` (default "1s") for `duration`, evenly spaced
    /// or as a Poisson process, each on a free VU; `vus` VUs (default 1) are made before
    /// the first arrival and more as needed, up to `max_vus` (default 100). An arrival
    /// that finds every VU busy and the pool full is counted in `dropped_iterations`.
    public struct Arrival: Sendable, Equatable {
        public var rate: Double
        public var timeUnit: Double = 1
        public var duration: Double
        public var maxVUs = 100
        public var poisson = false
        /// `ramping_arrival`: the rate goes linearly from `startRate` to each stage's
        /// `target` over its `duration` (arrivals per `timeUnit`); empty: `rate` throughout.
        public var stages: [RateStage] = []
        public var startRate = 0.0
        /// Seconds between two arrivals, on average (at the flat `rate`).
        public var interval: Double { timeUnit / rate }
        public init(rate: Double, timeUnit: Double = 1, duration: Double, maxVUs: Int = 100, poisson: Bool = false) {
            self.rate = rate
            self.timeUnit = timeUnit
            self.duration = duration
            self.maxVUs = maxVUs
            self.poisson = poisson
        }
    }

    /// One stage of a ramping arrival rate: `{ target = 100, duration = "1m" }` (arrivals per time unit).
    public struct RateStage: Sendable, Equatable {
        public var duration: Double
        public var target: Double
        public init(duration: Double, target: Double) {
            self.duration = duration
            self.target = target
        }
    }

    /// Which of the four ways of running this is.
    public enum Executor: Sendable, Equatable {
        case sharedIterations(total: Int)
        case constantVUs(duration: Double)
        case rampingVUs([Stage])
        case arrivalRate(Arrival)
    }

    public var executor: Executor {
        if let arrival { return .arrivalRate(arrival) }
        if let stages { return .rampingVUs(stages) }
        if let duration { return .constantVUs(duration: duration) }
        return .sharedIterations(total: totalIterations)
    }

    /// The most VUs the run has at once.
    public var peakVUs: Int {
        switch executor {
        case .sharedIterations, .constantVUs: return vus
        case .rampingVUs(let stages): return max(vus, stages.map(\.target).max() ?? 0)
        case .arrivalRate(let arrival): return max(vus, arrival.maxVUs)
        }
    }

    /// The seconds the executor runs for before its graceful stop (nil: until its iterations are done).
    public var plannedSeconds: Double? {
        switch executor {
        case .sharedIterations: return nil
        case .constantVUs(let duration): return duration
        case .rampingVUs(let stages): return stages.reduce(0) { $0 + $1.duration }
        case .arrivalRate(let arrival): return arrival.duration
        }
    }

    /// The most stages a ramping run may have.
    static let maximumStages = 1_000

    /// The options a later version will read, refused for now with a message that says so.
    static let notYetSupported = ["plugins", "sandbox", "env"]
    static let known = ["vus", "iterations", "duration", "stages", "arrival", "graceful_stop", "thresholds", "timeout", "seed",
                        "virtual_time", "start", "summary_tags", "strict_plugins", "scenarios", "max_memory", "dashboard"]

    public init() {}

    /// Reads a scenario's `options` table (nil: the defaults); `declared` are the metrics
    /// the scenario declared (with `ccai.metrics`), which thresholds may name.
    public init(table: LuaValue?, declared: [String: MetricKind] = [:]) throws {
        guard let table, !table.isNil else { return }
        guard let fields = table.dictionaryValue else {
            throw Problem(option: "options", message: "a table with named fields expected, got \(table.typeName)")
        }
        for key in fields.keys.sorted() where !Self.known.contains(key) {
            if Self.notYetSupported.contains(key) {
                throw Problem(option: "options.\(key)", message: "not supported by this version of ccai yet")
            }
            throw Problem(option: "options.\(key)", message: "unknown option" + Self.hint(key, among: Self.known))
        }
        if let value = fields["vus"] { vus = try Self.count(value, "options.vus", minimum: 1) }
        if let value = fields["iterations"] { iterations = try Self.count(value, "options.iterations", minimum: 1) }
        if let value = fields["duration"] { duration = try Self.seconds(value, "options.duration") }
        if let value = fields["graceful_stop"] { gracefulStop = try Self.seconds(value, "options.graceful_stop") }
        if let value = fields["thresholds"] { thresholds = try Threshold.parse(value, declared: declared) }
        if let value = fields["seed"] {
            guard let number = value.integerValue, number >= 0 else {
                throw Problem(option: "options.seed", message: "a whole number from 0 to \(Int64.max) expected, got \(Self.shown(value))")
            }
            seed = RandomSeed(UInt64(number))
        }
        if let value = fields["virtual_time"] {
            guard case .boolean(let flag) = value else {
                throw Problem(option: "options.virtual_time", message: "a boolean expected, got \(value.typeName)")
            }
            virtualTime = flag
        }
        if let value = fields["start"] {
            guard case .string(let text) = value else {
                throw Problem(option: "options.start", message: "an ISO 8601 time as a string expected, got \(Self.shown(value))")
            }
            do { start = try ScenarioStart(text) } catch let problem as ScenarioStart.Problem {
                throw Problem(option: "options.start", message: problem.description)
            }
        }
        if let value = fields["timeout"] {
            timeout = try Self.seconds(value, "options.timeout")
            guard timeout != 0 else { throw Problem(option: "options.timeout", message: "a duration above 0 expected, got 0") }
        }
        if let value = fields["summary_tags"] { summaryTags = try Self.summaryTags(value) }
        if let value = fields["max_memory"] { maxMemory = try RunMemory.parse(value) }
        if let value = fields["strict_plugins"] {
            guard case .boolean(let flag) = value else {
                throw Problem(option: "options.strict_plugins", message: "a boolean expected, got \(value.typeName)")
            }
            strictPlugins = flag
        }
        if let value = fields["dashboard"] {
            switch value {
            case .boolean(let on): dashboard = on ? Self.defaultDashboardAddress : nil
            case .string(let address) where !address.isEmpty && address.utf8.count <= 300: dashboard = address
            default:
                throw Problem(option: "options.dashboard", message: "true or \"HOST:PORT\" expected, got \(value.typeName)")
            }
        }
        if let value = fields["stages"] { stages = try Self.stages(value, option: "options.stages") }
        if let value = fields["arrival"] {
            guard let arrivalFields = value.dictionaryValue else {
                throw Problem(option: "options.arrival", message: "{ rate = 100, time_unit = \"1h\", duration = \"12h\", max_vus = 200 } expected")
            }
            arrival = try Self.arrival(arrivalFields, option: "options.arrival", known: Self.arrivalFields)
        }
        if let value = fields["scenarios"] { scenarios = try Self.scenarios(value) }
        if let arrival, vus > arrival.maxVUs {
            throw Problem(option: "options.vus", message: "\(vus) VUs made before the arrivals are more than "
                          + "options.arrival.max_vus (\(arrival.maxVUs))")
        }
        if fields["scenarios"] != nil {
            for key in ["vus", "iterations", "duration", "stages", "arrival"] where fields[key] != nil {
                throw Problem(option: "options.\(key)", message: "options.scenarios say how each scenario runs: give \(key) in one of them")
            }
        }
        let executors = ["duration", "stages", "arrival"].filter { fields[$0] != nil }
        let ramps = executors.contains("stages") || executors.contains("arrival")
        if executors.count > 1 || (fields["iterations"] != nil && ramps) {
            let named = (fields["iterations"] != nil ? ["iterations"] : []) + executors
            throw Problem(option: "options.\(named.last!)", message: "options." + named.joined(separator: ", options.")
                          + " are different ways to run: give one of them")
        }
    }

    /// The command line's `--vus`, `--iterations` and `--duration`: any of them replaces the
    /// file's `stages`, `arrival` and `scenarios` (as k6's command line does: the run is then
    /// one scenario calling `run`), `--iterations` alone the
    /// file's `duration`, and `--duration` alone the file's `iterations`.
    public mutating func override(vus: Int?, iterations: Int?, duration: Double?) {
        guard vus != nil || iterations != nil || duration != nil else { return }
        if let vus { self.vus = vus }
        if let iterations {
            self.iterations = iterations
            if duration == nil { self.duration = nil }
        }
        if let duration {
            self.duration = duration
            if iterations == nil { self.iterations = nil }
        }
        stages = nil
        arrival = nil
        scenarios = []
    }

    /// `{ metric = { "tag", ... }, ... }`: names of metrics (any: a scenario's own are
    /// declared later) and of tags.
    private static func summaryTags(_ value: LuaValue) throws -> [String: [String]] {
        let expected = "{ sdk_call_seconds = { \"method\" }, ... } expected"
        guard let fields = value.dictionaryValue, fields.count <= maximumSummaryTags else {
            throw Problem(option: "options.summary_tags", message: expected + " (at most \(maximumSummaryTags) metrics)")
        }
        return try fields.reduce(into: [:]) { tags, field in
            let option = "options.summary_tags.\(field.key)"
            guard ScenarioMetrics.isValidName(field.key) else { throw Problem(option: option, message: "a metric name expected") }
            guard let names = field.value.arrayValue, !names.isEmpty, names.count <= ScenarioMetrics.tagsPerSample,
                let strings = Optional(names.compactMap(\.stringValue)), strings.count == names.count,
                strings.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 128 })
            else {
                throw Problem(option: option, message: "a list of 1 to \(ScenarioMetrics.tagsPerSample) tag names expected")
            }
            tags[field.key] = strings
        }
    }

    /// `" (did you mean 'iterations'?)"` for a misspelt name, else the names there are.
    static func hint(_ name: String, among known: [String]) -> String {
        let suggestion = Suggestion.didYouMean(name, among: known)
        return suggestion.isEmpty ? " (known: \(known.joined(separator: ", ")))" : suggestion
    }

    /// The iterations of a shared-iterations run: `iterations`, or one per VU.
    public var totalIterations: Int { iterations ?? vus }

    /// A whole number from `minimum` to ``maximumVUs`` (for VUs) or to a billion.
    static func count(_ value: LuaValue, _ option: String, minimum: Int) throws -> Int {
        let limit = option.hasSuffix("vus") || option.hasSuffix("target") ? maximumVUs : 1_000_000_000
        guard let number = value.integerValue, number >= Int64(minimum), number <= Int64(limit) else {
            throw Problem(option: option, message: "a whole number from \(minimum) to \(limit) expected, got \(Self.shown(value))")
        }
        return Int(number)
    }

    static func seconds(_ value: LuaValue, _ option: String) throws -> Double {
        do {
            if let number = value.doubleValue { return try ScenarioDuration.seconds(in: LuaValue.number(number).description) }
            guard let text = value.stringValue else {
                throw ScenarioDuration.Problem(message: "a duration such as \"30s\" expected, got \(value.typeName)")
            }
            return try ScenarioDuration.seconds(in: text)
        } catch let problem as ScenarioDuration.Problem {
            throw Problem(option: option, message: problem.message)
        }
    }

    static func shown(_ value: LuaValue) -> String {
        if case .string(let text) = value { return "\"\(text)\"" }
        return value.typeName == "table" ? "a table" : value.description
    }
}
