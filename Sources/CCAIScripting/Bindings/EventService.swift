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

    /// The events scripts can subscribe to: one set per service for the whole process,
    /// which every state's emitter shares.
    public var eventNames: Set<String> {
        switch self {
        case .chat: Self.chatEvents
        case .smartAction: Self.smartActionEvents
        case .screenShare: Self.screenShareEvents
        case .call: Self.callEvents
        case .push: Self.pushEvents
        case .apps: Self.appsEvents
        }
    }

    private static let chatEvents = Set(ChatServiceEvent.Name.allCases.map(\.rawValue))
    private static let smartActionEvents: Set = ["requested"]
    private static let screenShareEvents: Set = ["state", "request"]
    private static let pushEvents: Set = [PushBindings.pushEvent]
    private static let callEvents = Set(CallServiceEvent.Name.allCases.map(\.rawValue))
    private static let appsEvents = Set(WebhookEventName.allCases.map(\.rawValue))
}
