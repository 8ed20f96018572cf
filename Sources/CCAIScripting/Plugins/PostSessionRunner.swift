import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime
import Timekeeping

/// What ``PostSessionRunner/run(chat:optIn:)`` did: the flow that ran (`virtual_agent`,
/// `survey`, `csat`) with what was submitted, or `none` with `result.reason`
/// (`not_configured`, `opt_in_declined`, `plugin`).
public struct PostSessionOutcome: Sendable {
    public var name: String
    public var result: LuaValue
}

/// Runs the post-session phase of an ended chat or call where the app would
/// (docs/plugins.md, post-session): the hierarchy's flow (`getPostSessionFlow`), the
/// plugins' `post_session` hooks (another flow or `"none"`), opt-in
/// (`post_session_opt_in` hooks, default yes), `startPostSession` and `readyPostSession`,
/// then the flow: the `survey` hook's answers through `submitSurvey`, the `csat` hook's
/// rating through `rate`, or the post-session virtual agent. A hook that fails or answers
/// what does not fit is reported with its plugin's name and never stops the host; the
/// SDK's refusals are thrown.
///
/// ```swift
/// let outcome = try await PostSessionRunner(sdk: ccai, plugins: host).run(chat: ended)
/// print(outcome.name)   // "csat"
/// ```
public struct PostSessionRunner: Sendable {
    public let sdk: CCAI
    public let plugins: PluginHost?
    /// Where the hooks' failures are reported (the state that ran the flow).
    public var failures: PluginFailures?
    public var logger: ScriptLogger = StreamLogger(minimumLevel: .warn)
    /// The time of the hooks' `ctx.now`.
    public var clock: any TimeSource = SystemClock()

    /// The fields of a post-session hook's `ctx` (besides the plugin's `config`), in the
    /// order ``TypeStubs`` declares them (`ccai.PostSessionContext`).
    enum ContextField: String, CaseIterable {
        case flow, session, now
        case customData = "custom_data"
        case endUser = "end_user"
    }

    /// The names of ``ContextField``.
    static var contextFields: [String] { ContextField.allCases.map(\.rawValue) }

    public init(sdk: CCAI, plugins: PluginHost?) {
        self.sdk = sdk
        self.plugins = plugins
    }

    /// The ended session the runner works on, through its service.
    struct Subject: Sendable {
        /// "chat 3", "call 4".
        var name: String
        var id: Int
        var communicationType: CommunicationType
        /// The session as the platform has it now: as Lua data, whether it goes on, and
        /// whether the end user must opt in.
        var refresh: @Sendable () async throws -> (value: LuaValue, isInProgress: Bool, optInRequired: Bool?)
        var flow: @Sendable () async throws -> PostSessionFlow?
        var start: @Sendable () async throws -> Void
        var ready: @Sendable () async throws -> Void
        var customData: SessionCustomData?
    }

    /// Runs the post-session phase of the SDK's current chat, which has ended.
    public func run(chat: ChatResponse, optIn: Bool? = nil) async throws -> PostSessionOutcome {
        guard let service = sdk.chatService else { throw CCAIError.notInitialized("chat") }
        guard service.currentChat?.id == chat.id else {
            throw CCAIError.invalidArgument("chat \(chat.id) is not the SDK's current chat (\(service.currentChat.map { String($0.id) } ?? "none"))")
        }
        return try await run(Subject(name: "chat \(chat.id)", id: chat.id, communicationType: .chats, refresh: {
            let current = try await service.checkStatus()
            return (try LuaEncoder().encode(current), current.isInProgress, current.postSessionOptInRequired)
        }, flow: { try await service.getPostSessionFlow() }, start: { try await service.startPostSession() },
        ready: { try await service.readyPostSession() }, customData: service.sessionCustomData), optIn: optIn)
    }

