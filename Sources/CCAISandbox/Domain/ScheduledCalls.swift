import CCAIWire
import Foundation
import Timekeeping

/// Scheduled calls (seed 002; docs/calls.md): the slots a queue offers, a booking and its
/// move to another slot or its cancellation, and the callback when it comes due.
///
/// A queue whose voice channel has `schedule = true` offers the slots of ``SlotPlanner``
/// (its `scheduling`, business hours in the company's time zone on the business clock);
/// a slot takes `calls_per_slot` bookings, the queue's agents (at least 1) by default. An
/// end user holds one booking at a time; booking with `call_id_for_rescheduling` moves it
/// (the old call ends as `rescheduled`, its slot freed), in one transaction with the
/// checks. A booking is a call of type `scheduled` in status `scheduled`, which is not in
/// progress: instant calls and chats go on meanwhile.
///
/// When the slot comes, the platform calls back: the call `ringing`, an `incoming_call`
/// on the end user's event stream and a VoIP push to their `voip` token. The app accepts
/// (the call waits for an agent like an instant call) or declines; after `ring_seconds` it
/// ends as `no_answer`, and if the end user is on another call then, as `busy`.
///
/// ```swift
/// let slots = try await scheduled.slots(menuID: 1, rescheduling: nil, endUserID: owner)
/// let booking = try await scheduled.book(request, session: session)
/// ```
struct ScheduledCalls: Sendable {
    let configuration: SandboxConfiguration
    let store: SandboxStore
    let lifecycle: CallLifecycle
    let calls: Calls
    let queues: Queues
    let quotas: Quotas
    let pushes: Pushes
    let clock: any TimeSource
    /// Business hours' time: slots are in it, and a booking comes due by it.
    let businessClock: any TimeSource

    /// The slots `menuID` offers now; with `rescheduling`, the end user's booking being
    /// moved does not count against its own slot.
    func slots(menuID: Int, rescheduling: Int?, endUserID: Int) async throws -> ScheduledTimeSlots {
        let menu = try queues.menu(menuID)
        let scheduling = try schedulingSettings(menu)
        if let rescheduling { _ = try await booking(rescheduling, endUserID: endUserID) }
        let offered = try await open(menu, scheduling, rescheduling: rescheduling)
        return ScheduledTimeSlots(menuId: menu.id, slotMinutes: scheduling.effectiveSlotMinutes,
                                  timeSlots: offered.map(\.timeIntervalSince1970))
    }

    /// Books the slot `request` asks for, or says why not: a bad number or slot is a 400
    /// naming it, a slot with its calls too; a queue without scheduling or a second
    /// booking is a 409.
    func book(_ request: ScheduledCallRequest, caller: Caller) async throws -> CallResponse {
        let menu = try queues.menu(request.menuId)
        let owner = try caller.endUserID()
        let scheduling = try schedulingSettings(menu)
        guard PhoneNumber.isE164(request.phoneNumber) else {
            throw HTTPError.badRequest("phone_number: '\(TerminalText.escaped(String(request.phoneNumber.prefix(40))))' is not "
                                       + "in E.164 form: a '+', the country code and the number, up to 15 digits (like +14155550123)")
        }
        if let rescheduling = request.callIdForRescheduling { _ = try await booking(rescheduling, endUserID: owner) }
        let slots = try SlotPlanner(hours: menu.hours ?? configuration.hours, timeZone: timeZone, scheduling: scheduling)
            .starts(after: businessClock.now()).map(\.timeIntervalSince1970)
        guard request.scheduleTime.isFinite, slots.contains(request.scheduleTime) else {
            throw HTTPError.badRequest("schedule_time: \(describe(request.scheduleTime)) is not a slot queue \(menu.id) offers "
                                       + "(get_scheduled_time_slots lists them: every \(scheduling.effectiveSlotMinutes) minutes "
                                       + "of its hours, from now to \(scheduling.effectiveDaysAhead) days ahead)")
        }
        let recorded: Bool
        switch menu.channels?.voiceCall?.recording ?? .never {
        case .always: recorded = true
        case .never: recorded = false
        case .askUser: recorded = request.recordingPermission == .granted
        }
        try await quotas.check(.calls, endUserID: owner)
        let customData = try CustomDataIntake(configuration: configuration, clock: clock).sessionData(request.customData, caller: caller)
        let booking = SandboxStore.Booking(menuID: menu.id, phoneNumber: request.phoneNumber, scheduleTime: request.scheduleTime,
                                           recordingPermission: request.recordingPermission, recorded: recorded,
                                           callsPerSlot: callsPerSlot(menu, scheduling), replacing: request.callIdForRescheduling)
        switch try await lifecycle.book(endUserID: owner, booking, customData: customData) {
        case .booked(let call, _): return call
        case .slotTaken:
            throw HTTPError.badRequest("schedule_time: the slot at \(describe(request.scheduleTime)) is taken "
                                       + "(get_scheduled_time_slots lists the slots still open)")
        case .alreadyBooked(let existing):
            throw HTTPError.conflict("a scheduled call is already booked (call \(existing.id) at \(describe(existing.scheduleTime ?? 0))); "
                                     + "reschedule it (call_id_for_rescheduling) or cancel it first")
        case .notReschedulable(let call):
            throw notReschedulable(call, request.callIdForRescheduling ?? 0)
        }
    }

