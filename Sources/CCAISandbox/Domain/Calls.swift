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
    let clock: any Clock

    /// Creates the call `request` asks for, waiting for an agent, or says why it cannot start.
    func start(_ request: InstantCallRequest, session: Session) async throws -> CallResponse {
        let menu = try queues.menu(request.menuId)
        let owner = try session.endUserID()
        if let existing = try await store.currentCall(endUserID: owner) { throw inProgress(existing) }
        guard let voice = menu.channels?.voiceCall else { throw HTTPError.badRequest("queue \(menu.id) has no voice channel") }
        guard voice.instant == true else {
            throw HTTPError.badRequest("queue \(menu.id) does not take instant calls (its voice channel's instant is off)")
        }
        let recorded = try recordingDecision(voice.recording ?? .never, request.recordingPermission, menuID: menu.id)
        try await quotas.check(.calls, endUserID: owner)
        let engine = try await queues.engine()
        if let deflection = engine.deflection(menu) {
            throw HTTPError.conflict("queue \(menu.id) is not taking calls now (\(deflection.reason)); voicemail is the way in")
        }
        let customData = try CustomDataIntake(configuration: configuration, clock: clock).sessionData(request.customData, session: session)
        switch try await lifecycle.create(endUserID: owner, menuID: menu.id, recordingPermission: request.recordingPermission,
                                          recorded: recorded, agents: engine.agents(for: menu), customData: customData)
        {
        case .inProgress(let existing): throw inProgress(existing)
        case .created(let call): return call
        }
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

    /// The calls waiting for an agent on `menus`, oldest first.
    func waiting(onMenus menus: [Int]) async throws -> [(call: CallResponse, endUserID: Int)] {
        try await store.waitingCalls(menus: menus)
    }

    /// Tells the calls waiting on a queue their new estimates, after the line moved (a
    /// call taken, ended or transferred): ``CallLifecycle/refreshWaitTimes(menuID:agents:)``
    /// with the queue's agents.
    func refreshWaitTimes(menuID: Int) async throws {
        let agents = (configuration.agents ?? []).filter { $0.menus.contains(menuID) }.count
        try await lifecycle.refreshWaitTimes(menuID: menuID, agents: agents)
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

    /// The end user hangs up.
    func end(_ call: CallResponse, endUserID: Int) async throws -> CallResponse {
        guard let ended = try await lifecycle.end(call.id, endUserID: endUserID, reason: .endUser) else { throw ended(call) }
        return ended
    }

    private func ended(_ call: CallResponse) -> HTTPError {
        HTTPError.conflict("call \(call.id) has ended and cannot be resumed or changed")
    }
}
