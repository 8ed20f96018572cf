import Foundation
import LuaRuntime

/// How a scenario runs (LUA-API section 6): its `options` table, then the command line's
/// `--vus`, `--iterations` and `--duration` over it.
///
/// - `vus` VUs share `iterations` (default: one each) until all have run, or
/// - with `duration`, each VU runs iterations one after another until it has passed
///   (an iteration that is running then finishes within `graceful_stop`).
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
    /// Seconds the VUs loop for; nil: until the iterations are done.
    public var duration: Double?
    /// Seconds a running iteration gets to finish once the duration has passed (or a
    /// threshold with `abort_on_fail` has failed).
    public var gracefulStop: Double = 30
    /// Seconds the whole run may take; nil: no limit.
    public var timeout: Double?
    /// The run's pass/fail criteria, in the order of their metrics' names.
    public var thresholds: [Threshold] = []

    /// The options a later version will read, refused for now with a message that says so.
    static let notYetSupported = ["stages", "arrival", "plugins", "sandbox", "env",
                                  "virtual_time", "start", "seed"]
    static let known = ["vus", "iterations", "duration", "graceful_stop", "thresholds", "timeout"]

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
            throw Problem(option: "options.\(key)", message: "unknown option (known: \(Self.known.joined(separator: ", ")))")
        }
        if let value = fields["vus"] { vus = try Self.count(value, "options.vus", minimum: 1) }
        if let value = fields["iterations"] { iterations = try Self.count(value, "options.iterations", minimum: 1) }
        if let value = fields["duration"] { duration = try Self.seconds(value, "options.duration") }
        if let value = fields["graceful_stop"] { gracefulStop = try Self.seconds(value, "options.graceful_stop") }
        if let value = fields["thresholds"] { thresholds = try Threshold.parse(value, declared: declared) }
        if let value = fields["timeout"] { timeout = try Self.seconds(value, "options.timeout") }
    }

    /// The iterations of a shared-iterations run: `iterations`, or one per VU.
    public var totalIterations: Int { iterations ?? vus }

    /// A whole number from `minimum` to ``maximumVUs`` (for VUs) or to a billion.
    static func count(_ value: LuaValue, _ option: String, minimum: Int) throws -> Int {
        let limit = option.hasSuffix("vus") ? maximumVUs : 1_000_000_000
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

    private static func shown(_ value: LuaValue) -> String {
        if case .string(let text) = value { return "\"\(text)\"" }
        return value.typeName == "table" ? "a table" : value.description
    }
}
