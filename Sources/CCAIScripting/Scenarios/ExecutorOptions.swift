import Foundation
import LuaRuntime

/// How the executors' options are read, for the top level (`stages`, `arrival`) and for each
/// of `options.scenarios`, whose errors name where they are (`options.scenarios.callers.rate`).
extension ScenarioOptions {
    /// The fields of `options.arrival`: a flat `rate` for a `duration`, or a ramping rate
    /// (`start_rate` and `stages` of target rates).
    static let arrivalFields = ["rate", "time_unit", "duration", "max_vus", "poisson", "start_rate", "stages"]

    /// `{ { duration = "30s", target = 10 }, ... }`: VU targets.
    static func stages(_ value: LuaValue, option: String) throws -> [Stage] {
        try stageList(value, option: option, example: "{ duration = \"30s\", target = 10 }") { fields, option in
            Stage(duration: try seconds(fields.duration, option + ".duration"), target: try count(fields.target, option + ".target", minimum: 0))
        }
    }

    /// `{ { duration = "1m", target = 100 }, ... }`: arrival rates per time unit.
    static func rateStages(_ value: LuaValue, option: String) throws -> [RateStage] {
        try stageList(value, option: option, example: "{ duration = \"1m\", target = 100 }") { fields, option in
            RateStage(duration: try seconds(fields.duration, option + ".duration"), target: try rate(fields.target, option + ".target", minimum: 0))
        }
    }

    private static func stageList<Stage>(_ value: LuaValue, option: String, example: String,
                                         _ read: ((duration: LuaValue, target: LuaValue), String) throws -> Stage) throws -> [Stage] {
        guard let items = value.arrayValue, !items.isEmpty, items.count <= maximumStages else {
            throw Problem(option: option, message: "a list of 1 to \(maximumStages) \(example) expected")
        }
        return try items.enumerated().map { index, item in
            let option = "\(option)[\(index + 1)]"
            guard let fields = item.dictionaryValue, let duration = fields["duration"], let target = fields["target"], fields.count == 2
            else { throw Problem(option: option, message: "\(example) expected") }
            return try read((duration, target), option)
        }
    }

    /// Iterations per time unit: above `minimum` (or at it, when it is 0) and at most a million.
    private static func rate(_ value: LuaValue, _ option: String, minimum: Double) throws -> Double {
        guard let rate = value.doubleValue, rate.isFinite, minimum == 0 ? rate >= 0 : rate > minimum, rate <= 1_000_000 else {
            throw Problem(option: option, message: "a number of iterations per time_unit, \(minimum == 0 ? "from 0" : "above 0") "
                          + "and at most a million, expected, got \(shown(value))")
        }
        return rate
    }

    /// An arrival rate from `fields` (those of `known` only): a flat `rate` for a `duration`,
    /// or `stages` of target rates from `start_rate` (the ramping arrival rate).
    static func arrival(_ fields: [String: LuaValue], option: String, known: [String]) throws -> Arrival {
        for key in fields.keys.sorted() where !known.contains(key) {
            throw Problem(option: "\(option).\(key)", message: "unknown field" + hint(key, among: known.sorted()))
        }
        var arrival: Arrival
        if let stagesValue = fields["stages"] {
            for flat in ["rate", "duration"] where fields[flat] != nil {
                throw Problem(option: "\(option).\(flat)", message: "a ramping rate's stages say its rates and durations: give "
                              + "stages, or rate and duration")
            }
            let stages = try rateStages(stagesValue, option: option + ".stages")
            arrival = Arrival(rate: stages.map(\.target).max() ?? 0, duration: stages.reduce(0) { $0 + $1.duration })
            arrival.stages = stages
            if let start = fields["start_rate"] { arrival.startRate = try rate(start, option + ".start_rate", minimum: 0) }
            guard arrival.rate > 0 || arrival.startRate > 0 else {
                throw Problem(option: option + ".stages", message: "a rate above 0 in some stage is needed, or no iteration would arrive")
            }
        } else {
            guard let rateValue = fields["rate"] else {
                throw Problem(option: option + ".rate", message: "a number of iterations per time_unit is needed (or stages of rates)")
            }
            guard let durationValue = fields["duration"] else {
                throw Problem(option: option + ".duration", message: "how long iterations arrive is needed, such as \"10m\"")
            }
            if fields["start_rate"] != nil {
                throw Problem(option: option + ".start_rate", message: "start_rate begins a ramping rate: give stages with it")
            }
            arrival = Arrival(rate: try rate(rateValue, option + ".rate", minimum: 0.000_000_1), duration: try seconds(durationValue, option + ".duration"))
        }
        if let unit = fields["time_unit"] {
            arrival.timeUnit = try seconds(unit, option + ".time_unit")
            guard arrival.timeUnit > 0 else { throw Problem(option: option + ".time_unit", message: "a duration above 0 expected") }
        }
        guard arrival.timeUnit / max(arrival.rate, arrival.startRate) >= 0.000_001 else {
            throw Problem(option: option + ".rate", message: "at most a million iterations a second")
        }
        if let maxVUs = fields["max_vus"] { arrival.maxVUs = try count(maxVUs, option + ".max_vus", minimum: 1) }
        if let poisson = fields["poisson"] {
            guard let flag = poisson.boolValue else {
                throw Problem(option: option + ".poisson", message: "a boolean expected, got \(poisson.typeName)")
            }
            arrival.poisson = flag
        }
        return arrival
    }
}