    /// Cancels the end user's booking `call` before it comes due.
    func cancel(_ call: CallResponse, endUserID: Int) async throws -> CallResponse {
        guard call.type == .scheduled else { throw HTTPError.conflict("call \(call.id) is not a scheduled call") }
        guard let cancelled = try await lifecycle.end(call.id, endUserID: endUserID, reason: .cancelled, .cancel) else {
            throw HTTPError.conflict("call \(call.id) is \(call.status.rawValue): only a scheduled call that has not come due can be cancelled")
        }
        return cancelled
    }

    /// The app answers the callback `call`: it waits for an agent.
    func accept(_ call: CallResponse, endUserID: Int) async throws -> CallResponse {
        guard let waiting = try await lifecycle.accept(call.id, endUserID: endUserID) else { throw notRinging(call) }
        try await calls.refreshWaitTimes(menuID: waiting.menuId)
        return try await store.call(id: waiting.id) ?? waiting
    }

    /// The app declines the callback `call`.
    func decline(_ call: CallResponse, endUserID: Int) async throws -> CallResponse {
        guard let declined = try await lifecycle.end(call.id, endUserID: endUserID, reason: .declined, .decline) else {
            throw notRinging(call)
        }
        return declined
    }

    /// Rings every booking whose slot has come (the sandbox does it every 5 seconds of its
    /// clock), and ends as `no_answer` every callback that rang for `ring_seconds`;
    /// returns the calls it changed.
    func placeCallsDue() async throws -> [CallResponse] {
        var changed: [CallResponse] = []
        for (call, endUserID) in try await store.scheduledCallsDue(now: businessClock.now().timeIntervalSince1970) {
            if try await store.currentCall(endUserID: endUserID) != nil {
                if let busy = try await lifecycle.end(call.id, endUserID: endUserID, reason: .busy, .cancel) { changed.append(busy) }
            } else if let ringing = try await lifecycle.ring(call.id, endUserID: endUserID) {
                try await pushes.send(PushPayload(kind: .incomingCall, callId: ringing.id), type: .voip, endUserID: endUserID)
                changed.append(ringing)
            }
        }
        for (call, endUserID, rangAt) in try await store.callsRinging() {
            let ringSeconds = (try? queues.menu(call.menuId))?.channels?.voiceCall?.scheduling?.effectiveRingSeconds
                ?? SchedulingConfiguration.defaultRingSeconds
            guard clock.now().timeIntervalSince(rangAt) >= ringSeconds else { continue }
            if let unanswered = try await lifecycle.end(call.id, endUserID: endUserID, reason: .noAnswer, .decline) {
                changed.append(unanswered)
            }
        }
        return changed
    }

    private var timeZone: TimeZone { TimeZone(identifier: configuration.company.timeZone) ?? .current }

    /// The queue's scheduling, or a 409 when it takes no scheduled calls (the queue's
    /// state, not the request's form).
    private func schedulingSettings(_ menu: MenuConfiguration) throws -> SchedulingConfiguration {
        guard let voice = menu.channels?.voiceCall, voice.schedule == true else {
            throw HTTPError.conflict("queue \(menu.id) does not take scheduled calls (its voice channel's schedule is off)")
        }
        return voice.scheduling ?? SchedulingConfiguration()
    }

    private func callsPerSlot(_ menu: MenuConfiguration, _ scheduling: SchedulingConfiguration) -> Int {
        scheduling.callsPerSlot ?? max(1, (configuration.agents ?? []).filter { $0.menus.contains(menu.id) }.count)
    }

    /// The slots of `menu` that have room.
    private func open(_ menu: MenuConfiguration, _ scheduling: SchedulingConfiguration, rescheduling: Int?) async throws -> [Date] {
        let starts = SlotPlanner(hours: menu.hours ?? configuration.hours, timeZone: timeZone, scheduling: scheduling)
            .starts(after: businessClock.now())
        guard let first = starts.first else { return [] }
        let booked = try await store.bookedSlots(menuID: menu.id, from: first.timeIntervalSince1970, excluding: rescheduling)
        let room = callsPerSlot(menu, scheduling)
        return starts.filter { (booked[$0.timeIntervalSince1970] ?? 0) < room }
    }

    /// The end user's booking `id` still to come, or why it is not one.
    private func booking(_ id: Int, endUserID: Int) async throws -> CallResponse {
        let call = try await store.call(id: id, endUserID: endUserID)
        guard let call, call.type == .scheduled, call.status == .scheduled else { throw notReschedulable(call, id) }
        return call
    }

    private func notReschedulable(_ call: CallResponse?, _ id: Int) -> HTTPError {
        guard let call else { return HTTPError.notFound("call_id_for_rescheduling: there is no call \(id)") }
        return HTTPError.conflict("call_id_for_rescheduling: call \(id) is " + (call.type == .scheduled ? call.status.rawValue : "not a scheduled call")
                                  + "; only a scheduled call that has not come due can be moved")
    }

    private func notRinging(_ call: CallResponse) -> HTTPError {
        HTTPError.conflict("call \(call.id) is \(call.status.rawValue): only a callback that is ringing can be accepted or declined")
    }

    private func describe(_ time: Double) -> String {
        guard time.isFinite, abs(time) < 1e11 else { return "\(time)" }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = timeZone
        return "\(Checked.truncated(time) ?? 0) (\(formatter.string(from: Date(timeIntervalSince1970: time))))"
    }
}
