import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// The escalation methods of `ccai.chat`: leaving a virtual agent for a human, with or
/// without the option the end user picked.
///
/// ```lua
/// ccai.chat.escalate{ escalation_id = 123, deflection_channel = "email" }
/// ```
enum EscalationBindings {
    static func install(into chat: inout LuaModule, _ ccai: CCAI) {
        chat.function("escalate_to_human_agent", LuaSignature("Leaves the virtual agent for a human agent.")) { call in
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.escalateToHumanAgent() },
                                       push: { _, _ in })
        }
        chat.function("escalate", LuaSignature("Escalates from the virtual agent with the option the end user picked.",
                                               parameters: ["option: { escalation_id: integer, deflection_channel: string? }"])) { call in
            let option = try escalationOption(call)
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.escalate(option: option) }, push: { _, _ in })
        }
        chat.function("update_escalation", LuaSignature("Commits an option to an escalation under way.",
                                                        parameters: ["option: { escalation_id: integer, deflection_channel: string? }"])) { call in
            let option = try escalationOption(call)
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.updateEscalation(option: option) },
                                       push: { _, _ in })
        }
    }

    /// `{ escalation_id = 123, deflection_channel = "email" }` as a `ChatEscalationOption`.
    private static func escalationOption(_ call: LuaCall) throws -> ChatEscalationOption {
        guard !call.isNil(1) else { throw call.argumentError(1, "option", "a table { escalation_id = ... } expected") }
        let options = try call.checkedOptions(1, "option", known: ["escalation_id", "deflection_channel"])
        guard let id = try options.integer("escalation_id") else {
            throw call.argumentError(1, "option.escalation_id", "an integer expected")
        }
        return ChatEscalationOption(escalationId: Int(id), deflectionChannel: try options.string("deflection_channel"))
    }
}
