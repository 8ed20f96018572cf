import CCAIWire
import Foundation
import LuaRuntime

/// What an admin would set in the portal (docs/sdk-and-sandbox.md, configuration). A configuration file is a
/// Lua chunk returning a table with these fields in snake_case; fields of later slices
/// (menus, agents, surveys...) are read by the parts that use them.
///
/// ```lua
/// return { company = { name = "Acme", support_email = "help@acme.test", languages = { "en", "es" },
///                      time_zone = "America/Los_Angeles", key = "dev-key", secret = "dev-secret",
///                      jwt_algorithms = { "HS384", "HS256" } } }
/// ```
public struct SandboxConfiguration: Codable, Sendable {
    public struct Company: Codable, Sendable {
        public var name: String
        public var supportEmail: String?
        /// Supported language codes, the default first.
        public var languages: [String]
        public var timeZone: String
        public var preventDirectPstnCall: Bool?
        /// The company key SDKs initialize with.
        public var key: String
        /// The secret end-user JWTs are signed with. Never readable from scripts.
        public var secret: String
        /// Accepted JWT algorithms (default both `HS384` and `HS256`).
        public var jwtAlgorithms: [String]?
        /// Lifetime of auth tokens in seconds (default one day).
        public var authTokenSeconds: Double?
        /// The longest lifetime (`exp` - `iat`) of an end-user JWT accepted, in seconds
        /// (default one day): a token signed to live for years is refused.
        public var jwtMaxLifetimeSeconds: Double?
        /// The company-wide post-session rules (queues override them key by key).
        public var postSession: PostSessionConfiguration?
        /// The company-wide audible messages of calls by kind (queues override them).
        public var audibleMessages: [String: AudibleMessageConfiguration]?
        /// The company's subdomain (`acme` of `acme.example.com`): the user name of the Apps
        /// API's Basic credentials. Default `sandbox`.
        public var subdomain: String?

        /// The subdomain Apps API requests name.
        public var effectiveSubdomain: String { subdomain ?? "sandbox" }

        public init(name: String, supportEmail: String?, languages: [String], timeZone: String,
                    preventDirectPstnCall: Bool?, key: String, secret: String, jwtAlgorithms: [String]?,
                    authTokenSeconds: Double?, jwtMaxLifetimeSeconds: Double? = nil) {
            self.jwtMaxLifetimeSeconds = jwtMaxLifetimeSeconds
            self.name = name
            self.supportEmail = supportEmail
            self.languages = languages
            self.timeZone = timeZone
            self.preventDirectPstnCall = preventDirectPstnCall
            self.key = key
            self.secret = secret
            self.jwtAlgorithms = jwtAlgorithms
            self.authTokenSeconds = authTokenSeconds
        }
    }

    public var company: Company
    /// The company's business hours; nil is always open.
    public var hours: BusinessHours?
    /// The queue menu tree.
    public var menus: [MenuConfiguration]?
    public var agents: [AgentConfiguration]?
    /// Virtual agents by id.
    public var virtualAgents: [String: VirtualAgentConfiguration]?
    /// A chat whose end user has written nothing for this many seconds (since it started
    /// or since their last message) ends with `ended_by = "timeout"`; none by default.
    public var chatTimeoutSeconds: Double?
    /// The average handle time of a session, for wait estimates (default 300 seconds).
    public var handleTimeSeconds: Double?
    /// Runs the clock of business hours from this moment (ISO 8601, e.g.
    /// `"2026-11-30T20:00:00-08:00"`), to try after-hours behaviour at any time of day.
    /// Tokens and JWTs keep the real time.
    public var clockStart: String?
    /// Custom forms agents send (`agent.send_form{ id = 10 }`), as `getCustomFormDetails`
    /// answers them.
    public var customForms: [CustomFormDetailsResponse]?
    /// Web forms agents send (`agent.send_web_form{ external_form_id = "form123" }`).
    public var webForms: [WebFormConfiguration]?
    /// Per-end-user quotas and retention (defaults when absent).
    public var limits: LimitsConfiguration?
    /// Post-session surveys by key (`post_session = { survey = "billing-survey" }`).
    public var surveys: [String: SurveyConfiguration]?
    /// The bearer token of the operator's routes (`GET /admin/ratings`); none refuses them.
    /// `ccai sandbox serve` makes one up and prints it when the configuration has none.
    public var adminToken: String?
    /// Where the events of Apps API chats are POSTed, signed (docs/webhooks.md); none by default.
    public var webhooks: WebhookConfiguration?
    /// The credentials of the Apps API (`/apps/api/v1`); none refuses every request to it.
    /// `ccai sandbox serve` and `ccai run` make one up when the configuration has none.
    public var apiCredentials: [APICredential]?

    public init(company: Company, hours: BusinessHours? = nil, menus: [MenuConfiguration]? = nil,
                agents: [AgentConfiguration]? = nil, handleTimeSeconds: Double? = nil) {
        self.company = company
        self.hours = hours
        self.menus = menus
        self.agents = agents
        self.handleTimeSeconds = handleTimeSeconds
    }

