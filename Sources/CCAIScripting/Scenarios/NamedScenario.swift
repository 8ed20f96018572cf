import CCAIWire
import Foundation
import LuaRuntime

/// One of `options.scenarios` (k6's scenarios, in our names): how it runs (its executor and
/// that executor's options), the scenario table's function its iterations call (`exec`,
/// default `run`), the tags every sample of its VUs carries (with `scenario = NAME`), and
/// when it starts after the run does (`start_time`).
///
/// ```lua
/// options = { scenarios = {
///   customers = { executor = "constant_arrival", rate = 200, time_unit = "1m", duration = "10m", max_vus = 200 },
///   callers = { executor = "ramping_arrival", start_rate = 0, time_unit = "1m", exec = "call",
///               stages = { { target = 30, duration = "5m" } }, max_vus = 50, start_time = "1m" },
/// } }
/// ```
public struct NamedScenario: Sendable, Equatable {
    /// The executors, k6's in snake_case.
    public enum ExecutorName: String, CaseIterable, Sendable {
        case sharedIterations = "shared_iterations"
        case constantVUs = "constant_vus"
        case rampingVUs = "ramping_vus"
        case constantArrival = "constant_arrival"
        case rampingArrival = "ramping_arrival"

        /// The fields its options take, besides those every scenario takes.
        var fields: [String] {
            switch self {
            case .sharedIterations: return ["vus", "iterations"]
            case .constantVUs: return ["vus", "duration"]
            case .rampingVUs: return ["start_vus", "stages"]
            case .constantArrival: return ["rate", "time_unit", "duration", "max_vus", "poisson", "vus"]
            case .rampingArrival: return ["start_rate", "time_unit", "stages", "max_vus", "poisson", "vus"]
            }
        }
    }

    /// The fields every scenario takes.
    static let commonFields = ["executor", "exec", "tags", "start_time", "graceful_stop"]
    /// The most scenarios one file may have.
    static let maximumScenarios = 100

    public var name: String
    /// Its executor's options (`vus`, `iterations`, `duration`, `stages`, `arrival`, `graceful_stop`).
    public var run: ScenarioOptions
    /// The function of the scenario table its iterations call.
    public var exec = "run"
    /// Tags of every sample its VUs record, `scenario` among them (none for the one scenario
    /// of a file without `options.scenarios`).
    public var tags: [String: String] = [:]
    /// Seconds after the run's start that it starts.
    public var startTime = 0.0

    public init(name: String, run: ScenarioOptions, exec: String = "run", tags: [String: String] = [:], startTime: Double = 0) {
        self.name = name
        self.run = run
        self.exec = exec
        self.tags = tags
        self.startTime = startTime
    }

    /// The seconds from the run's start until it stops starting iterations (nil: when its
    /// iterations are done).
    public var plannedEnd: Double? { run.plannedSeconds.map { startTime + $0 } }
}

extension ScenarioOptions {
    /// What the run runs: `options.scenarios`, or the file's one scenario (untagged, `run`).
    public var workloads: [NamedScenario] {
        scenarios.isEmpty ? [NamedScenario(name: "default", run: self)] : scenarios
    }

    /// Reads `options.scenarios`, in the order of their names.
    static func scenarios(_ value: LuaValue) throws -> [NamedScenario] {
        guard let entries = value.dictionaryValue, !entries.isEmpty, entries.count <= NamedScenario.maximumScenarios else {
            throw Problem(option: "options.scenarios", message: "a table of 1 to \(NamedScenario.maximumScenarios) named scenarios "
                          + "expected, such as { customers = { executor = \"constant_vus\", vus = 10, duration = \"1m\" } }")
        }
        let scenarios = try entries.keys.sorted().map { name in try namedScenario(name, entries[name]!) }
        let total = scenarios.reduce(0) { $0 + $1.run.peakVUs }
        guard total <= maximumVUs else {
            throw Problem(option: "options.scenarios", message: "\(total) VUs in all are more than \(maximumVUs)")
        }
        return scenarios
    }

