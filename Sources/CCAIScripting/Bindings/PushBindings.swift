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

    static func module(_ context: SDKContext) -> LuaModule {
        let ccai = context.sdk
        let bridge = EventBridge.Started()
        var module = LuaModule(name: "ccai.push")
        module.function("register_for_push_notifications", LuaSignature(
            "Asks for permission to notify: there is no OS prompt here, so it answers true.", returns: ["boolean"])) { call in
            let service = try SDKBindings.require(ccai.pushNotificationService, call)
            return try SDKBindings.sdk(call, { await service.registerForPushNotifications() }, push: { granted, output in
                output.push(.boolean(granted))
            })
        }
        module.function("update_push_token", LuaSignature(
            "Registers the device's token of a type with the platform (data: its bytes), or clears it (data = nil).",
            parameters: ["options: { data: string?, type: \"apns\"|\"voip\" }"])) { call in
            let options = try call.options(1, "options")
            // A misspelt field must not read as `data = nil`, which clears the token.
            if let unknown = options.unknownFields(known: ["data", "type"]).first {
                throw call.argumentError(1, "options", "unknown field '\(unknown)'" + Suggestion.didYouMean(unknown, among: ["data", "type"])
                                         + ": { data = token bytes or nil, type = 'apns' or 'voip' } expected")
            }
            let name = try options.string("type")
            guard let name, let type = PushTokenType(rawValue: name) else {
                throw call.argumentError(1, "options", "field 'type': " + PushTokenType.allCases.map { "'\($0.rawValue)'" }.joined(separator: " or ")
                                         + " expected, got " + (name.map { "'\(TerminalText.escaped(String($0.prefix(40))))'" } ?? "nil"))
            }
            let data = try options.data("data")
            let service = try SDKBindings.require(ccai.pushNotificationService, call)
            if !bridge.started, let emitter = context.emitters[.push], let state = call.context.state {
                bridge.started = true
                EventBridge.forward(service.receivedPushes(), into: emitter, in: state) { push in
                    (pushEvent, luaValue(push))
                }
            }
            return try SDKBindings.sdk(call, { try await service.updatePushToken(data: data, type: type) }, push: { _, _ in })
        }
        module.function("handle_push_notification", LuaSignature(
            "Hands over a notification the device received: true when it is the platform's (its ccai part), handled as its "
                + "kind (an incoming call becomes ccai.call's incoming_call_event); false for any other payload.",
            parameters: ["payload: table"], returns: ["boolean"])) { call in
            let payload = try payload(call)
            let service = try SDKBindings.require(ccai.pushNotificationService, call)
            return try SDKBindings.sdk(call, { await service.handlePushNotification(payload) }, push: { handled, output in
                output.push(.boolean(handled))
            })
        }
        if let events = context.emitters[.push] { module.events(events) }
        return module
    }

    /// A push as scripts see it: `{ type = "apns"|"voip", payload = { ccai = { kind, chat_id?,
    /// call_id?, alert? }, aps = { alert }? } }`.
    static func luaValue(_ push: ReceivedPush) -> LuaValue {
        var table = LuaTable()
        table["type"] = .string(push.type.rawValue)
        table["payload"] = (try? LuaEncoder().encode(push.payload)) ?? .nil
        return .table(table)
    }

    /// `ccai.set_in_background(b)` and `ccai.is_in_background()`: the app's lifecycle,
    /// which the SDK watches on a phone (``CCAI/isInBackground``).
    static func install(background ccai: CCAI, into module: inout LuaModule) {
        module.function("set_in_background", LuaSignature(
            "Puts the app in the background (true: its event stream closes, and once this returns an agent's message comes as "
                + "a push) or back in the foreground (false: it reconnects from the last event it had; nothing is missed).",
            parameters: ["in_background: boolean"])) { call in
            let inBackground = try call.boolean(1, "in_background")
            return try SDKBindings.sdk(call, { await ccai.setInBackground(inBackground) }, push: { _, _ in })
        }
        module.function("is_in_background", LuaSignature("Whether the app is in the background (ccai.set_in_background).",
                                                         returns: ["boolean"])) { call in
            call.returning(.boolean(ccai.isInBackground))
        }
    }

    /// `ccai.handle_voip_push(payload)`: PushKit's payload, handed over; true when it was
    /// the platform's callback.
    static func handleVoIPPush(_ ccai: CCAI) -> (LuaSignature, LuaFunctionBody) {
        (LuaSignature("Hands over a VoIP push the device received: true when it is the platform's callback of a scheduled "
                      + "call, told as ccai.call's incoming_call_event; false for any other payload.",
                      parameters: ["payload: table"], returns: ["boolean"]), { call in
            let payload = try payload(call)
            let service = try SDKBindings.require(ccai.pushNotificationService, call)
            return try SDKBindings.sdk(call, { await service.handlePushNotification(payload) }, push: { handled, output in
                output.push(.boolean(handled))
            })
        })
    }

    private static func payload(_ call: LuaCall) throws -> [String: JSONValue] {
        do {
            return try LuaDecoder().decode([String: JSONValue].self, from: .table(try call.table(1, "payload")))
        } catch let error as DecodingError {
            throw call.argumentError(1, "payload", "a table of data expected (\(SDKBindings.describe(error)))")
        }
    }
}
