import CCAIWire
import Foundation
import Timekeeping

/// An end user's voice calls: how one starts and what the app does to it (hold, the
/// device's interruption, resume, hang up). A call starts on a queue whose voice channel
/// takes instant calls and is open now (business hours, capacity: a closed or full queue
/// is a `conflict` naming why, as for chats), one call in progress per end user, within
/// `limits.calls_per_hour`. Recording follows the queue's `recording`: `ask_user` needs
/// the end user's `granted` or `denied` (else `invalid_argument`), `always` and `never`
/// decide whatever the request says; the call's `recorded` tells what was decided.
///
/// A voicemail is left on a queue whose voice channel has a phone number (its box) when
/// the queue cannot take the call: after hours, over capacity, redirecting callers for
/// now (`redirect_to_voicemail`), or when the end user's waiting call was offered
/// voicemail by a wait-time deflection (that call then ends, `end_reason = "voicemail"`).
///
/// ```swift
/// let call = try await calls.start(InstantCallRequest(menuId: 1, recordingPermission: .granted), session: session)
/// try await calls.hold(call, onHold: true, endUserID: owner)
/// ```
struct Calls: Sendable {
    let configuration: SandboxConfiguration
    let store: SandboxStore
    let lifecycle: CallLifecycle
    let queues: Queues
    let quotas: Quotas
    let clock: any TimeSource

    /// Creates the call `request` asks for, waiting for an agent, or says why it cannot start.
    func start(_ request: InstantCallRequest, caller: Caller) async throws -> CallResponse {
        let menu = try queues.menu(request.menuId)
        let owner = try caller.endUserID()
        if let existing = try await store.currentCall(endUserID: owner) { throw inProgress(existing) }
        guard let voice = menu.channels?.voiceCall else { throw HTTPError.badRequest("queue \(menu.id) has no voice channel") }
        guard voice.instant == true else {
            throw HTTPError.badRequest("queue \(menu.id) does not take instant calls (its voice channel's instant is off)")
        }
        if voice.redirectToVoicemail == true {
            throw HTTPError.conflict("queue \(menu.id) sends its callers to voicemail for now (temporary_redirection); voicemail is the way in")
        }
        let recorded = try recordingDecision(voice.recording ?? .never, request.recordingPermission, menuID: menu.id)
        try await quotas.check(.calls, endUserID: owner)
        let engine = try await queues.engine()
        if let deflection = engine.deflection(menu) {
            throw HTTPError.conflict("queue \(menu.id) is not taking calls now (\(deflection.reason)); "
                                     + (voice.phoneNumber != nil ? "voicemail is the way in" : "it has no voicemail box either"))
        }
        let customData = try CustomDataIntake(configuration: configuration, clock: clock).sessionData(request.customData, caller: caller)
        switch try await lifecycle.create(endUserID: owner, menuID: menu.id, recordingPermission: request.recordingPermission,
                                          recorded: recorded, customData: customData)
        {
        case .inProgress(let existing): throw inProgress(existing)
        case .created(let call): return call
        }
    }

    /// Connects the end user to the voicemail box of `request`'s queue, or says why not.
    func startVoicemail(_ request: VoicemailRequest, caller: Caller) async throws -> CallResponse {
        let menu = try queues.menu(request.menuId)
        let owner = try caller.endUserID()
        guard menu.channels?.voiceCall?.phoneNumber != nil else {
            throw HTTPError.badRequest("queue \(menu.id) has no voicemail box (its voice channel has no phone_number)")
        }
        var reason = try await queues.engine().voicemailReason(menu)
        var replaced: CallResponse?
        if let existing = try await store.currentCall(endUserID: owner) {
            guard existing.status == .waiting, existing.menuId == menu.id,
                try await store.callDeflection(id: existing.id)?.offers.contains(.voicemail) == true
            else { throw inProgress(existing) }
            replaced = existing
            reason = reason ?? .overCapacityDeflection
        }
        guard let reason else {
            throw HTTPError.conflict("queue \(menu.id) is taking calls now: voicemail is for after hours, over capacity, a queue that "
                                     + "redirects its callers, or a long wait whose deflection offers it")
        }
        try await quotas.check(.calls, endUserID: owner)
        let customData = try CustomDataIntake(configuration: configuration, clock: clock).sessionData(request.customData, caller: caller)
        if let replaced { _ = try await lifecycle.end(replaced.id, endUserID: owner, reason: .voicemail) }
        switch try await lifecycle.createVoicemail(endUserID: owner, menuID: menu.id, reason: reason, customData: customData) {
        case .inProgress(let existing): throw inProgress(existing)
        case .created(let voicemail): return voicemail
        }
    }

    /// The deflection offered to the end user's call `call`, or a 404 when none was.
    func deflection(of call: CallResponse) async throws -> CallDeflection {
        guard let offer = try await store.callDeflection(id: call.id) else {
            throw HTTPError.notFound("no deflection was offered to call \(call.id)")
        }
        return offer
    }

    /// A page of the voicemails left (the operator's view).
    func voicemails(after: Int, limit: Int) async throws -> VoicemailRecords {
        VoicemailRecords(voicemails: try await store.voicemails(after: after, limit: limit))
    }

