import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// `ccai.initialize_screen_share{ key, domain }` and `ccai.screen_share` (seed 002's
/// `screenShareService`) with its `state` and `request` events. `end` is a Lua keyword,
/// so `end()` is also `end_session()`.
///
/// ```lua
/// ccai.screen_share.on("state", function(state)
///   if state == "authorizing" then ccai.screen_share.activate{ accepted = true } end
/// end)
/// local session = ccai.screen_share.create{ communication_id = chat.id, communication_type = "chat", initiated_from = "agent" }
/// ccai.chat.send_message{ screen_share = { event = "screen_share_code_generated", response = session } }
/// ```
enum ScreenShareBindings {
    /// `initialize_screen_share`: registers the service and starts its bridge, which emits
    /// the service's `states()` (the current session's) as `state` and its `requests()`
    /// as `request`.
    static func initializeFunction(_ context: SDKContext) -> LuaFunctionBody {
        let ccai = context.sdk
        let bridge = EventBridge.Started()
        return { call in
            let options = try call.checkedOptions(1, "options", known: ["key", "domain"])
            guard let key = try options.string("key") ?? ccai.options?.key, !key.isEmpty else {
                throw call.argumentError(1, "options.key", "the screen share key expected")
            }
            do {
                try ccai.initializeScreenShare(options: ScreenShareOptions(key: key, domain: try options.string("domain")))
            } catch let error as any SDKError {
                throw SDKBindings.luaError(error, service: "screen_share", method: "initialize_screen_share")
            }
            if !bridge.started, let service = ccai.screenShareService, let emitter = context.emitters[.screenShare],
                let state = call.context.state
            {
                bridge.started = true
                EventBridge.forward(service.states(), into: emitter, in: state) { ("state", .string($0.rawValue)) }
                EventBridge.forward(service.requests(), into: emitter, in: state) { ("request", .string($0.rawValue)) }
            }
            return .none
        }
    }

    static func module(_ context: SDKContext) -> LuaModule {
        let ccai = context.sdk
        var module = LuaModule(name: EventService.screenShare.module)
        if let events = context.emitters[.screenShare] { module.events(events) }
        module.function("create", LuaSignature("Creates a session for a screen-shareable chat (pending, with the code the agent joins with).",
                                               parameters: ["request: { communication_id: integer?, communication_type: \"chat\"?, initiated_from: \"agent\"|\"end_user\" }"],
                                               returns: ["table"])) { call in
            let service = try service(ccai, call)
            let argument = call.isNil(1) ? LuaTable() : try call.table(1, "request")
            let request = argument["request"]?.tableValue ?? argument
            let given = request["communication_id"] ?? .nil
            guard given.isNil || given.integerValue != nil else {
                throw call.argumentError(1, "request.communication_id", "an integer expected, got \(given.typeName)")
            }
            guard let id = given.integerValue.map(Int.init) ?? ccai.chatService?.currentChat?.id else {
                throw call.argumentError(1, "request.communication_id", "a chat id expected (there is no current chat)")
            }
            let initiator = request["initiated_from"]?.stringValue ?? "end_user"
            guard let initiatedFrom = ScreenShareInitiator(rawValue: initiator) else {
                throw call.argumentError(1, "request.initiated_from", "'agent' or 'end_user' expected, got '\(initiator)'")
            }
            let type = request["communication_type"]?.stringValue ?? "chat"
            guard let communicationType = CommunicationRouter.CommunicationType(rawValue: type) else {
                throw call.argumentError(1, "request.communication_type", "'chat' or 'call' expected, got '\(type)'")
            }
            let screenShare = ScreenShareRequest(communicationId: id, communicationType: communicationType, initiatedFrom: initiatedFrom)
            return try SDKBindings.sdk(call) { try await service.create(request: screenShare) }
        }
        module.function("activate", LuaSignature("Starts (accepted, the default) or declines the session the agent joined.",
                                                 parameters: ["options?: { accepted: boolean? }|boolean"], returns: ["table"])) { call in
            let positional: Bool? = (try? call.optionalBoolean(1, "accepted")) ?? nil
            let accepted = try positional ?? call.options(1, "options").boolean("accepted") ?? true
            let service = try service(ccai, call)
            return try SDKBindings.sdk(call) { try await service.activate(accepted: accepted) }
        }
        module.function("enable_remote_control", LuaSignature("Answers the agent's remote-control request.",
                                                              parameters: ["enabled: boolean"], returns: ["table"])) { call in
            let enabled = try call.boolean(1, "enabled")
            let service = try service(ccai, call)
            return try SDKBindings.sdk(call) { try await service.enableRemoteControl(enabled) }
        }
        module.function("enable_full_device_sharing", LuaSignature("Lets the agent see the whole device rather than the app.",
                                                                   parameters: ["enabled: boolean"], returns: ["table"])) { call in
            let enabled = try call.boolean(1, "enabled")
            let service = try service(ccai, call)
            return try SDKBindings.sdk(call) { try await service.enableFullDeviceSharing(enabled) }
        }
        let end: LuaFunctionBody = { call in
            let service = try service(ccai, call)
            return try SDKBindings.sdk(call) { try await service.end() }
        }
        module.function("end", LuaSignature("Ends the session.", returns: ["table"]), end)
        module.function("end_session", LuaSignature("Ends the session (end is a Lua keyword: ccai.screen_share[\"end\"]()).",
                                                    returns: ["table"]), end)
        module.function("clear", LuaSignature("Forgets the session; the state is none again.")) { call in
            try service(ccai, call).clear()
            return .none
        }
        module.function("update_options", LuaSignature("Replaces the options (key, domain).",
                                                       parameters: ["options: { key: string, domain: string? }"])) { call in
            let options = try call.checkedOptions(1, "options", known: ["key", "domain"])
            guard let key = try options.string("key"), !key.isEmpty else { throw call.argumentError(1, "options.key", "a key expected") }
            let service = try service(ccai, call)
            service.updateOptions(ScreenShareOptions(key: key, domain: try options.string("domain")))
            return .none
        }
        module.function("get_state", LuaSignature("The current session's state: none, pending, authorizing, active or ended.",
                                                  returns: ["string"])) { call in
            let service = try service(ccai, call)
            return call.returning(.string(service.state.rawValue))
        }
        module.function("get_current_session", LuaSignature("The session the service works on, if any.", returns: ["table?"])) { call in
            let service = try service(ccai, call)
            return call.returning(try service.currentSession.map { try LuaEncoder().encode($0) } ?? .nil)
        }
        return module
    }

    /// The screen share service, or `not_initialized` as the seed's
    /// `ScreenShareError.serviceNotAvailable` says it.
    private static func service(_ ccai: CCAI, _ call: LuaCall) throws -> ScreenShareService {
        guard let service = ccai.screenShareService else {
            let (_, method) = SDKBindings.serviceAndMethod(of: call)
            throw LuaErrorValue(code: ScreenShareError.serviceNotAvailable.code.rawValue,
                                message: "screen sharing is not initialized: call ccai.initialize_screen_share() first",
                                fields: ["service": "screen_share", "method": .string(method)])
        }
        return service
    }
}
