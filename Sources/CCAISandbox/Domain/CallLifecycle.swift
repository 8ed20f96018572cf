import CCAIWire
import Foundation
import Timekeeping

/// The transitions of a call's life, said once for the routes, the agents and the
/// sandbox's restart, as ``ChatLifecycle`` says a chat's: each changes the stored call
/// only from the statuses its ``CallTransition`` starts from and publishes the changed
/// call to its end user as a `call_received`; one that does not apply is nil, and the
/// caller says why. A new call waiting and an ended one are also ``SessionChange``s for
/// the agent desk, told before the transition returns. A waiting call whose estimate
/// reaches its queue's threshold is offered its ``WaitDeflections`` once
/// (`deflection_offered`).
///
/// ```swift
/// guard let held = try await lifecycle.move(call.id, endUserID: owner, .hold) else {
///     throw HTTPError.conflict("call \(call.id) is not connected")
/// }
/// ```
struct CallLifecycle: Sendable {
    let store: SandboxStore
    let publisher: EventPublisher
    let clock: any TimeSource
    let changes: SessionChanges
    /// Each waiting call's estimate (the published formula).
    let estimator: WaitEstimator
    let deflections: WaitDeflections
    /// The post-session settings of a queue (its own over the company's), given to a call
    /// when it ends.
    let postSession: @Sendable (_ menuID: Int) -> PostSessionSettings

    /// Creates an end user's instant call, waiting, unless one is in progress (the store
    /// decides both in one transaction); a created call is published, handed to the desk
    /// and offered its deflection when its estimate is long.
    func create(endUserID: Int, menuID: Int, recordingPermission: RecordingPermission?, recorded: Bool,
                customData: JSONValue) async throws -> SandboxStore.CallCreation {
        let ahead = try await store.waitingCalls(menus: [menuID]).count
        let new = SandboxStore.NewCall.instant(recordingPermission: recordingPermission, recorded: recorded,
                                               estimatedWait: estimator.seconds(.voiceCall, menuID: menuID, ahead: ahead))
        let creation = try await store.createCall(endUserID: endUserID, menuID: menuID, new, customData: customData, now: clock.now())
        if case .created(let call) = creation {
            try await publisher.call(call, endUserID: endUserID)
            await changes.publish(.callWaiting(call, endUserID: endUserID))
            try await offerDeflection(call, endUserID: endUserID)
        }
        return creation
    }

    /// Creates an end user's voicemail, connected to the queue's box at once (no agent
    /// takes it), unless a call is in progress.
    func createVoicemail(endUserID: Int, menuID: Int, reason: VoicemailReason, customData: JSONValue) async throws
        -> SandboxStore.CallCreation
    {
        let creation = try await store.createCall(endUserID: endUserID, menuID: menuID, .voicemail(reason), customData: customData,
                                                  now: clock.now())
        if case .created(let call) = creation { try await publisher.call(call, endUserID: endUserID) }
        return creation
    }

    /// Books a scheduled call (``SandboxStore/bookScheduledCall(endUserID:_:customData:now:)``);
    /// the booking, and the one it replaced, are published.
    func book(endUserID: Int, _ booking: SandboxStore.Booking, customData: JSONValue) async throws -> SandboxStore.BookingOutcome {
        let outcome = try await store.bookScheduledCall(endUserID: endUserID, booking, customData: customData, now: clock.now())
        if case .booked(let call, let replaced) = outcome {
            if let replaced { try await publisher.call(replaced, endUserID: endUserID) }
            try await publisher.call(call, endUserID: endUserID)
        }
        return outcome
    }

    /// A booking came due: the call rings, and the end user's event stream hears
    /// `incoming_call`.
    func ring(_ callID: Int, endUserID: Int) async throws -> CallResponse? {
        guard let ringing = try await move(callID, endUserID: endUserID, .ring) else { return nil }
        try await publisher.publish(endUserID: endUserID, event: .incomingCall, encoding: ringing)
        return ringing
    }

