import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime
import Timekeeping

/// `ccai.plugins`: `list()`, `evaluate_deflection(menu, { channel = "chat" })` and
/// `run_post_session(session, { opt_in })` (docs/plugins.md).
enum PluginBindings {
    static func module(_ host: PluginHost?, sdk: CCAI?, logger: ScriptLogger = StreamLogger(minimumLevel: .warn),
                       clock: any Clock = SystemClock()) -> LuaModule {
        var module = LuaModule(name: "ccai.plugins")
        module.function("list", LuaSignature("The plugins: name, version, file, state, errors, priority, hooks.",
                                             returns: ["ccai.PluginInfo[]"])) { call in
            guard let host else { return call.returning(.array([])) }
            return try call.suspend { [.array(await host.list().map(\.luaValue))] }
        }
        module.function("evaluate_deflection", LuaSignature("Asks the plugins where a customer of this queue goes; the SDK's default when none answers.",
                                                            parameters: ["menu: ccai.QueueMenu", "options?: { channel: string? }"],
                                                            returns: ["ccai.DeflectionDecision"])) { call in
            let menu: QueueMenu
            do {
                menu = try LuaDecoder().decode(QueueMenu.self, from: .table(try call.table(1, "menu")))
            } catch let error as DecodingError {
                throw call.argumentError(1, "menu", "a queue menu expected (\(SDKBindings.describe(error)))")
            }
            let channel = try call.options(2, "options").string("channel") ?? "chat"
            guard ["chat", "voice_call", "email"].contains(channel) else {
                throw call.argumentError(2, "options", "field 'channel': 'chat', 'voice_call' or 'email' expected, got '\(channel)'")
            }
            return try call.suspend {
                let context = await deflectionContext(menu: menu, channel: channel, sdk: sdk, now: clock.now())
                guard let host else { return [DeflectionDecision.sdkDefault(for: menu, channel: channel).luaValue] }
                return [await host.evaluateDeflection(menu: menu, channel: channel, context: context).luaValue]
            }
        }
        module.function("run_post_session", LuaSignature(
            "Runs the post-session phase of the ended chat or call: the hierarchy's flow, post_session hooks, opt-in, start/ready, then the survey, csat or virtual agent flow. Returns the flow that ran (\"virtual_agent\", \"survey\", \"csat\") and what was submitted, or \"none\" and { reason }.",
            parameters: ["session: ccai.Chat|ccai.Call", "options?: { opt_in: boolean? }"], returns: ["string", "table"])) { call in
            let given = try call.options(1, "session")
            guard let id = try given.integer("id") else {
                throw call.argumentError(1, "session", "the chat or call (a table with its id) expected")
            }
            let isCall = !(try given.value("recorded")).isNil   // a call's table has it, a chat's has not
            let optIn = try call.options(2, "options").boolean("opt_in")
            let sdk = try SDKBindings.require(sdk, call)
            var runner = PostSessionRunner(sdk: sdk, plugins: host)
            runner.logger = logger
            runner.clock = clock
            let run: @Sendable () async throws -> PostSessionOutcome
            if isCall {
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
        return module
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
