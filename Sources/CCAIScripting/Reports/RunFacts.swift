import Foundation

/// What a run was, for the reports that show it and a person who wants to run it again:
/// when it began (on its clock: simulated in virtual time), the `ccai --version` that ran
/// it, the options it ran with, and the script's text. A summary file keeps them, so that
/// `ccai report merge` shows them too.
///
/// ```swift
/// let facts = RunFacts(startedAt: start, version: "ccai 0.9 (Lua 5.4.7)", options: options, scriptText: source)
/// facts.options   // ["vus": "10", "duration": "30s", ...]
/// ```
public struct RunFacts: Codable, Equatable, Sendable {
    /// ISO 8601 in UTC, to the second.
    public var startedAt: String
    public var version: String
    /// The options the run used, by name as a scenario writes them, as text (none for a
    /// plain script).
    public var options: [String: String]
    /// Whether the run went on a simulated clock (`--virtual-time`): its times are that clock's.
    public var virtualTime: Bool
    /// The time zone the run's clock times are shown in (the embedded sandbox's company's;
    /// `GMT` against a platform).
    public var timeZone: String?
    /// The script, when it was read (at most ``maximumScriptBytes``; a longer one is cut
    /// and marked so).
    public var scriptText: String?
    /// What a person changed from the dashboard while the run went on (`Pause at 12 s`,
    /// `rate of chatters 40 at 30 s`), in order; nil when nothing was.
    public var liveChanges: [String]?

    /// The most of a script a summary keeps.
    public static let maximumScriptBytes = 64 << 10

    enum CodingKeys: String, CodingKey {
        case version, options
        case startedAt = "started_at"
        case virtualTime = "virtual_time"
        case timeZone = "time_zone"
        case scriptText = "script_text"
        case liveChanges = "live_changes"
    }

    /// The facts of a run begun at `startedAt`; `options` are a scenario's (nil: a plain
    /// script's run, on a simulated clock when `virtualTime`).
    public init(startedAt: Date, version: String, options: ScenarioOptions?, virtualTime: Bool = false, timeZone: TimeZone = .gmt,
                scriptText: String?, liveChanges: [String] = []) {
        self.liveChanges = liveChanges.isEmpty ? nil : liveChanges
        self.timeZone = timeZone.identifier
        self.startedAt = ISO8601DateFormatter().string(from: startedAt)
        self.version = version
        self.options = options.map(Self.described) ?? [:]
        self.virtualTime = options?.virtualTime ?? virtualTime
        self.scriptText = scriptText.map(Self.bounded)
    }

    /// The options as text, by the names a scenario writes them with; those left at their
    /// defaults are shown too, so that the report says what the run did.
    static func described(_ options: ScenarioOptions) -> [String: String] {
        var described: [String: String] = [:]
        if options.scenarios.isEmpty {
            described = executor(options)
        } else {
            for scenario in options.scenarios {
                var fields = executor(scenario.run)
                if scenario.exec != "run" { fields["exec"] = scenario.exec }
                if scenario.startTime > 0 { fields["start_time"] = ScenarioSummary.duration(scenario.startTime) }
                for (name, value) in fields { described["scenarios.\(scenario.name).\(name)"] = value }
            }
        }
        if let timeout = options.timeout { described["timeout"] = ScenarioSummary.duration(timeout) }
        if let seed = options.seed { described["seed"] = "\(seed)" }
        if let start = options.start { described["start"] = "\(start)" }
        if options.strictPlugins { described["strict_plugins"] = "true" }
        for (metric, tags) in options.summaryTags { described["summary_tags.\(metric)"] = tags.joined(separator: ", ") }
        return described
    }

    /// What runs the iterations, by the names a scenario writes them with.
    private static func executor(_ options: ScenarioOptions) -> [String: String] {
        var described = ["vus": "\(options.vus)", "graceful_stop": ScenarioSummary.duration(options.gracefulStop)]
        switch options.executor {
        case .sharedIterations(let total): described["iterations"] = "\(total)"
        case .constantVUs(let duration):
            described["duration"] = ScenarioSummary.duration(duration)
            if let iterations = options.iterations { described["iterations"] = "\(iterations)" }
        case .rampingVUs(let stages):
            described["stages"] = stages.map { "\(ScenarioSummary.duration($0.duration)) to \($0.target)" }.joined(separator: ", ")
        case .arrivalRate(let arrival):
            let unit = ScenarioSummary.duration(arrival.timeUnit)
            let rate = arrival.stages.isEmpty
                ? "rate \(ScenarioSummary.number(arrival.rate)) per \(unit) for \(ScenarioSummary.duration(arrival.duration))"
                : "rate from \(ScenarioSummary.number(arrival.startRate)) per \(unit): "
                    + arrival.stages.map { "\(ScenarioSummary.duration($0.duration)) to \(ScenarioSummary.number($0.target))" }
                        .joined(separator: ", ")
            described["arrival"] = rate + ", max_vus \(arrival.maxVUs)" + (arrival.poisson ? ", poisson" : "")
        }
        return described
    }

    private static func bounded(_ text: String) -> String {
        guard text.utf8.count > maximumScriptBytes else { return text }
        var kept = ""
        for character in text {
            guard kept.utf8.count + character.utf8.count <= maximumScriptBytes else { break }
            kept.append(character)
        }
        return kept + "\n-- (cut: the script is longer than \(maximumScriptBytes >> 10) KiB)"
    }

    /// Whether a summary file's facts are what a run writes: bounded texts.
    var isBounded: Bool {
        let texts = [startedAt, version, timeZone ?? ""] + Array(options.keys) + Array(options.values)
        return options.count <= 100 && texts.allSatisfy { $0.utf8.count <= 4_096 }
            && (scriptText?.utf8.count ?? 0) <= Self.maximumScriptBytes + 100
    }
}
