import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// `ccai.push` (seed 004's `pushNotificationService`), `ccai.handle_voip_push` and the
/// app's place in the foreground (`ccai.set_in_background`): the device's tokens, the
/// pushes it receives (the `push` event, once a token is registered), and the pushes a
/// script hands over as the app does the OS's. The sandbox records what it sends (`GET
/// /admin/pushes`).
///
/// ```lua
/// ccai.push.update_push_token{ data = "voip-token-bytes", type = "voip" }
/// ccai.push.on("push", function(push)
///   if push.type == "voip" then ccai.handle_voip_push(push.payload) else ccai.push.handle_push_notification(push.payload) end
/// end)
/// ```
enum PushBindings {
    /// The event the device's pushes come as.
    static let pushEvent = "push"

    static let rows: [Binding<Device>] = [
        Binding("register_for_push_notifications", "Asks for permission to notify: there is no OS prompt here, so it answers true.",
                registerForPushNotifications, returns: [.model(Bool.self)]),
        Binding("update_push_token", "Registers the device's token of a type with the platform (data: its bytes), or clears it "
                + "(data = nil).", updatePushToken),
        Binding("handle_push_notification", "Hands over a notification the device received: true when it is the platform's "
                + "(its ccai part), handled as its kind (an incoming call becomes ccai.call's incoming_call_event); false for "
                + "any other payload.", handlePushNotification, returns: [.model(Bool.self)]),
    ]

    /// What the push functions work with: the service, and the state's `push` event, forwarded
    /// from the first token on.
    struct Device {
        let service: PushNotificationService
        let context: SDKContext
        let bridge: EventBridge.Started
    }

    static func module(_ context: SDKContext) -> LuaModule {
        let bridge = EventBridge.Started()
        var module = LuaModule(name: "ccai.push")
        module.functions(rows) { call in
            Device(service: try SDKBindings.require(context.sdk.pushNotificationService, call), context: context, bridge: bridge)
        }
        if let events = context.emitters[.push] { module.events(events) }
        return module
    }

    static func registerForPushNotifications(_ device: Device, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = device.service
        return try SDKBindings.sdk(call, { await service.registerForPushNotifications() }, push: { granted, output in
            output.push(.boolean(granted))
        })
    }

    static func updatePushToken(_ device: Device, _ token: PushTokenUpdate, _ call: LuaCall) throws -> LuaReturn {
        let service = device.service
        if !device.bridge.started, let emitter = device.context.emitters[.push], let state = call.context.state {
            device.bridge.started = true
            EventBridge.forward(service.receivedPushes(), into: emitter, in: state) { push in
                (pushEvent, luaValue(push))
            }
        }
        return try SDKBindings.sdk(call, { try await service.updatePushToken(data: token.data, type: token.type) }, push: { _, _ in })
    }

    static func handlePushNotification(_ device: Device, _ payload: ReceivedPayloadArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = device.service
        return try SDKBindings.sdk(call, { await service.handlePushNotification(payload.value) }, push: { handled, output in
            output.push(.boolean(handled))
        })
    }

    /// A push as scripts see it: `{ type = "apns"|"voip", payload = { ccai = { kind, chat_id?,
    /// call_id?, alert? }, aps = { alert }? } }`.
    static func luaValue(_ push: ReceivedPush) -> LuaValue {
        var table = LuaTable()
        table["type"] = .string(push.type.rawValue)
        table["payload"] = (try? LuaEncoder().encode(push.payload)) ?? .nil
        return .table(table)
    }

    /// `ccai.set_in_background(b)`, `ccai.is_in_background()` and `ccai.handle_voip_push(payload)`:
    /// the app's lifecycle, which the SDK watches on a phone (``CCAI/isInBackground``), and
    /// PushKit's payloads, handed over.
    static let appRows: [Binding<CCAI>] = [
        Binding("set_in_background", "Puts the app in the background (true: its event stream closes, and once this returns an "
                + "agent's message comes as a push) or back in the foreground (false: it reconnects from the last event it had; "
                + "nothing is missed).", setInBackground),
        Binding("is_in_background", "Whether the app is in the background (ccai.set_in_background).", isInBackground,
                returns: [.model(Bool.self)]),
        Binding("handle_voip_push", "Hands over a VoIP push the device received: true when it is the platform's callback of a "
                + "scheduled call, told as ccai.call's incoming_call_event; false for any other payload.", handleVoIPPush,
                returns: [.model(Bool.self)]),
    ]

    static func install(app ccai: CCAI, into module: inout LuaModule) {
        module.functions(appRows) { _ in ccai }
    }

    static func setInBackground(_ ccai: CCAI, _ argument: BackgroundArgument, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call, { await ccai.setInBackground(argument.value) }, push: { _, _ in })
    }

    static func isInBackground(_ ccai: CCAI, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        call.returning(.boolean(ccai.isInBackground))
    }

    static func handleVoIPPush(_ ccai: CCAI, _ payload: ReceivedPayloadArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = try SDKBindings.require(ccai.pushNotificationService, call)
        return try SDKBindings.sdk(call, { await service.handlePushNotification(payload.value) }, push: { handled, output in
            output.push(.boolean(handled))
        })
    }
}

/// `ccai.push.update_push_token{ data = token bytes or nil, type = "apns"|"voip" }`: a
/// misspelt field is refused, never read as `data = nil` (which clears the token).
struct PushTokenUpdate: BindingArguments {
    static let layout = ArgumentLayout.table("options")
    var data: Data?
    var type: PushTokenType
}

/// A push's payload, as the device received it: a table of data.
struct ReceivedPayloadArgument: ValueArgument {
    static let name = "payload"
    var value: [String: JSONValue]
}

/// `ccai.set_in_background(true)`.
struct BackgroundArgument: ValueArgument {
    static let name = "in_background"
    var value: Bool
}
