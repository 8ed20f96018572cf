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
    static func initializeFunction(_ context: SDKContext, smartActions: EventBridge.Started) -> LuaFunctionBody {
        let ccai = context.sdk
        let bridge = EventBridge.Started()
        return { call in
            guard ccai.options != nil else {
                throw LuaErrorValue(code: ErrorCode.notInitialized.rawValue, message: "the SDK is not initialized",
                                    fields: ["service": "call", "method": "initialize_call"])
            }
            let options = try call.checkedOptions(1, "options", known: ["play_audible_messages", "call_kit_enabled"])
            ccai.initializeCall(CallOptions(playAudibleMessages: try options.boolean("play_audible_messages") ?? true,
                                            callKitEnabled: try options.boolean("call_kit_enabled") ?? true))
            if !bridge.started, let service = ccai.callService, let emitter = context.emitters[.call], let state = call.context.state {
                bridge.started = true
                let logger = context.logger
                EventBridge.forward(service.callEvents(), into: emitter, in: state) { event in
                    if case .audibleMessagePlayed(let playback) = event { log(playback, to: logger) }
                    return (event.name.rawValue, luaValue(event))
                }
                SmartActionBindings.startRequests(context, started: smartActions, in: state)
            }
            return .none
        }
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
    static func audibleMessageModule(_ ccai: CCAI) -> LuaModule {
        var module = LuaModule(name: "ccai.audible_message")
        module.function("resolve_messages", LuaSignature(
            "The queue's announcements in the SDK's language, one per kind the admin set (welcome, all_agents_busy, "
                + "recording_notice, on_hold, goodbye): each { kind, text, audio_url }.",
            parameters: ["options: { menu_id: integer }|integer"], returns: ["ccai.AudibleMessage[]"])) { call in
            guard let menuID = try call.checkedOptions(1, "options", known: ["menu_id"], positional: "menu_id").integer("menu_id") else {
                throw call.argumentError(1, "options", "field 'menu_id': integer expected, got nil")
            }
            guard let service = ccai.audibleMessageService else {
                throw LuaErrorValue(code: ErrorCode.notInitialized.rawValue, message: "call is not initialized: call ccai.initialize_call() first",
                                    fields: ["service": "audible_message", "method": "resolve_messages"])
            }
            return try SDKBindings.sdk(call) { try await service.resolveMessages(menuId: Int(menuID)) }
        }
        return module
    }

    static func module(_ context: SDKContext) -> LuaModule {
        let ccai = context.sdk
        var module = LuaModule(name: EventService.call.module)
        if let events = context.emitters[.call] { module.events(events) }
        module.function("start_instant_call", LuaSignature(
            "Starts an instant call on a queue: it waits for an agent, then connects (each change a call_received). On a queue "
                + "that asks about recording (ask_user), recording_permission must be 'granted' or 'denied'. A call in progress, "
                + "or a queue closed or over capacity, is a conflict that says why.",
            parameters: ["request: { menu_id: integer, recording_permission: \"granted\"|\"denied\"|\"not_asked\"?, custom_data: table?, ticket_id: string? }"],
            returns: ["ccai.Call"])) { call in
            let request = try instantCallRequest(call, signer: context.signer)
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call) { try await service.startInstantCall(request) }
        }
        module.function("start_voicemail", LuaSignature(
            "Leaves a message for a queue that cannot take the call now (after hours, over capacity, redirecting its "
                + "callers), or that a wait-time deflection offered to the waiting call (which then ends). Connected at once; "
                + "end it with end_call. A queue taking calls is a conflict.",
            parameters: ["request: { menu_id: integer, custom_data: table?, ticket_id: string? }"],
            returns: ["ccai.Call"])) { call in
            let options = try call.checkedOptions(1, "request", known: ["menu_id", "custom_data", "ticket_id"])
            guard let menuID = try options.integer("menu_id") else {
                throw call.argumentError(1, "request", "field 'menu_id': integer expected, got nil")
            }
            let request = VoicemailRequest(menuId: Int(menuID), customData: try ChatBindings.customData(call, options, signer: context.signer),
                                           ticketId: try options.string("ticket_id"))
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call) { try await service.startVoicemail(request) }
        }
        module.function("get_call_deflection", LuaSignature(
            "The wait-time deflection offered to a call ({ call_id, menu_id, estimated_wait, threshold_seconds, offers, "
                + "phone_number, message, offered_at }), or nil when none was.",
            parameters: ["options: { call_id: integer }|integer"], returns: ["ccai.CallDeflection?"])) { call in
            guard let callID = try call.checkedOptions(1, "options", known: ["call_id"], positional: "call_id").integer("call_id") else {
                throw call.argumentError(1, "options", "field 'call_id': integer expected, got nil")
            }
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call, { try await service.getCallDeflection(callId: Int(callID)) },
                                       push: { result, output in output.push(try result.map { try LuaEncoder().encode($0) } ?? .nil) })
        }
        module.function("get_scheduled_time_slots", LuaSignature(
            "The slots a queue offers scheduled calls, soonest first, as Unix times (from its business hours in the company's "
                + "time zone and its calls per slot); with call_id_for_rescheduling, that booking does not take its own slot. "
                + "A queue without scheduled calls is a conflict.",
            parameters: ["options: { menu_id: integer, call_id_for_rescheduling: integer? }"], returns: ["number[]"])) { call in
            let options = try call.checkedOptions(1, "options", known: ["menu_id", "call_id_for_rescheduling"])
            guard let menuID = try options.integer("menu_id") else {
                throw call.argumentError(1, "options", "field 'menu_id': integer expected, got nil")
            }
            let rescheduling = try options.integer("call_id_for_rescheduling").map { Int($0) }
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call, { try await service.getScheduledTimeSlots(menuId: Int(menuID), callIdForRescheduling: rescheduling) },
                                       push: { slots, output in output.push(try LuaEncoder().encode(slots.map(\.timeIntervalSince1970))) })
        }
        module.function("create_scheduled_call", LuaSignature(
            "Books a slot of get_scheduled_time_slots for a callback to phone_number (E.164, like +14155550123): the call, "
                + "status 'scheduled'. With call_id_for_rescheduling it replaces that booking and frees its slot. A bad number, "
                + "a slot not offered or taken is an invalid_argument naming it; a second booking a conflict.",
            parameters: ["request: { menu_id: integer, phone_number: string, schedule_time: number, recording_permission: "
                         + "\"granted\"|\"denied\"|\"not_asked\"?, call_id_for_rescheduling: integer?, custom_data: table?, ticket_id: string? }"],
            returns: ["ccai.Call"])) { call in
            let request = try scheduledCallRequest(call, signer: context.signer)
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call) { try await service.createScheduledCall(request) }
        }
        module.function("cancel_scheduled_call", LuaSignature(
            "Cancels a booking that has not come due; returns it, ended (end_reason 'cancelled').",
            parameters: ["options: { call_id: integer }|integer"], returns: ["ccai.Call"])) { call in
            let callID = try callID(call)
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call) { try await service.cancelScheduledCall(callId: callID) }
        }
        module.function("accept_incoming_call", LuaSignature(
            "Answers the platform's callback (an incoming_call_event): the call becomes the current one and waits for an agent. "
                + "A call that is not ringing is a conflict.",
            parameters: ["options: { call_id: integer }|integer"], returns: ["ccai.Call"])) { call in
            let callID = try callID(call)
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call) { try await service.acceptIncomingCall(callId: callID) }
        }
        module.function("decline_incoming_call", LuaSignature(
            "Declines the platform's callback; returns the call, ended (end_reason 'declined').",
            parameters: ["options: { call_id: integer }|integer"], returns: ["ccai.Call"])) { call in
            let callID = try callID(call)
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call) { try await service.declineIncomingCall(callId: callID) }
        }
        module.function("get_last_call_in_progress", LuaSignature("The end user's call in progress, if any.", returns: ["ccai.Call?"])) { call in
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call, { try await service.getLastCallInProgress() },
                                       push: { result, output in output.push(try result.map { try LuaEncoder().encode($0) } ?? .nil) })
        }
        module.function("get_current_call", LuaSignature("The call the SDK works on, as last reported.", returns: ["ccai.Call?"])) { call in
            let service = try requireCall(ccai, call)
            return call.returning(try service.currentCall.map { try LuaEncoder().encode($0) } ?? .nil)
        }
        module.function("resume_call", LuaSignature(
            "Brings a call in progress back (an interrupted call connects again); a call that has ended is a conflict.",
            parameters: ["call: ccai.Call"])) { call in
            let resumed: CallResponse
            do {
                resumed = try LuaDecoder().decode(CallResponse.self, from: .table(try call.table(1, "call")))
            } catch let error as DecodingError {
                throw call.argumentError(1, "call", "a call expected (\(SDKBindings.describe(error)))")
            }
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call, { try await service.resumeCall(resumed) }, push: { _, _ in })
        }
        module.function("escalate_to_human_agent", LuaSignature(
            "Leaves the queue's virtual agent for a human (the app's Talk to a person button, shown when call:can_escalate "
                + "says so): the call waits for an agent again. A call no virtual agent has (or, while it waits, on a queue "
                + "that does not let callers skip it) is a conflict.",
            returns: ["ccai.Call"])) { call in
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call) { try await service.escalateToHumanAgent() }
        }
        PostSessionBindings.install(intoCall: &module, ccai)
        module.function("end_call", LuaSignature("Hangs up the current call.")) { call in
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call, { try await service.endCall() }, push: { _, _ in })
        }
        module.function("set_on_hold", LuaSignature(
            "Puts the connected call on hold (true) or takes it off hold (false); the agent hears it. A call in another status is a conflict.",
            parameters: ["on_hold: boolean"], returns: ["ccai.Call"])) { call in
            let onHold = try call.boolean(1, "on_hold")
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call) { try await service.setOnHold(onHold) }
        }
        module.function("is_on_hold", LuaSignature("Whether the call is on hold, by either side.", returns: ["boolean"])) { call in
            call.returning(.boolean(try requireCall(ccai, call).isOnHold))
        }
        module.function("set_muted", LuaSignature("Mutes the device's microphone, or not (not_found without a call in progress).",
                                                  parameters: ["muted: boolean"])) { call in
            let muted = try call.boolean(1, "muted")
            try device(call) { try requireCall(ccai, call).setMuted(muted) }
            return .none
        }
        module.function("is_muted", LuaSignature("Whether the device's microphone is muted.", returns: ["boolean"])) { call in
            call.returning(.boolean(try requireCall(ccai, call).isMuted))
        }
        module.function("set_speaker_enabled", LuaSignature("Plays the call on the device's speaker, or not (not_found without a call in progress).",
                                                            parameters: ["enabled: boolean"])) { call in
            let enabled = try call.boolean(1, "enabled")
            try device(call) { try requireCall(ccai, call).setSpeakerEnabled(enabled) }
            return .none
        }
        module.function("is_speaker_enabled", LuaSignature("Whether the call plays on the device's speaker.", returns: ["boolean"])) { call in
            call.returning(.boolean(try requireCall(ccai, call).isSpeakerEnabled))
        }
        module.function("simulate_interruption", LuaSignature(
            "Plays a cellular call on the device: the call is interrupted (interruption_detected), and this returns after "
                + "seconds; resume it with resume_call.",
            parameters: ["options: { seconds: number }|number"])) { call in
            let options = try call.checkedOptions(1, "options", known: ["seconds"], positional: "seconds")
            guard let seconds = try options.number("seconds"), seconds >= 0, seconds <= 86_400 else {
                throw call.argumentError(1, "options.seconds", "a number of seconds from 0 to 86400 expected, got "
                                         + (try options.value("seconds")).description)
            }
            let service = try requireCall(ccai, call)
            return try SDKBindings.sdk(call, { try await service.simulateInterruption(seconds: seconds) }, push: { _, _ in })
        }
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

    /// Reads `{ call_id }`.
    private static func callID(_ call: LuaCall) throws -> Int {
        guard let id = try call.checkedOptions(1, "options", known: ["call_id"], positional: "call_id").integer("call_id") else {
            throw call.argumentError(1, "options", "field 'call_id': integer expected, got nil")
        }
        return Int(id)
    }

    /// Reads `{ menu_id, phone_number, schedule_time, recording_permission,
    /// call_id_for_rescheduling, custom_data, ticket_id }`.
    static func scheduledCallRequest(_ call: LuaCall, signer: ClaimsSigner?) throws -> ScheduledCallRequest {
        let options = try call.checkedOptions(1, "request", known: ["menu_id", "phone_number", "schedule_time", "recording_permission", "call_id_for_rescheduling", "custom_data", "ticket_id"])
        guard let menuID = try options.integer("menu_id") else {
            throw call.argumentError(1, "request", "field 'menu_id': integer expected, got nil")
        }
        guard let phoneNumber = try options.string("phone_number") else {
            throw call.argumentError(1, "request", "field 'phone_number': string expected (E.164, like +14155550123), got nil")
        }
        guard let time = try options.number("schedule_time"), time.isFinite, abs(time) < 1e11 else {
            throw call.argumentError(1, "request", "field 'schedule_time': a Unix time expected (a slot of get_scheduled_time_slots)")
        }
        return ScheduledCallRequest(menuId: Int(menuID), phoneNumber: phoneNumber, scheduleTime: Date(timeIntervalSince1970: time),
                                    recordingPermission: try recordingPermission(call, options) ?? .notAsked,
                                    callIdForRescheduling: try options.integer("call_id_for_rescheduling").map { Int($0) },
                                    customData: try ChatBindings.customData(call, options, signer: signer),
                                    ticketId: try options.string("ticket_id"))
    }

    /// The request's `recording_permission`, checked against the seed's names.
    private static func recordingPermission(_ call: LuaCall, _ options: LuaOptions) throws -> RecordingPermission? {
        guard let name = try options.string("recording_permission") else { return nil }
        guard let known = RecordingPermission(rawValue: name) else {
            throw call.argumentError(1, "request", "field 'recording_permission': "
                                     + RecordingPermission.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
                                     + " expected, got '\(name)'")
        }
        return known
    }

    /// Reads `{ menu_id, recording_permission, custom_data, ticket_id }`.
    static func instantCallRequest(_ call: LuaCall, signer: ClaimsSigner?) throws -> InstantCallRequest {
        let options = try call.checkedOptions(1, "request", known: ["menu_id", "recording_permission", "custom_data", "ticket_id"])
        guard let menuID = try options.integer("menu_id") else {
            throw call.argumentError(1, "request", "field 'menu_id': integer expected, got nil")
        }
        return InstantCallRequest(menuId: Int(menuID), recordingPermission: try recordingPermission(call, options),
                                  customData: try ChatBindings.customData(call, options, signer: signer),
                                  ticketId: try options.string("ticket_id"))
    }
}

extension CallResponse: LuaClass {
    /// Call tables have the methods of ``CallBindings/defineCallClass(in:)``.
    public static let luaClassName = "ccai.Call"
}
