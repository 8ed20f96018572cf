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
    /// Emits the service's `states()` (the current session's) as `state` and its
    /// `requests()` as `request`, until the state closes.
    static func startBridges(_ service: ScreenShareService, context: SDKContext, in state: LuaState) {
        guard let emitter = context.emitters[.screenShare] else { return }
        EventBridge.forward(service.states(), into: emitter, in: state) { ("state", .string($0.rawValue)) }
        EventBridge.forward(service.requests(), into: emitter, in: state) { ("request", .string($0.rawValue)) }
    }

    static let rows: [Binding<Screen>] = [
        Binding("create", "Creates a session for a screen-shareable chat (pending, with the code the agent joins with).", create,
                returns: [.model(ScreenShareResponse.self)]),
        Binding("activate", "Starts (accepted, the default) or declines the session the agent joined.", activate,
                returns: [.model(ScreenShareResponse.self)]),
        Binding("enable_remote_control", "Answers the agent's remote-control request.", enableRemoteControl,
                returns: [.model(ScreenShareResponse.self)]),
        Binding("enable_full_device_sharing", "Lets the agent see the whole device rather than the app.", enableFullDeviceSharing,
                returns: [.model(ScreenShareResponse.self)]),
        Binding("end", "Ends the session.", end, returns: [.model(ScreenShareResponse.self)]),
        Binding("end_session", "Ends the session (end is a Lua keyword: ccai.screen_share[\"end\"]()).", end,
                returns: [.model(ScreenShareResponse.self)]),
        Binding("clear", "Forgets the session; the state is none again.", clear),
        Binding("update_options", "Replaces the options (key, domain).", updateOptions),
        Binding("get_state", "The current session's state: none, pending, authorizing, active or ended.", getState,
                returns: [.model(ScreenShareServiceState.self)]),
        Binding("get_current_session", "The session the service works on, if any.", getCurrentSession,
                returns: [.model(ScreenShareResponse.self, optional: true)]),
    ]

    /// What the screen share functions work with: the service, and the SDK for the current chat.
    struct Screen {
        let service: ScreenShareService
        let ccai: CCAI
    }

    static func module(_ context: SDKContext) -> LuaModule {
        let ccai = context.sdk
        var module = LuaModule(name: EventService.screenShare.module)
        if let events = context.emitters[.screenShare] { module.events(events) }
        module.functions(rows) { Screen(service: try service(ccai, $0), ccai: ccai) }
        return module
    }

    static func create(_ screen: Screen, _ request: ScreenShareCreation, _ call: LuaCall) throws -> LuaReturn {
        guard let id = request.communicationId ?? screen.ccai.chatService?.currentChat?.id else {
            throw call.argumentError(1, "request.communication_id", "a chat id expected (there is no current chat)")
        }
        let screenShare = ScreenShareRequest(communicationId: id, communicationType: request.communicationType ?? .chat,
                                             initiatedFrom: request.initiatedFrom ?? .endUser)
        let service = screen.service
        return try SDKBindings.sdk(call) { try await service.create(request: screenShare) }
    }

    static func activate(_ screen: Screen, _ options: Activation, _ call: LuaCall) throws -> LuaReturn {
        let service = screen.service
        return try SDKBindings.sdk(call) { try await service.activate(accepted: options.accepted ?? true) }
    }

    static func enableRemoteControl(_ screen: Screen, _ argument: EnabledArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = screen.service
        return try SDKBindings.sdk(call) { try await service.enableRemoteControl(argument.value) }
    }

    static func enableFullDeviceSharing(_ screen: Screen, _ argument: EnabledArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = screen.service
        return try SDKBindings.sdk(call) { try await service.enableFullDeviceSharing(argument.value) }
    }

    static func end(_ screen: Screen, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = screen.service
        return try SDKBindings.sdk(call) { try await service.end() }
    }

    static func clear(_ screen: Screen, _: NoArguments, _: LuaCall) throws -> LuaReturn {
        screen.service.clear()
        return .none
    }

    static func updateOptions(_ screen: Screen, _ options: ScreenShareKey, _ call: LuaCall) throws -> LuaReturn {
        screen.service.updateOptions(ScreenShareOptions(key: options.key, domain: options.domain))
        return .none
    }

    static func getState(_ screen: Screen, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        call.returning(.string(screen.service.state.rawValue))
    }

    static func getCurrentSession(_ screen: Screen, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        call.returning(try screen.service.currentSession.map { try LuaEncoder().encode($0) } ?? .nil)
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

/// `ccai.screen_share.create{ communication_id, communication_type, initiated_from }`: the
/// current chat, by the end user, unless said.
struct ScreenShareCreation: BindingArguments {
    static let layout = ArgumentLayout.table("request")
    var communicationId: Int?
    var communicationType: CommunicationRouter.CommunicationType?
    var initiatedFrom: ScreenShareInitiator?
}

/// `ccai.screen_share.activate{ accepted = false }`, or the flag alone.
struct Activation: BindingArguments {
    static let layout = ArgumentLayout.positional("options", field: "accepted")
    var accepted: Bool?
}

/// `enable_remote_control(true)`, `enable_full_device_sharing(false)`.
struct EnabledArgument: ValueArgument {
    static let name = "enabled"
    var value: Bool
}

/// `ccai.screen_share.update_options{ key, domain }`: a key, not empty.
struct ScreenShareKey: BindingArguments {
    static let layout = ArgumentLayout.table("options")
    var key: String
    var domain: String?

    func problem() -> ArgumentProblem? { key.isEmpty ? ArgumentProblem("key", "a key expected") : nil }
}
