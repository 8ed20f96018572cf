import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime
import Timekeeping

/// `ccai.plugins`: `list()`, `evaluate_deflection(menu, { channel = "chat" })` and
/// `run_post_session(session, { opt_in })` (docs/plugins.md).
enum PluginBindings {
    static let rows: [Binding<Plugins>] = [
        Binding("list", "The plugins: name, version, file, state, errors, priority, hooks.", list,
                returns: [.named("ccai.PluginInfo[]")]),
        Binding("evaluate_deflection", "Asks the plugins where a customer of this queue goes; the SDK's default when none "
                + "answers.", evaluateDeflection, returns: [.named("ccai.DeflectionDecision")]),
        Binding("run_post_session", "Runs the post-session phase of the ended chat or call: the hierarchy's flow, post_session "
                + "hooks, opt-in, start/ready, then the survey, csat or virtual agent flow. Returns the flow that ran "
                + "(\"virtual_agent\", \"survey\", \"csat\") and what was submitted, or \"none\" and { reason }.", runPostSession,
                returns: [.model(String.self), .named("table")]),
    ]

    /// What the plugin functions work with: the host (none: no plugins), the SDK, the log
    /// and the clock of the run.
    struct Plugins {
        let host: PluginHost?
        let sdk: CCAI?
        let logger: ScriptLogger
        let clock: any TimeSource
        /// Where the hooks this state sets off report their failures.
        let failures: PluginFailures?
    }

    static func module(_ host: PluginHost?, sdk: CCAI?, logger: ScriptLogger = StreamLogger(minimumLevel: .warn),
                       clock: any TimeSource = SystemClock(), failures: PluginFailures? = nil) -> LuaModule {
        var module = LuaModule(name: "ccai.plugins")
        let plugins = Plugins(host: host, sdk: sdk, logger: logger, clock: clock, failures: failures)
        module.functions(rows) { _ in plugins }
        return module
    }

    static func list(_ plugins: Plugins, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        guard let host = plugins.host else { return call.returning(.array([])) }
        return try call.suspend { [.array(await host.list().map(\.luaValue))] }
    }

    static func evaluateDeflection(_ plugins: Plugins, _ request: DeflectionRequest, _ call: LuaCall) throws -> LuaReturn {
        let (menu, channel) = (request.menu, (request.channel ?? .chat).rawValue)
        return try call.suspend {
            let context = await deflectionContext(menu: menu, channel: channel, sdk: plugins.sdk, now: plugins.clock.now())
            guard let host = plugins.host else { return [DeflectionDecision.sdkDefault(for: menu, channel: channel).luaValue] }
            return [await host.evaluateDeflection(menu: menu, channel: channel, context: context, reporting: plugins.failures).luaValue]
        }
    }

    static func runPostSession(_ plugins: Plugins, _ request: PostSessionRequest, _ call: LuaCall) throws -> LuaReturn {
        let sdk = try SDKBindings.require(plugins.sdk, call)
        var runner = PostSessionRunner(sdk: sdk, plugins: plugins.host)
        runner.logger = plugins.logger
        runner.clock = plugins.clock
        runner.failures = plugins.failures
        let (id, optIn) = (request.session.id, request.optIn)
        let run: @Sendable () async throws -> PostSessionOutcome
        if request.session.isCall {
            let service = try SDKBindings.require(sdk.callService, call)
            guard let current = service.currentCall, current.id == id else {
                throw call.argumentError(1, "session", "call \(id) is not the current call (\(service.currentCall.map { String($0.id) } ?? "none"))")
            }
            run = { [runner] in try await runner.run(call: current, optIn: optIn) }
        } else {
            let service = try SDKBindings.require(sdk.chatService, call)
            guard let chat = service.currentChat, chat.id == id else {
                throw call.argumentError(1, "session", "chat \(id) is not the current chat (\(service.currentChat.map { String($0.id) } ?? "none"))")
            }
            run = { [runner] in try await runner.run(chat: chat, optIn: optIn) }
        }
        return try SDKBindings.sdk(call, run, push: { outcome, output in
            output.push(.string(outcome.name))
            output.push(outcome.result)
        })
    }

    /// The `ctx` of a `deflection` hook: the queue's deflection metadata, wait times,
    /// company, language, `now` and `now_local` (the company's time zone).
    static func deflectionContext(menu: QueueMenu, channel: String, sdk: CCAI?, now: Date) async -> LuaValue {
        var context = LuaTable()
        context["channel"] = .string(channel)
        let encoder = LuaEncoder()
        if let from = menu.deflectionFrom { context["deflection_from"] = try? encoder.encode(from) }
        if let redirection = menu.redirectionExtra { context["redirection_extra"] = try? encoder.encode(redirection) }
        let deflected = channel == "voice_call" ? menu.channels?.voiceCall?.deflected : menu.channels?.chat?.deflected
        context["deflected"] = .boolean(deflected ?? false)
        var timeZone = TimeZone.current
        if let company = try? await sdk?.companyService?.get() {
            context["company"] = try? encoder.encode(company)
            timeZone = TimeZone(identifier: company.timeZone) ?? timeZone
        }
        if let waits = try? await sdk?.queueMenuService?.getWaitTimes(menuId: menu.id) {
            context["wait_times"] = try? encoder.encode(waits)
        }
        context["language"] = .string(sdk?.languageService?.languageCode ?? "en")
        context["now"] = .number(now.timeIntervalSince1970)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: now)
        context["now_local"] = [
            "year": .integer(Int64(parts.year ?? 0)), "month": .integer(Int64(parts.month ?? 0)),
            "day": .integer(Int64(parts.day ?? 0)), "hour": .integer(Int64(parts.hour ?? 0)),
            "min": .integer(Int64(parts.minute ?? 0)), "sec": .integer(Int64(parts.second ?? 0)),
            "wday": .integer(Int64(parts.weekday ?? 0)), "time_zone": .string(timeZone.identifier),
        ]
        return .table(context)
    }
}

/// `evaluate_deflection(menu, { channel = "chat" })`: a queue menu as `ccai.queue_menu.get`
/// returned it, and the channel the customer asks for.
struct DeflectionRequest: BindingArguments {
    static let layout = ArgumentLayout.leading("menu", options: "options")
    var menu: QueueMenu
    var channel: DeflectionChannel?

    /// The channels a deflection hook is asked about.
    enum DeflectionChannel: String, Decodable, CaseIterable {
        case chat
        case voiceCall = "voice_call"
        case email
    }
}

/// `run_post_session(session, { opt_in })`: the ended chat or call (its table: its id, and
/// `recorded`, which a call has and a chat has not).
struct PostSessionRequest: BindingArguments {
    static let layout = ArgumentLayout.leading("session", options: "options")
    var session: EndedSession
    var optIn: Bool?

    struct EndedSession: Decodable {
        var id: Int
        var recorded: Bool?

        var isCall: Bool { recorded != nil }
    }

    static func shape(in schema: LuaSchema) throws -> LuaShape {
        let chat = ReturnType.model(ChatResponse.self).luaType, call = ReturnType.model(CallResponse.self).luaType
        return .object([.init(name: "session", shape: .union([.named(chat), .named(call)]), isOptional: false),
                 .init(name: "opt_in", shape: .boolean, isOptional: true)])
    }
}