    /// Runs the post-session phase of the SDK's current call, which has ended.
    public func run(call: CallResponse, optIn: Bool? = nil) async throws -> PostSessionOutcome {
        guard let service = sdk.callService else { throw CCAIError.notInitialized("call") }
        guard service.currentCall?.id == call.id else {
            throw CCAIError.invalidArgument("call \(call.id) is not the SDK's current call (\(service.currentCall.map { String($0.id) } ?? "none"))")
        }
        return try await run(Subject(name: "call \(call.id)", id: call.id, communicationType: .calls, refresh: {
            let current = try await service.checkStatus()
            return (try LuaEncoder().encode(current), current.isInProgress || current.status == .scheduled, current.postSessionOptInRequired)
        }, flow: { try await service.getPostSessionFlow() }, start: { try await service.startPostSession() },
        ready: { try await service.readyPostSession() }, customData: service.sessionCustomData), optIn: optIn)
    }

    private func run(_ subject: Subject, optIn: Bool?) async throws -> PostSessionOutcome {
        let current = try await subject.refresh()
        guard !current.isInProgress else {
            throw CCAIError(code: .conflict, message: "\(subject.name) is still in progress; post-session runs once it has ended")
        }
        let configured = try await subject.flow()
        let encoder = LuaEncoder()
        let session = current.value
        var context = LuaTable()
        for field in ContextField.allCases {
            switch field {
            case .flow: context[field.rawValue] = try configured.map { try encoder.encode($0) } ?? .nil
            case .session: context[field.rawValue] = session
            case .now: context[field.rawValue] = .number(clock.now().timeIntervalSince1970)
            case .customData: context[field.rawValue] = try encoder.encode(subject.customData ?? SessionCustomData())
            case .endUser: context[field.rawValue] = try await endUser().map { try encoder.encode($0) } ?? .nil
            }
        }

        var flowType = configured?.type
        if let plugins, case .answered(let answer, let plugin, _) = await plugins.ask(.postSession, argument: session,
                                                                                        context: .table(context), reporting: failures) {
            switch chosenFlow(answer) {
            case .some(.none): return PostSessionOutcome(name: "none", result: reason("plugin", plugin: plugin))
            case .some(.some(.virtualAgent)) where configured?.type != .virtualAgent:
                await plugins.recordError(plugin: plugin, hook: "post_session", reporting: failures, "post_session: chose \"virtual_agent\", but \(subject.name)'s queue has no "
                                          + "post-session virtual agent; the configured flow runs")
            case .some(.some(let type)): flowType = type
            case .none:
                await plugins.recordError(plugin: plugin, hook: "post_session", reporting: failures, "post_session: answered \(answer.description); "
                                          + "\"virtual_agent\", \"survey\", \"csat\", \"none\" or a flow table expected")
            }
        }
        guard let flowType else { return PostSessionOutcome(name: "none", result: reason("not_configured")) }

        if current.optInRequired == true {
            var consented = optIn
            if consented == nil, let plugins,
                case .answered(let answer, let plugin, _) = await plugins.ask(.postSessionOptIn, argument: session, context: .table(context), reporting: failures)
            {
                if let flag = answer.boolValue {
                    consented = flag
                } else {
                    await plugins.recordError(plugin: plugin, hook: "post_session_opt_in", reporting: failures, "post_session_opt_in: true or false expected, got \(answer.typeName)")
                }
            }
            if consented == false { return PostSessionOutcome(name: "none", result: reason("opt_in_declined")) }
        }
        try await subject.start()
        try await subject.ready()
        switch flowType {
        case .virtualAgent:
            var result = LuaTable()
            result["virtual_agent_id"] = configured?.virtualAgentId.map { .string($0) } ?? .nil
            return PostSessionOutcome(name: "virtual_agent", result: .table(result))
        case .survey:
            return try await survey(subject, context: context)
        case .csat:
            return try await csat(subject, session: session, context: context)
        }
    }

    /// The signed-in end user: the profile the SDK holds, else the platform's; nil when
    /// neither can be had (the hooks still run).
    private func endUser() async -> EndUser? {
        guard let service = sdk.endUserService else { return nil }
        if let user = service.endUser { return user }
        return try? await service.fetch()
    }

    /// A `post_session` hook's answer as a flow: `.some(nil)` for `"none"`, nil when it
    /// does not fit.
    private func chosenFlow(_ answer: LuaValue) -> PostSessionFlowType?? {
        let name = answer.stringValue ?? answer.tableValue?["type"]?.stringValue
        if name == "none" { return .some(nil) }
        guard let type = name.flatMap(PostSessionFlowType.init(rawValue:)) else { return nil }
        return .some(type)
    }