    private static func namedScenario(_ name: String, _ value: LuaValue) throws -> NamedScenario {
        let option = "options.scenarios.\(name)"
        guard !name.isEmpty, name.utf8.count <= 64, name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic
            || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") })
        else {
            throw Problem(option: "options.scenarios", message: "a scenario's name is 1 to 64 letters, digits, _ and -, got '\(name.prefix(64))'")
        }
        let executors = NamedScenario.ExecutorName.allCases.map(\.rawValue)
        guard let fields = value.dictionaryValue, let executorName = fields["executor"]?.stringValue,
            let executor = NamedScenario.ExecutorName(rawValue: executorName)
        else {
            let given = value["executor"]?.stringValue.map { Suggestion.didYouMean($0, among: executors) } ?? ""
            throw Problem(option: option + ".executor", message: "one of \(executors.joined(separator: ", ")) expected" + given)
        }
        let known = NamedScenario.commonFields + executor.fields
        for key in fields.keys.sorted() where !known.contains(key) {
            throw Problem(option: "\(option).\(key)", message: "unknown field of a \(executorName) scenario" + hint(key, among: known.sorted()))
        }
        var scenario = NamedScenario(name: name, run: try executorOptions(executor, fields, option: option), tags: ["scenario": name])
        if let exec = fields["exec"] {
            guard let function = exec.stringValue, isFunctionName(function) else {
                throw Problem(option: option + ".exec", message: "the name of a function of the scenario table expected, got \(shown(exec))")
            }
            scenario.exec = function
        }
        if let tags = fields["tags"] { scenario.tags = try scenarioTags(tags, option: option + ".tags").merging(scenario.tags) { _, name in name } }
        if let start = fields["start_time"] { scenario.startTime = try seconds(start, option + ".start_time") }
        if let grace = fields["graceful_stop"] { scenario.run.gracefulStop = try seconds(grace, option + ".graceful_stop") }
        return scenario
    }

    /// The executor's options of a scenario, as the top level would have them.
    private static func executorOptions(_ executor: NamedScenario.ExecutorName, _ fields: [String: LuaValue], option: String) throws
        -> ScenarioOptions
    {
        var run = ScenarioOptions()
        func required(_ key: String) throws -> LuaValue {
            guard let value = fields[key] else { throw Problem(option: "\(option).\(key)", message: "a \(executor.rawValue) scenario needs it") }
            return value
        }
        if let vus = fields["vus"] { run.vus = try count(vus, option + ".vus", minimum: 1) }
        switch executor {
        case .sharedIterations:
            if let iterations = fields["iterations"] { run.iterations = try count(iterations, option + ".iterations", minimum: 1) }
        case .constantVUs:
            run.duration = try seconds(try required("duration"), option + ".duration")
        case .rampingVUs:
            run.vus = try fields["start_vus"].map { try count($0, option + ".start_vus", minimum: 0) } ?? 0
            run.stages = try stages(try required("stages"), option: option + ".stages")
        case .constantArrival, .rampingArrival:
            _ = try required(executor == .constantArrival ? "rate" : "stages")
            let arrivalKeys = Set(arrivalFields)
            run.arrival = try arrival(fields.filter { arrivalKeys.contains($0.key) }, option: option, known: arrivalFields)
            if let arrival = run.arrival, run.vus > arrival.maxVUs {
                throw Problem(option: option + ".vus", message: "\(run.vus) VUs made before the arrivals are more than its max_vus (\(arrival.maxVUs))")
            }
        }
        return run
    }

    /// `{ name = "value", ... }`: at most ``ScenarioMetrics/tagsPerSample`` strings.
    private static func scenarioTags(_ value: LuaValue, option: String) throws -> [String: String] {
        guard let fields = value.dictionaryValue, fields.count < ScenarioMetrics.tagsPerSample else {
            throw Problem(option: option, message: "a table of at most \(ScenarioMetrics.tagsPerSample - 1) tags { name = \"value\" } expected")
        }
        return try fields.reduce(into: [:]) { tags, field in
            guard let text = field.value.stringValue, !field.key.isEmpty, field.key.utf8.count <= 128, text.utf8.count <= 256 else {
                throw Problem(option: "\(option).\(field.key)", message: "a string of at most 256 bytes expected, got \(shown(field.value))")
            }
            tags[field.key] = text
        }
    }

    /// A Lua identifier: what `exec` names.
    private static func isFunctionName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first), name.utf8.count <= 128 else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }
}