    /// Whether the call is recorded: `always` and `never` decide; `ask_user` takes the
    /// end user's answer, which must be given.
    private func recordingDecision(_ option: RecordingOption, _ permission: RecordingPermission?, menuID: Int) throws -> Bool {
        switch option {
        case .always: return true
        case .never: return false
        case .askUser:
            guard let permission, permission != .notAsked else {
                throw HTTPError.badRequest("recording_permission: queue \(menuID) asks the end user (recording ask_user): "
                                           + "'granted' or 'denied' expected, got " + (permission.map { "'\($0.rawValue)'" } ?? "nil"))
            }
            return permission == .granted
        }
    }

    private func inProgress(_ existing: CallResponse) -> HTTPError {
        HTTPError.conflict("a call is already in progress (call \(existing.id)); resume or end it first")
    }

    /// Every call in progress with its end user.
    func inProgress() async throws -> [(call: CallResponse, endUserID: Int)] {
        try await store.callsInProgress()
    }

    /// The `limit` newest calls in progress that an agent or a virtual agent has, newest
    /// first, with their end users.
    func latestWithAnAgent(limit: Int) async throws -> [(call: CallResponse, endUserID: Int)] {
        try await store.latestCallsWithAnAgent(limit: limit)
    }

    /// The end user of call `id`; nil for an unknown call.
    func owner(of id: Int) async throws -> Int? {
        try await store.callOwner(id: id)
    }

    /// The calls waiting for an agent on `menus`, oldest first.
    func waiting(onMenus menus: [Int]) async throws -> [(call: CallResponse, endUserID: Int)] {
        try await store.waitingCalls(menus: menus)
    }

    /// Tells the calls waiting on a queue their new estimates, after the line moved (a
    /// call taken, ended or transferred): ``CallLifecycle/refreshWaitTimes(menuID:)``.
    func refreshWaitTimes(menuID: Int) async throws {
        try await lifecycle.refreshWaitTimes(menuID: menuID)
    }

    /// What call `id`'s session carries for its agents.
    func customData(_ id: Int) async throws -> JSONValue {
        try await store.callCustomData(id: id)
    }

    /// The end user's call in progress, or a 404.
    func current(endUserID: Int) async throws -> CallResponse {
        guard let call = try await store.currentCall(endUserID: endUserID) else { throw HTTPError.notFound("no call in progress") }
        return call
    }

    /// The end user's own call `id`, or a 404 (another user's call is never found).
    func call(_ id: Int, endUserID: Int) async throws -> CallResponse {
        guard let call = try await store.call(id: id, endUserID: endUserID) else { throw HTTPError.notFound("there is no call \(id)") }
        return call
    }

    /// The end user puts a connected call on hold, or takes it off hold (either side's hold).
    func hold(_ call: CallResponse, onHold: Bool, endUserID: Int) async throws -> CallResponse {
        guard call.type == .instant else { throw HTTPError.conflict("call \(call.id) is a voicemail: there is no one to hold it for") }
        if call.status == (onHold ? .onHold : .connected) { return call }
        guard let moved = try await lifecycle.move(call.id, endUserID: endUserID, onHold ? .hold : .unhold) else {
            throw HTTPError.conflict("call \(call.id) is \(call.status.rawValue): only a connected call can be put on hold, "
                                     + "and only a held one taken off hold")
        }
        return moved
    }

    /// The device reports a cellular call: the call is `interrupted` until the app resumes it.
    func interrupt(_ call: CallResponse, endUserID: Int) async throws -> CallResponse {
        guard let moved = try await lifecycle.move(call.id, endUserID: endUserID, .interrupt) else {
            throw HTTPError.conflict("call \(call.id) is \(call.status.rawValue): only a connected or held call can be interrupted")
        }
        return moved
    }

    /// The app resumes an interrupted call (connected again); a call in progress that was
    /// not interrupted is answered as it is, an ended one is a `conflict`.
    func resume(_ call: CallResponse, endUserID: Int) async throws -> CallResponse {
        guard call.isInProgress else { throw ended(call) }
        guard call.status == .interrupted else { return call }
        guard let moved = try await lifecycle.move(call.id, endUserID: endUserID, .resume) else { throw ended(call) }
        return moved
    }

    /// Why the end user may not leave the virtual agent of `call` for a human, or nil when
    /// they may: while a virtual agent has the call, and while it waits on a queue whose
    /// virtual agent callers may skip (`allow_skip_virtual_agent`), as
    /// `CallResponse.canEscalate(allowSkipVirtualAgent:)` tells the app.
    func escalationRefusal(_ call: CallResponse) throws -> HTTPError? {
        guard call.isInProgress else { return ended(call) }
        if call.virtualAgent != nil, call.agent == nil { return nil }
        let voice = try queues.menu(call.menuId).channels?.voiceCall
        if call.status == .waiting, voice?.virtualAgent != nil, voice?.allowSkipVirtualAgent == true { return nil }
        if call.status == .waiting, voice?.virtualAgent != nil {
            return HTTPError.conflict("call \(call.id) waits for queue \(call.menuId)'s virtual agent, which callers may not skip "
                                      + "(its voice_call.allow_skip_virtual_agent is off)")
        }
        return HTTPError.conflict("call \(call.id) is \(call.status.rawValue) and no virtual agent has it: there is nothing to escalate")
    }

    /// The end user hangs up.
    func end(_ call: CallResponse, endUserID: Int) async throws -> CallResponse {
        guard let ended = try await lifecycle.end(call.id, endUserID: endUserID, reason: .endUser) else { throw ended(call) }
        return ended
    }

    private func ended(_ call: CallResponse) -> HTTPError {
        HTTPError.conflict("call \(call.id) has ended and cannot be resumed or changed")
    }
}
