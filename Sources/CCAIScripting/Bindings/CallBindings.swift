import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// `ccai.initialize_call{ play_audible_messages, call_kit_enabled }` and `ccai.call` (seed
/// 002's `callService`) with its events: `state_changed` (the provider's line),
/// `call_received` (the server's call), `wait_time_updated`, `participant_updated`,
/// `interruption_detected`, `deflection_offered` and `audible_message_played` (the SDK
/// playing an announcement), `incoming_call_event` (the platform's callback of a scheduled
/// call); scheduled calls (`get_scheduled_time_slots`, `create_scheduled_call`,
/// `cancel_scheduled_call`, and `accept_incoming_call` / `decline_incoming_call` for the
/// callback); and `ccai.audible_message` (seed 002's `audibleMessageService`). The device's
/// part is the script's: `simulate_interruption{ seconds }` plays a cellular call.
///
/// ```lua
/// ccai.initialize_call()
/// local call = ccai.call.start_instant_call{ menu_id = 1, recording_permission = "granted" }
/// local connected = ccai.call.wait_for("call_received", function(c) return c.status == "connected" end, 30)
/// ccai.call.set_on_hold(true); ccai.call.set_on_hold(false)
/// ccai.call.end_call()
/// ```
enum CallBindings {
    /// Emits the call service's typed events into the state until it closes, saying each
    /// announcement the SDK plays in the run's log; in a scenario's VU, its `recorder`
    /// reads each event before the script can (the voice metrics).
    static func startBridges(_ service: CallService, context: SDKContext, in state: LuaState, recorder: SDKMetricsRecorder?) {
        guard let emitter = context.emitters[.call] else { return }
        let logger = context.logger
        EventBridge.forward(from: service.callEvents, into: emitter, in: state, conversations: \.conversations, observe: { event in
            recorder?.observe(event)
            if case .audibleMessagePlayed(let playback) = event { log(playback, to: logger) }
        }, named: { $0.name.rawValue }, as: { luaValue($0) })
    }

    /// The SDK "plays" an announcement by saying it in the run's log, with its audio's address.
    private static func log(_ playback: AudibleMessagePlayback, to logger: ScriptLogger) {
        guard logger.minimumLevel <= .info else { return }
        var fields: [(key: String, value: LuaValue)] = [("call_id", .integer(Int64(playback.callId))), ("kind", .string(playback.kind.rawValue))]
        if let audio = playback.audioUrl { fields.insert(("audio_url", .string(audio)), at: 0) }
        logger.log(LogRecord(level: .info, message: "audible message: " + playback.text, fields: fields))
    }

    /// A call event as scripts see it: calls and payloads as tables, `state_changed` as
    /// the provider state's name or `{ type = "error", message }`.
    static func luaValue(_ event: CallServiceEvent) -> LuaValue {
        switch event {
        case .stateChanged(let state): EventBridge.luaValue(.stateChanged(state))
        case .callReceived(let call): (try? LuaEncoder().encode(call)) ?? .nil
        case .waitTimeUpdated(let payload): (try? LuaEncoder().encode(payload)) ?? .nil
        case .participantUpdated(let payload): (try? LuaEncoder().encode(payload)) ?? .nil
        case .interruptionDetected(let interruption): (try? LuaEncoder().encode(interruption)) ?? .nil
        case .deflectionOffered(let offer): (try? LuaEncoder().encode(offer)) ?? .nil
        case .audibleMessagePlayed(let playback): (try? LuaEncoder().encode(playback)) ?? .nil
        case .incomingCallEvent(let incoming): (try? LuaEncoder().encode(incoming)) ?? .nil
        }
    }

    /// `ccai.audible_message`: a queue's announcements, available after `initialize_call`.
    static let audibleMessageRows: [Binding<AudibleMessageService>] = [
        Binding("resolve_messages", "The queue's announcements in the SDK's language, one per kind the admin set (welcome, "
                + "all_agents_busy, recording_notice, on_hold, goodbye): each { kind, text, audio_url }.", resolveMessages,
                returns: [.model([AudibleMessage].self)]),
    ]

    static func audibleMessageModule(_ ccai: CCAI) -> LuaModule {
        var module = LuaModule(name: "ccai.audible_message")
        module.functions(audibleMessageRows) { call in
            guard let service = ccai.audibleMessageService else {
                throw LuaErrorValue(code: .notInitialized, message: "call is not initialized: call ccai.initialize_call() first",
                                    fields: ["service": "audible_message", "method": "resolve_messages"])
            }
            return service
        }
        return module
    }