    /// Every menu of the tree, depth first.
    public var allMenus: [MenuConfiguration] { (menus ?? []).flatMap(\.flattened) }

    /// A realistic company that exercises every feature (the default of `ccai run` and
    /// `ccai sandbox serve`); its Lua text is `SandboxConfiguration.builtInSource`.
    public static let builtIn: SandboxConfiguration = {
        do {
            return try parse(builtInSource, name: "built-in configuration")
        } catch {
            preconditionFailure("the built-in configuration is invalid: \(error)")
        }
    }()

    /// The accepted JWT algorithms.
    public var algorithms: Set<JWTAlgorithm> {
        Set((company.jwtAlgorithms ?? ["HS384", "HS256"]).compactMap { JWTAlgorithm(rawValue: $0.uppercased()) })
    }

    /// Checks what decoding cannot (non-empty keys, known algorithms and time zone, ids
    /// that exist...): every problem of the configuration in one ``ConfigurationError``.
    public func validate() throws {
        let problems = self.problems()
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
    }

    /// Every problem decoding cannot see, each naming its field.
    func problems() -> [String] {
        var problems: [String] = []
        func company(_ field: String, _ problem: String) { problems.append("company.\(field): \(problem)") }
        if self.company.key.isEmpty { company("key", "must not be empty") }
        if self.company.secret.isEmpty { company("secret", "must not be empty") }
        if self.company.languages.isEmpty { company("languages", "needs at least one language code") }
        if TimeZone(identifier: self.company.timeZone) == nil {
            company("time_zone", "'\(self.company.timeZone)' is not an IANA time zone (e.g. America/Los_Angeles)")
        }
        for name in self.company.jwtAlgorithms ?? [] where JWTAlgorithm(rawValue: name.uppercased()) == nil {
            company("jwt_algorithms", "'\(name)' is not supported (HS384 or HS256)")
        }
        if algorithms.isEmpty { company("jwt_algorithms", "needs HS384, HS256 or both") }
        if let start = clockStart, ISO8601DateFormatter().date(from: start) == nil {
            problems.append("clock_start: '\(start)' is not an ISO 8601 time like 2026-11-30T20:00:00-08:00")
        }
        if let seconds = self.company.authTokenSeconds, !(seconds > 0 && seconds <= Checked.maximumSeconds) {
            company("auth_token_seconds", "must be a positive number of seconds (at most 100 years)")
        }
        if let seconds = self.company.jwtMaxLifetimeSeconds, !(seconds > 0 && seconds <= Checked.maximumSeconds) {
            company("jwt_max_lifetime_seconds", "must be a positive number of seconds")
        }
        problems += limits?.problems() ?? []
        problems += webhooks?.problems() ?? []
        problems += apiCredentialProblems()
        if let seconds = handleTimeSeconds, !(seconds >= 0 && seconds.isFinite) {
            problems.append("handle_time_seconds: must be a number of seconds")
        }
        var ids = Set<Int>(), keys = Set<String>()
        for menu in allMenus {
            if !ids.insert(menu.id).inserted { problems.append("menus: the id \(menu.id) is used twice") }
            for key in menu.directAccessKeys ?? [] where !keys.insert(key).inserted {
                problems.append("menus: the direct access key '\(key)' is used twice")
            }
        }
        for menu in allMenus {
            for type in menu.preSessionSmartActionTypes ?? [] where type == .unknown {
                problems.append("menus[id \(menu.id)].pre_session_smart_action_types: "
                                + SmartActionType.requestable.map(\.rawValue).joined(separator: ", ") + " expected")
            }
            for target in [menu.deflection?.afterHours, menu.deflection?.overCapacity].compactMap({ $0 }) where !ids.contains(target) {
                problems.append("menus[id \(menu.id)].deflection: there is no menu \(target)")
            }
            for (channel, id) in [("chat", menu.channels?.chat?.virtualAgent), ("voice_call", menu.channels?.voiceCall?.virtualAgent)]
            {
                guard let id, virtualAgents?[id] == nil else { continue }
                problems.append("menus[id \(menu.id)].channels.\(channel).virtual_agent: there is no virtual agent '\(id)'"
                                + Suggestion.didYouMean(id, among: Array((virtualAgents ?? [:]).keys)))
            }
        }
        for agent in agents ?? [] {
            for id in agent.menus where !ids.contains(id) {
                problems.append("agents[\(agent.name)].menus: there is no menu \(id)")
            }
            if agent.isPlayedAtTheConsole, agent.script != nil {
                problems.append("agents[\(agent.name)]: a console agent is played by a person at the console: it has no script")
            }
            if let maxChats = agent.maxChats, maxChats < 1 {
                problems.append("agents[\(agent.name)].max_chats: at least 1, got \(maxChats)")
            }
            problems += agent.shiftProblems()
        }
        if let timeout = chatTimeoutSeconds, !(timeout > 0) {
            problems.append("chat_timeout_seconds: a positive number of seconds, got \(timeout)")
        }
        return problems + formProblems() + postSessionProblems() + callProblems()
    }

