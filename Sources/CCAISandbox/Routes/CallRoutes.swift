import CCAIWire
import Foundation

/// Voice calls (seed 002): `POST /calls` (start an instant call), `GET /calls/current`,
/// `GET /calls/{id}`, `PUT /calls/{id}/hold`, `POST /calls/{id}/interruption` (the device
/// reports a cellular call), `POST /calls/{id}/resume`, `POST /calls/{id}/end`, `POST
/// /calls/voicemail`, `GET /calls/{id}/deflection` and the operator's `GET
/// /admin/voicemails`; scheduled calls: `GET /queue_menus/{id}/scheduled_time_slots`,
/// `POST /calls/scheduled`, `POST /calls/{id}/cancel` and the callback's `POST
/// /calls/{id}/accept` and `POST /calls/{id}/decline`; `POST /calls/{id}/escalate` leaves
/// the queue's virtual agent for a human. The rules are ``Calls``', ``ScheduledCalls``'
/// and ``CallLifecycle``'s, which tell the agent desk what changed; an escalation is the
/// desk's own act.
struct CallRoutes: Sendable {
    let callers: CallerResolver
    let calls: Calls
    let scheduled: ScheduledCalls
    let desk: AgentDesk

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.startInstantCall, start),
            (Endpoints.currentCall, current),
            (Endpoints.call, call),
            (Endpoints.holdCall, hold),
            (Endpoints.interruptCall, interrupt),
            (Endpoints.resumeCall, resume),
            (Endpoints.endCall, end),
            (Endpoints.escalateCall, escalate),
            (Endpoints.startVoicemail, startVoicemail),
            (Endpoints.callDeflection, deflection),
            (Endpoints.scheduledTimeSlots, slots),
            (Endpoints.createScheduledCall, book),
            (Endpoints.cancelScheduledCall, cancel),
            (Endpoints.acceptIncomingCall, accept),
            (Endpoints.declineIncomingCall, decline),
        ], callers: callers)
        router.on(Endpoints.voicemails, voicemails)
    }

    private func startVoicemail(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await calls.startVoicemail(try request.decode(VoicemailRequest.self), caller: caller), status: 201)
    }

    private func deflection(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await calls.deflection(of: try await ownCall(request, caller)))
    }

    /// The operator's list (admin token, not an end user's session).
    private func voicemails(_ request: HTTPRequest) async throws -> HTTPResponse {
        let page = try request.page(.voicemails)
        return try .json(try await calls.voicemails(after: page.after, limit: page.limit))
    }

    private func slots(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let menuID = try request.integerParameter("id", "queue menu id")
        var rescheduling: Int?
        if let text = request.query["call_id_for_rescheduling"], !text.isEmpty {
            guard let id = Int(text) else {
                throw HTTPError.badRequest("call_id_for_rescheduling must be an integer (a call id), got '\(TerminalText.escaped(String(text.prefix(40))))'")
            }
            rescheduling = id
        }
        return try .json(try await scheduled.slots(menuID: menuID, rescheduling: rescheduling, endUserID: try caller.endUserID()))
    }

    private func book(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await scheduled.book(try request.decode(ScheduledCallRequest.self), caller: caller), status: 201)
    }

    private func cancel(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await scheduled.cancel(try await ownCall(request, caller), endUserID: try caller.endUserID()))
    }

    private func accept(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await scheduled.accept(try await ownCall(request, caller), endUserID: try caller.endUserID()))
    }

    private func decline(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await scheduled.decline(try await ownCall(request, caller), endUserID: try caller.endUserID()))
    }

    private func start(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await calls.start(try request.decode(InstantCallRequest.self), caller: caller), status: 201)
    }

    private func current(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await calls.current(endUserID: try caller.endUserID()))
    }

    private func call(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await ownCall(request, caller))
    }

    private func hold(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let body = try request.decode(CallHoldRequest.self)
        return try .json(try await calls.hold(try await ownCall(request, caller), onHold: body.onHold, endUserID: try caller.endUserID()))
    }

    private func interrupt(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let body = try request.decode(CallInterruptionRequest.self)
        if let seconds = body.seconds, !(seconds >= 0 && seconds.isFinite) {
            throw HTTPError.badRequest("seconds must be a finite number of seconds, 0 or more")
        }
        return try .json(try await calls.interrupt(try await ownCall(request, caller), endUserID: try caller.endUserID()))
    }

    private func resume(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await calls.resume(try await ownCall(request, caller), endUserID: try caller.endUserID()))
    }

    private func end(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        try .json(try await calls.end(try await ownCall(request, caller), endUserID: try caller.endUserID()))
    }

    private func escalate(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        let call = try await ownCall(request, caller)
        return try .json(try await desk.escalate(callID: call.id, endUserID: try caller.endUserID()))
    }

    private func ownCall(_ request: HTTPRequest, _ caller: Caller) async throws -> CallResponse {
        try await calls.call(try request.integerParameter("id", "call id"), endUserID: try caller.endUserID())
    }
}
