import CCAIKit
import CCAIWire
import LuaRuntime

/// What each event a script can wait for carries (``EventBridge`` makes the values), as
/// shapes found from the models where a model is sent and written here where the bridge
/// makes the value itself: the stubs' `on`/`wait_for` overloads and the reference's events
/// page are made from this one list.
///
/// ```swift
/// for event in try EventPayloads.all() { print(event.module, event.name, event.payload.luaType) }
/// ```
enum EventPayloads {
    struct Event {
        /// The emitter's module: `ccai.chat`.
        var module: String
        var name: String
        var payload: LuaShape
        /// What it means, from the seeds.
        var meaning: String
    }

    /// Every event, by module then in the order of its module's list.
    static func all() throws -> [Event] {
        let schema = ResultClasses.schema
        func model<Model: Decodable>(_ type: Model.Type) throws -> LuaShape {
            if let name = schema.classNames[ObjectIdentifier(type)] { return .named(name) }
            return try schema.shape(of: type)
        }
        let chat: [(ChatServiceEvent.Name, LuaShape, String)] = [
            (.messagesReceived, .list(try model(ChatMessage.self)),
             "incoming messages, from agents, virtual agents and the system (seed 000); the end user's own are what send_message returns"),
            (.typingEvent, .literals(["started", "ended"]), "an agent started or stopped typing"),
            (.memberEvent, .object([.init(name: "type", shape: .literals(["joined", "left"]), isOptional: false),
                                    .init(name: "identity", shape: .string, isOptional: true)]),
             "a member joined or left the chat (transfers and disconnects included); identity is the member's name"),
            (.stateChanged, .union([.literals(["connecting", "connected", "disconnected"]),
                                    .object([.init(name: "type", shape: .literals(["error"]), isOptional: false),
                                             .init(name: "message", shape: .string, isOptional: false)])]),
             "the chat provider's connection to the platform (not the chat's status); a new subscriber gets the current state first"),
            (.chatReceived, .union([try model(ChatResponse.self), .named("nil")]),
             "the chat changed: status, agent, post-session; nil when there is no chat"),
            (.coldTransfer, try model(ColdTransfer.self), "an agent transferred the chat to another queue"),
            (.networkConnectivityChanged, .boolean, "the event stream was lost (false) or is back (true)"),
        ]
        var events = chat.map { Event(module: EventService.chat.module, name: $0.0.rawValue, payload: $0.1, meaning: $0.2) }
        let call: [(CallServiceEvent.Name, LuaShape, String)] = [
            (.stateChanged, events.first { $0.name == ChatServiceEvent.Name.stateChanged.rawValue }?.payload ?? .string,
             "the call provider's line (connecting, connected: the device is on the line, waiting or talking; disconnected when "
                + "the call is over): not the call's status; a new subscriber gets the current state first"),
            (.callReceived, try model(CallResponse.self),
             "the call changed on the platform: status (scheduled, ringing, waiting, connecting, connected, on_hold, interrupted, ended, failed), agent, estimate"),
            (.waitTimeUpdated, try model(CallWaitTimePayload.self), "the platform's new estimate of the waiting call's wait"),
            (.participantUpdated, try model(CallParticipantPayload.self), "an agent joined or left the call (an assignment, a transfer)"),
            (.interruptionDetected, try model(CallInterruption.self),
             "a cellular call paused the call (simulate_interruption); resume it with resume_call"),
            (.deflectionOffered, try model(CallDeflection.self),
             "the waiting call's estimate reached the queue's threshold: the platform offers another way in, once per call"),
            (.audibleMessagePlayed, try model(AudibleMessagePlayback.self),
             "the SDK played one of the queue's announcements at its moment of the call (play_audible_messages on)"),
            (.incomingCallEvent, try model(IncomingCallEvent.self),
             "the platform calls back for a scheduled call that came due (its event stream, or a VoIP push handed to "
                + "ccai.handle_voip_push; told once): accept_incoming_call or decline_incoming_call"),
        ]
        events += call.map { Event(module: EventService.call.module, name: $0.0.rawValue, payload: $0.1, meaning: $0.2) }
        events.append(Event(module: EventService.smartAction.module, name: "requested", payload: try model(SmartAction.self),
                            meaning: "an agent asked for a smart action (a plugin's smart_actions hook answers it first)"))
        events.append(Event(module: EventService.screenShare.module, name: "state", payload: try model(ScreenShareServiceState.self),
                            meaning: "the screen share service's state changed"))
        events.append(Event(module: EventService.screenShare.module, name: "request", payload: try model(ScreenShareRequestType.self),
                            meaning: "the agent asks the end user's consent: to share the screen (session) or to control the app"))
        let payload = LuaShape.object([
            .init(name: PushPayload.key, shape: try model(PushPayload.self), isOptional: false),
            .init(name: "aps", shape: .object([.init(name: "alert", shape: .string, isOptional: false)]), isOptional: true),
        ])
        events.append(Event(module: EventService.push.module, name: PushBindings.pushEvent,
                            payload: .object([.init(name: "type", shape: .literals(PushTokenType.allCases.map(\.rawValue)), isOptional: false),
                                              .init(name: "payload", shape: payload, isOptional: false)]),
                            meaning: "the device received a push at a token the script registered (update_push_token): an agent's "
                                + "message while the app is in the background (apns), a scheduled call's callback (voip); hand "
                                + "its payload to handle_push_notification or ccai.handle_voip_push"))
        events += appsEvents(chat: try model(AppsChat.self), message: try model(AppsMessage.self))
        return events
    }

    /// The webhooks of the chats a state started with `ccai.apps.start_chat`, each as its
    /// delivery's envelope (docs/webhooks.md), received with `ccai run --webhook-listen`.
    private static func appsEvents(chat: LuaShape, message: LuaShape) -> [Event] {
        let data: [WebhookEventName: (LuaShape, String)] = [
            .chatCreated: (chat, "the chat was created (its chat object)"),
            .agentMessage: (message, "a human agent wrote in the chat"),
            .virtualAgentMessage: (message, "a virtual agent wrote in the chat"),
            .systemMessage: (message, "the platform wrote a notice in the chat (an agent joined...)"),
            .chatEscalated: (.map(key: .string, value: .any), "a virtual agent's chat went back to the queue for a human "
                             + "(escalation_id, deflection_channel, status)"),
            .chatDeflected: (.map(key: .string, value: .any), "the escalation's option took the chat to another channel "
                             + "(escalation_id, deflection_channel)"),
            .chatTransferred: (.map(key: .string, value: .any), "the chat moved to another queue (from_menu_id, to_menu_id, "
                               + "from_agent)"),
            .chatEnded: (chat, "the chat ended (its chat object: finished, no_response, canceled or failed)"),
        ]
        return WebhookEventName.allCases.map { name in
            let (shape, meaning) = data[name] ?? (.any, "")
            let envelope = LuaShape.object([
                .init(name: "id", shape: .integer, isOptional: false), .init(name: "event", shape: .string, isOptional: false),
                .init(name: "chat_id", shape: .integer, isOptional: false), .init(name: "timestamp", shape: .string, isOptional: false),
                .init(name: "data", shape: shape, isOptional: false),
            ])
            return Event(module: EventService.apps.module, name: name.rawValue, payload: envelope,
                         meaning: "webhook: " + meaning + "; the delivery's envelope, its data as the Apps API shows it")
        }
    }

    /// The events of each module by name, as the emitters accept them (``EventService``).
    static var namesByModule: [String: Set<String>] {
        Dictionary(uniqueKeysWithValues: EventService.allCases.map { ($0.module, $0.eventNames) })
    }
}
