import CCAIKit
import CCAIWire

/// The services of the `ccai` module that have events, said once: the script runner makes
/// one emitter for each (``SDKContext/emitters``), their bindings give it `on` and
/// `wait_for`, and the stubs and the reference list their events (``EventPayloads``). A
/// new service with events is a case here.
///
/// ```swift
/// for service in EventService.allCases { context.emitters[service] = lua.makeEmitter(name: service.module, events: service.eventNames) }
/// ```
public enum EventService: String, CaseIterable, Sendable {
    case chat
    case smartAction = "smart_action"
    case screenShare = "screen_share"
    case call
    case push
    case apps

    /// The Lua module: `ccai.chat`.
    public var module: String { "ccai." + rawValue }

    /// The events scripts can subscribe to.
    public var eventNames: Set<String> {
        switch self {
        case .chat: Set(ChatServiceEvent.Name.allCases.map(\.rawValue))
        case .smartAction: ["requested"]
        case .screenShare: ["state", "request"]
        case .call: Set(CallServiceEvent.Name.allCases.map(\.rawValue))
        case .push: [PushBindings.pushEvent]
        case .apps: Set(WebhookEventName.allCases.map(\.rawValue))
        }
    }
}