    /// The app accepted a callback: the call waits, and the desk hears of it as of a new call.
    func accept(_ callID: Int, endUserID: Int) async throws -> CallResponse? {
        guard let waiting = try await move(callID, endUserID: endUserID, .accept) else { return nil }
        await changes.publish(.callWaiting(waiting, endUserID: endUserID))
        return waiting
    }

    /// Offers `call` its wait-time deflection when it is due and was not offered before.
    private func offerDeflection(_ call: CallResponse, endUserID: Int) async throws {
        guard let offer = deflections.offer(for: call, at: clock.now()), try await store.recordDeflection(offer) else { return }
        try await publisher.publish(endUserID: endUserID, event: .deflectionOffered, encoding: offer)
    }

    /// Moves a call along `transition` (an agent's name with ``CallTransition/assign``).
    func move(_ callID: Int, endUserID: Int, _ transition: CallTransition, agent: String? = nil) async throws -> CallResponse? {
        try await published(try await store.updateCall(id: callID, transition, agent: agent, now: clock.now()), endUserID)
    }

    /// The queue's virtual agent `name` answers a waiting call: connected, with it.
    func answer(_ callID: Int, endUserID: Int, virtualAgent name: String) async throws -> CallResponse? {
        try await published(try await store.answerCall(id: callID, virtualAgent: name, now: clock.now()), endUserID)
    }

    /// Leaves the virtual agent for human agents (``SandboxStore/escalateCall(id:)``); the
    /// desk hands the call on.
    func escalate(_ callID: Int, endUserID: Int) async throws -> CallResponse? {
        try await published(try await store.escalateCall(id: callID), endUserID)
    }

    /// Ends a call in progress for `reason` (``CallTransition/fail`` for a restart). A call
    /// someone talked on gets its queue's post-session settings, published with the end.
    func end(_ callID: Int, endUserID: Int, reason: CallEndReason, _ transition: CallTransition = .end) async throws
        -> CallResponse?
    {
        guard var ended = try await store.updateCall(id: callID, transition, endReason: reason, now: clock.now()) else { return nil }
        if transition == .end, let given = try await store.recordPostSession(callID: callID, postSession(ended.menuId)) { ended = given }
        try await publisher.call(ended, endUserID: endUserID)
        await changes.publish(.callEnded(ended))
        return ended
    }

    /// Moves an ended call's post-session phase from `from` (nil: not started) to `to`.
    func advancePostSession(_ callID: Int, endUserID: Int, from: PostSessionTransferStatus?, to: PostSessionTransferStatus)
        async throws -> CallResponse?
    {
        try await published(try await store.advancePostSession(callID: callID, from: from, to: to), endUserID)
    }

    /// A cold transfer: the call waits on another queue, without its agent.
    func transfer(_ callID: Int, endUserID: Int, toMenu menuID: Int) async throws -> CallResponse? {
        try await published(try await store.transferCall(id: callID, toMenu: menuID), endUserID)
    }

    /// Tells each call waiting on `menuID` its new estimate (`wait_time_updated`) when it
    /// changed (``WaitEstimator``, with the calls ahead of it). A call that just came to
    /// wait this long (a transfer) is offered its deflection.
    func refreshWaitTimes(menuID: Int) async throws {
        for (position, waiting) in try await store.waitingCalls(menus: [menuID]).enumerated() {
            let estimate = estimator.seconds(.voiceCall, menuID: menuID, ahead: position)
            var call = waiting.call
            if call.estimatedWait != estimate, let updated = try await store.updateEstimatedWait(callID: call.id, seconds: estimate) {
                call = updated
                try await publisher.publish(endUserID: waiting.endUserID, event: .waitTimeUpdated,
                                            encoding: CallWaitTimePayload(callId: call.id, estimatedWait: estimate))
            }
            try await offerDeflection(call, endUserID: waiting.endUserID)
        }
    }

    private func published(_ call: CallResponse?, _ endUserID: Int) async throws -> CallResponse? {
        if let call { try await publisher.call(call, endUserID: endUserID) }
        return call
    }
}