    private func reason(_ reason: String, plugin: String? = nil) -> LuaValue {
        var table = LuaTable()
        table["reason"] = .string(reason)
        table["plugin"] = plugin.map { .string($0) } ?? .nil
        return .table(table)
    }

    /// The `survey` hook answers the survey; its answers are checked, then submitted.
    private func survey(_ subject: Subject, context: LuaTable) async throws -> PostSessionOutcome {
        guard let rate = sdk.rateService else { throw CCAIError.notInitialized("the SDK") }
        let survey = try await rate.getSurvey(communicationId: subject.id, communicationType: subject.communicationType.rawValue)
        var result = LuaTable()
        result["survey_id"] = survey.id.map { .integer(Int64($0)) } ?? .nil
        guard let plugins, case .answered(let answer, let plugin, _) = await plugins.ask(.survey, argument: try LuaEncoder().encode(survey),
                                                                                        context: .table(context), reporting: failures)
        else {
            logger.log(LogRecord(level: .warn, message: "post-session: no plugin answered the survey of \(subject.name); it waits, ready"))
            return PostSessionOutcome(name: "survey", result: .table(result))
        }
        var answers: [Int: String] = [:]
        for (key, value) in answer.tableValue?.entries ?? [] {
            guard let id = key.integerValue.map(Int.init) ?? key.stringValue.flatMap({ Int($0) }) else { continue }
            answers[id] = value.stringValue ?? value.description
        }
        let problems = answer.tableValue == nil ? ["a table { [question_id] = \"value\" } expected, got \(answer.typeName)"]
            : survey.problems(answers)
        guard problems.isEmpty else {
            await plugins.recordError(plugin: plugin, hook: "survey", reporting: failures, "survey: " + problems.joined(separator: "; "))
            result["error"] = .string(problems.joined(separator: "; "))
            result["plugin"] = .string(plugin)
            return PostSessionOutcome(name: "survey", result: .table(result))
        }
        try await rate.submitSurvey(communicationId: subject.id, communicationType: subject.communicationType.rawValue,
                                    answers: SurveyRequest(answers: answers))
        rate.clearRateTarget()
        var submitted = LuaTable()
        for (id, value) in answers { submitted[.integer(Int64(id))] = .string(value) }
        result["answers"] = .table(submitted)
        result["plugin"] = .string(plugin)
        return PostSessionOutcome(name: "survey", result: .table(result))
    }

    /// The `csat` hook gives `{ rating = 1..5, feedback? }`; it is checked, then submitted.
    private func csat(_ subject: Subject, session: LuaValue, context: LuaTable) async throws -> PostSessionOutcome {
        guard let rate = sdk.rateService else { throw CCAIError.notInitialized("the SDK") }
        guard let plugins, case .answered(let answer, let plugin, _) = await plugins.ask(.csat, argument: session, context: .table(context), reporting: failures)
        else {
            logger.log(LogRecord(level: .warn, message: "post-session: no plugin rated \(subject.name); it waits, ready"))
            return PostSessionOutcome(name: "csat", result: .table(LuaTable()))
        }
        let table = answer.tableValue
        let rating = table?["rating"]?.integerValue
        let request = RatingRequest(rating: rating.map(Int.init), feedback: table?["feedback"]?.stringValue)
        let problems = table == nil ? ["a table { rating = 1..5, feedback = \"...\" } expected, got \(answer.typeName)"] : request.problems
        var result = LuaTable()
        result["plugin"] = .string(plugin)
        guard problems.isEmpty, let rating else {
            await plugins.recordError(plugin: plugin, hook: "csat", reporting: failures, "csat: " + problems.joined(separator: "; "))
            result["error"] = .string(problems.joined(separator: "; "))
            return PostSessionOutcome(name: "csat", result: .table(result))
        }
        try await rate.rate(communicationId: subject.id, communicationType: subject.communicationType.rawValue, request: request)
        rate.clearRateTarget()
        result["rating"] = .integer(rating)
        result["feedback"] = request.feedback.map { .string($0) } ?? .nil
        return PostSessionOutcome(name: "csat", result: .table(result))
    }
}
