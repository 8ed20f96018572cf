import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// `ccai.push` (seed 004's `pushNotificationService`) and `ccai.handle_voip_push`: the
/// device's tokens, and the pushes a script hands over as the app does the OS's. The
/// sandbox records what it sends (`GET /admin/pushes`).
///
/// ```lua
/// ccai.push.update_push_token{ data = "voip-token-bytes", type = "voip" }
/// local handled = ccai.handle_voip_push({ ccai = { kind = "incoming_call", call_id = 12 } })
/// ```
enum PushBindings {
    static func module(_ ccai: CCAI) -> LuaModule {
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
            guard let name = try options.string("type"), let type = PushTokenType(rawValue: name) else {
                throw call.argumentError(1, "options", "field 'type': " + PushTokenType.allCases.map { "'\($0.rawValue)'" }.joined(separator: " or ")
                                         + " expected")
            }
            let data = try options.data("data")
            let service = try SDKBindings.require(ccai.pushNotificationService, call)
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
        return module
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