    /// Reads a configuration file: a Lua chunk run in the confined runtime. Agent and
    /// virtual agent script paths are relative to the file's folder. Every problem of the
    /// file is in the one ``ConfigurationError``: wrong fields, unknown ones, what
    /// ``validate()`` checks, and scripts that cannot be read or compiled.
    ///
    /// The chunk sees the global `env`, a read-only table of `environment` (the run's
    /// `--env` values), so one file serves several plans:
    ///
    /// ```lua
    /// local agents = {}
    /// for number = 1, tonumber(env.AGENTS) or 5 do agents[number] = { name = "Agent " .. number, menus = { 1 } } end
    /// ```
    public static func load(file path: String, environment: [String: String] = [:]) async throws -> SandboxConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(message: "cannot read the sandbox configuration '\(path)'")
        }
        let value = try await evaluate(String(decoding: data, as: UTF8.self), name: path, environment: environment)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        var (configuration, problems) = decode(value)
        configuration?.resolveScripts(relativeTo: folder)
        problems += AgentScripts(compiling: ScriptReferences(in: value, relativeTo: folder).scripts).problems
        guard let configuration, problems.isEmpty else { throw ConfigurationError(problems: problems, in: path) }
        return configuration
    }

    /// Makes relative agent and virtual agent script paths relative to `folder`.
    private mutating func resolveScripts(relativeTo folder: URL) {
        for index in (agents ?? []).indices {
            let script = agents?[index].script.map { ScriptReferences.resolve($0, relativeTo: folder) }
            agents?[index].script = script
        }
        for id in (virtualAgents ?? [:]).keys {
            let script = virtualAgents?[id]?.script.map { ScriptReferences.resolve($0, relativeTo: folder) }
            virtualAgents?[id]?.script = script
        }
    }

    /// Runs a configuration chunk, with `environment` as its read-only global `env`, and
    /// gives the value it returns.
    private static func evaluate(_ source: String, name: String, environment: [String: String]) async throws -> LuaValue {
        let state = try LuaState(limits: LuaLimits(memoryBytes: 32 << 20, instructions: 50_000_000, seconds: 5))
        await state.withContext { $0.setGlobal("env", readOnly: LuaTable(strings: environment)) }
        let value: LuaValue
        do {
            value = try await state.run(source: source, chunkName: "@" + name).first ?? .nil
        } catch let error as LuaScriptError {
            await state.close()
            throw ConfigurationError(message: "\(name): \(error.message)")
        }
        await state.close()
        return value
    }

    /// The synchronous path, for the built-in text.
    static func parse(_ source: String, name: String) throws -> SandboxConfiguration {
        let value: LuaValue
        do {
            value = try LuaState.evaluate(source, chunkName: "=" + name,
                                          limits: LuaLimits(memoryBytes: 32 << 20, instructions: 50_000_000, seconds: 5))
                .first ?? .nil
        } catch let error as LuaScriptError {
            throw ConfigurationError(message: "\(name): \(error.message)")
        }
        let (configuration, problems) = decode(value)
        guard let configuration, problems.isEmpty else { throw ConfigurationError(problems: problems, in: name) }
        return configuration
    }

    /// Decodes the returned table in one pass that finds every problem: wrong fields (a
    /// wrong optional field does not hide the rest), unknown fields with a "did you mean",
    /// and, when the configuration decodes (its wrong fields optional ones, read as
    /// absent), every problem of ``problems()``: a wrong `max_chats` does not hide a queue
    /// naming a virtual agent that does not exist. The configuration is nil when a
    /// required part could not be read (its stand-in would be judged, not the file).
    private static func decode(_ value: LuaValue) -> (SandboxConfiguration?, [String]) {
        guard case .table = value else { return (nil, ["the file must return a table, got \(value.typeName)"]) }
        let report = LuaDecoder().decodeCollectingProblems(SandboxConfiguration.self, from: value)
        var problems = report.problems.map { DecodingFailure($0).sentence() }
            + report.unknownKeys.map { unknown in
                let field = unknown.field.count > 120 ? unknown.field.prefix(120) + "..." : Substring(unknown.field)
                return "\(field): unknown field" + Suggestion.didYouMean(unknown.key, among: unknown.known)
            }
        if let configuration = report.value { problems += configuration.problems() }
        let unlisted = report.unreportedProblems + max(0, problems.count - LuaDecoder.problemLimit)
        problems = Array(problems.prefix(LuaDecoder.problemLimit))
        if unlisted > 0 { problems.append("... and \(unlisted) more problem(s) like these") }
        return (report.value, problems)
    }
}
