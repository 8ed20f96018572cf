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
    static let rows: [Binding<ChatService>] = [
        Binding("escalate_to_human_agent", "Leaves the virtual agent for a human agent.", escalateToHumanAgent),
        Binding("escalate", "Escalates from the virtual agent with the option the end user picked.", escalate),
        Binding("update_escalation", "Commits an option to an escalation under way.", updateEscalation),
    ]

    static func install(into chat: inout LuaModule, _ ccai: CCAI) {
        chat.functions(rows) { try ChatBindings.requireChat(ccai, $0) }
    }

    static func escalateToHumanAgent(_ service: ChatService, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call, { try await service.escalateToHumanAgent() }, push: { _, _ in })
    }

    static func escalate(_ service: ChatService, _ option: ChatEscalationOption, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call, { try await service.escalate(option: option) }, push: { _, _ in })
    }

    static func updateEscalation(_ service: ChatService, _ option: ChatEscalationOption, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call, { try await service.updateEscalation(option: option) }, push: { _, _ in })
    }
}

/// `{ escalation_id = 123, deflection_channel = "email" }`.
extension ChatEscalationOption: BindingArguments {
    static var layout: ArgumentLayout { .table("option") }
}