    static func resolveMessages(_ service: AudibleMessageService, _ options: MenuArgument, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call) { try await service.resolveMessages(menuId: options.menuId) }
    }

    static let rows: [Binding<CallContext>] = sessionRows + schedulingRows + deviceRows

    /// Starting, finding, resuming, escalating and ending calls.
    static let sessionRows: [Binding<CallContext>] = [
        Binding("start_instant_call", "Starts an instant call on a queue: it waits for an agent, then connects (each change a "
                + "call_received). On a queue that asks about recording (ask_user), recording_permission must be 'granted' or "
                + "'denied'. A call in progress, or a queue closed or over capacity, is a conflict that says why.",
                startInstantCall, returns: [.model(CallResponse.self)]),
        Binding("start_voicemail", "Leaves a message for a queue that cannot take the call now (after hours, over capacity, "
                + "redirecting its callers), or that a wait-time deflection offered to the waiting call (which then ends). "
                + "Connected at once; end it with end_call. A queue taking calls is a conflict.", startVoicemail,
                returns: [.model(CallResponse.self)]),
        Binding("get_call_deflection", "The wait-time deflection offered to a call ({ call_id, menu_id, estimated_wait, "
                + "threshold_seconds, offers, phone_number, message, offered_at }), or nil when none was.", getCallDeflection,
                returns: [.model(CallDeflection.self, optional: true)]),
        Binding("get_last_call_in_progress", "The end user's call in progress, if any.", getLastCallInProgress,
                returns: [.model(CallResponse.self, optional: true)]),
        Binding("get_current_call", "The call the SDK works on, as last reported.", getCurrentCall,
                returns: [.model(CallResponse.self, optional: true)]),
        Binding("resume_call", "Brings a call in progress back (an interrupted call connects again); a call that has ended is "
                + "a conflict.", resumeCall),
        Binding("escalate_to_human_agent", "Leaves the queue's virtual agent for a human (the app's Talk to a person button, "
                + "shown when call:can_escalate says so): the call waits for an agent again. A call no virtual agent has (or, "
                + "while it waits, on a queue that does not let callers skip it) is a conflict.", escalateToHumanAgent,
                returns: [.model(CallResponse.self)]),
        Binding("end_call", "Hangs up the current call.", endCall),
    ]

    /// Scheduled calls and the platform's callback.
    static let schedulingRows: [Binding<CallContext>] = [
        Binding("get_scheduled_time_slots", "The slots a queue offers scheduled calls, soonest first, as Unix times (from its "
                + "business hours in the company's time zone and its calls per slot); with call_id_for_rescheduling, that "
                + "booking does not take its own slot. A queue without scheduled calls is a conflict.", getScheduledTimeSlots,
                returns: [.model([Double].self)]),
        Binding("create_scheduled_call", "Books a slot of get_scheduled_time_slots for a callback to phone_number (E.164, like "
                + "+14155550123): the call, status 'scheduled'. With call_id_for_rescheduling it replaces that booking and "
                + "frees its slot. A bad number, a slot not offered or taken is an invalid_argument naming it; a second booking "
                + "a conflict.", createScheduledCall, returns: [.model(CallResponse.self)]),
        Binding("cancel_scheduled_call", "Cancels a booking that has not come due; returns it, ended (end_reason 'cancelled').",
                cancelScheduledCall, returns: [.model(CallResponse.self)]),
        Binding("accept_incoming_call", "Answers the platform's callback (an incoming_call_event): the call becomes the current "
                + "one and waits for an agent. A call that is not ringing is a conflict.", acceptIncomingCall,
                returns: [.model(CallResponse.self)]),
        Binding("decline_incoming_call", "Declines the platform's callback; returns the call, ended (end_reason 'declined').",
                declineIncomingCall, returns: [.model(CallResponse.self)]),
    ]

    /// What the device does: hold, mute, speaker, a cellular call interrupting.
    static let deviceRows: [Binding<CallContext>] = [
        Binding("set_on_hold", "Puts the connected call on hold (true) or takes it off hold (false); the agent hears it. A call "
                + "in another status is a conflict.", setOnHold, returns: [.model(CallResponse.self)]),
        Binding("is_on_hold", "Whether the call is on hold, by either side.", isOnHold, returns: [.model(Bool.self)]),
        Binding("set_muted", "Mutes the device's microphone, or not (not_found without a call in progress).", setMuted),
        Binding("is_muted", "Whether the device's microphone is muted.", isMuted, returns: [.model(Bool.self)]),
        Binding("set_speaker_enabled", "Plays the call on the device's speaker, or not (not_found without a call in progress).",
                setSpeakerEnabled),
        Binding("is_speaker_enabled", "Whether the call plays on the device's speaker.", isSpeakerEnabled,
                returns: [.model(Bool.self)]),
        Binding("simulate_interruption", "Plays a cellular call on the device: the call is interrupted (interruption_detected), "
                + "and this returns after seconds; resume it with resume_call.", simulateInterruption),
    ]

    /// What the call functions work with: the service, and the host's signer for signed
    /// custom data.
    struct CallContext {
        let service: CallService
        let signer: ClaimsSigner?
    }

    static func module(_ context: SDKContext) -> LuaModule {
        let ccai = context.sdk
        var module = LuaModule(name: EventService.call.module)
        if let events = context.emitters[.call] { module.events(events) }
        let signer = context.signer
        module.functions(rows) { CallContext(service: try requireCall(ccai, $0), signer: signer) }
        PostSessionBindings.install(intoCall: &module, ccai)
        return module
    }

    /// The methods of every call table (``CallResponse``'s ``LuaClass``), wherever it comes
    /// from: `call:can_escalate(allow_skip_virtual_agent)`.
    static func defineCallClass(in lua: LuaContext) {
        var methods = LuaModule(name: CallResponse.luaClassName)
        methods.function("can_escalate", LuaSignature(
            "Whether the end user may ask for a human now: while a virtual agent has the call, and while it waits when "
                + "allow_skip_virtual_agent (the queue's voice_call.allow_skip_virtual_agent, from its menu) is true.",
            parameters: ["allow_skip_virtual_agent: boolean?"], returns: ["boolean"])) { call in
            guard !call.isNil(1) else {
                throw call.argumentError(1, "self", "can_escalate is a method: call it with a colon, call:can_escalate(allow_skip)")
            }
            let allowSkip = call.isNil(2) ? false : try call.boolean(2, "allow_skip_virtual_agent")
            let response: CallResponse
            do {
                response = try LuaDecoder().decode(CallResponse.self, from: .table(try call.table(1, "self")))
            } catch let error as DecodingError {
                throw call.argumentError(1, "self", "a call expected (\(SDKBindings.describe(error)))")
            }
            return call.returning(.boolean(response.canEscalate(allowSkipVirtualAgent: allowSkip)))
        }
        lua.defineClass(CallResponse.luaClassName, methods: methods)
    }

    /// Runs a device control, its refusal raised as the script's `ccai.Error`.
    private static func device(_ call: LuaCall, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as any SDKError {
            let (service, method) = SDKBindings.serviceAndMethod(of: call)
            throw SDKBindings.luaError(error, service: service, method: method)
        }
    }

    /// The call service, or `not_initialized` naming the method.
    static func requireCall(_ ccai: CCAI, _ call: LuaCall) throws -> CallService {
        guard let service = ccai.callService else {
            let (name, method) = SDKBindings.serviceAndMethod(of: call)
            throw LuaErrorValue(code: ErrorCode.notInitialized.rawValue, message: "call is not initialized: call ccai.initialize_call() first",
                                fields: ["service": .string(name), "method": .string(method)])
        }
        return service
    }

    static func startInstantCall(_ context: CallContext, _ request: InstantCallArguments, _ call: LuaCall) throws -> LuaReturn {
        let instant = InstantCallRequest(menuId: request.menuId, recordingPermission: request.recordingPermission,
                                         customData: try ChatBindings.customData(call, request.customData, signer: context.signer),
                                         ticketId: request.ticketId)
        let service = context.service
        return try SDKBindings.sdk(call) { try await service.startInstantCall(instant) }
    }

    static func startVoicemail(_ context: CallContext, _ request: VoicemailArguments, _ call: LuaCall) throws -> LuaReturn {
        let voicemail = VoicemailRequest(menuId: request.menuId,
                                         customData: try ChatBindings.customData(call, request.customData, signer: context.signer),
                                         ticketId: request.ticketId)
        let service = context.service
        return try SDKBindings.sdk(call) { try await service.startVoicemail(voicemail) }
    }

    static func getCallDeflection(_ context: CallContext, _ options: CallArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = context.service
        return try SDKBindings.sdk(call) { try await service.getCallDeflection(callId: options.callId) }
    }

    static func getLastCallInProgress(_ context: CallContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = context.service
        return try SDKBindings.sdk(call) { try await service.getLastCallInProgress() }
    }

    static func getCurrentCall(_ context: CallContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        call.returning(try context.service.currentCall.map { try LuaEncoder().encode($0) } ?? .nil)
    }

    static func resumeCall(_ context: CallContext, _ argument: CallValueArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = context.service
        return try SDKBindings.sdk(call, { try await service.resumeCall(argument.value) }, push: { _, _ in })
    }

    static func escalateToHumanAgent(_ context: CallContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = context.service
        return try SDKBindings.sdk(call) { try await service.escalateToHumanAgent() }
    }

    static func endCall(_ context: CallContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = context.service
        return try SDKBindings.sdk(call, { try await service.endCall() }, push: { _, _ in })
    }

    static func getScheduledTimeSlots(_ context: CallContext, _ options: TimeSlotsArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = context.service
        return try SDKBindings.sdk(call, {
            try await service.getScheduledTimeSlots(menuId: options.menuId, callIdForRescheduling: options.callIdForRescheduling)
        }, push: { slots, output in output.push(try LuaEncoder().encode(slots.map(\.timeIntervalSince1970))) })
    }

    static func createScheduledCall(_ context: CallContext, _ request: ScheduledCallArguments, _ call: LuaCall) throws -> LuaReturn {
        let booking = ScheduledCallRequest(menuId: request.menuId, phoneNumber: request.phoneNumber,
                                           scheduleTime: Date(timeIntervalSince1970: request.scheduleTime),
                                           recordingPermission: request.recordingPermission ?? .notAsked,
                                           callIdForRescheduling: request.callIdForRescheduling,
                                           customData: try ChatBindings.customData(call, request.customData, signer: context.signer),
                                           ticketId: request.ticketId)
        let service = context.service
        return try SDKBindings.sdk(call) { try await service.createScheduledCall(booking) }
    }

    static func cancelScheduledCall(_ context: CallContext, _ options: CallArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = context.service
        return try SDKBindings.sdk(call) { try await service.cancelScheduledCall(callId: options.callId) }
    }

    static func acceptIncomingCall(_ context: CallContext, _ options: CallArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = context.service
        return try SDKBindings.sdk(call) { try await service.acceptIncomingCall(callId: options.callId) }
    }

    static func declineIncomingCall(_ context: CallContext, _ options: CallArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = context.service
        return try SDKBindings.sdk(call) { try await service.declineIncomingCall(callId: options.callId) }
    }

    static func setOnHold(_ context: CallContext, _ argument: OnHoldArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = context.service
        return try SDKBindings.sdk(call) { try await service.setOnHold(argument.value) }
    }

    static func isOnHold(_ context: CallContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        call.returning(.boolean(context.service.isOnHold))
    }

    static func setMuted(_ context: CallContext, _ argument: MutedArgument, _ call: LuaCall) throws -> LuaReturn {
        try device(call) { try context.service.setMuted(argument.value) }
        return .none
    }

    static func isMuted(_ context: CallContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        call.returning(.boolean(context.service.isMuted))
    }

    static func setSpeakerEnabled(_ context: CallContext, _ argument: EnabledArgument, _ call: LuaCall) throws -> LuaReturn {
        try device(call) { try context.service.setSpeakerEnabled(argument.value) }
        return .none
    }

    static func isSpeakerEnabled(_ context: CallContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        call.returning(.boolean(context.service.isSpeakerEnabled))
    }

    static func simulateInterruption(_ context: CallContext, _ options: InterruptionArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = context.service
        return try SDKBindings.sdk(call, { try await service.simulateInterruption(seconds: options.seconds) }, push: { _, _ in })
    }
}

extension CallResponse: LuaClass {
    /// Call tables have the methods of ``CallBindings/defineCallClass(in:)``.
    public static let luaClassName = "ccai.Call"
}
