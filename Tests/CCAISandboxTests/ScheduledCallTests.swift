@testable import CCAISandbox
import CCAIWire
import Foundation
import Synchronization
import TestSupport
import Testing
import Timekeeping

/// Scheduled calls: the slots from a queue's hours and capacity, booking, moving and
/// cancelling, and the callback when one comes due (ringing, a VoIP push, accepted,
/// declined, unanswered, busy).
@Suite struct ScheduledCallTests {
    /// Collects the pushes the sandbox sends, as an embedding program's sink would.
    final class CollectedPushes: PushSink {
        let pushes = Mutex<[PushRecord]>([])
        func deliver(_ push: PushRecord, to token: String) async { pushes.withLock { $0.append(push) } }
    }

    /// Monday 18:00 UTC (the company's zone): queue 10 is open Monday 18:00-19:00 and
    /// 20:00-21:00 and Tuesday 09:00-10:00, with half-hour slots of one call each, two
    /// days ahead, ringing 30 s; Ava takes its calls. Queue 8 has no scheduling.
    private static func sandbox(sink: (any PushSink)? = nil) async throws -> (Sandbox, ManualClock) {
        var configuration = try await LuaConfigurations.configuration("""
            menus = {
              { id = 10, name = "Callbacks", hours = { mon = "18:00-19:00,20:00-21:00", tue = "09:00-10:00" },
                channels = { voice_call = { instant = true, schedule = true, recording = "ask_user",
                  scheduling = { slot_minutes = 30, calls_per_slot = 1, days_ahead = 2, ring_seconds = 30 } } } },
              { id = 8, name = "Open", channels = { voice_call = { instant = true } } },
            },
            agents = { { name = "Ava", menus = { 10 } } }
            """)
        configuration.adminToken = "operator-token"
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        return (try Sandbox(configuration: configuration, clock: clock, pushSink: sink, log: { _ in }), clock)
    }

    private static let monday = QueueMenuTests.mondayMorning.timeIntervalSince1970   // 18:00
    private static func slot(hours: Double) -> Double { monday + hours * 3_600 }

    private func book(_ caller: CallingEndUser, at time: Double, phone: String = "+14155550123", moving: Int? = nil) async -> InProcessClient.Reply {
        let moved = moving.map { #", "call_id_for_rescheduling": \#($0)"# } ?? ""
        return await caller.call("POST", "/calls/scheduled",
                                 #"{"menu_id": 10, "phone_number": "\#(phone)", "schedule_time": \#(time)\#(moved)}"#)
    }

    private func slots(_ caller: CallingEndUser, moving: Int? = nil) async throws -> [Double] {
        let query = moving.map { ["call_id_for_rescheduling": String($0)] } ?? [:]
        return try await caller.call("GET", "/queue_menus/10/scheduled_time_slots", query: query).decode(as: ScheduledTimeSlots.self).timeSlots
    }

    @Test func slotsComeFromTheHoursAndTheCapacityAndABookingTakesOne() async throws {
        let (sandbox, _) = try await Self.sandbox()
        let client = InProcessClient(sandbox)
        let ana = try await CallingEndUser(client, "sched-ana"), bo = try await CallingEndUser(client, "sched-bo")
        let reply = await ana.call("GET", "/queue_menus/10/scheduled_time_slots")
        #expect(reply.status == 200, "\(reply.text)")
        let offered = try reply.decode(as: ScheduledTimeSlots.self)
        #expect(offered.slotMinutes == 30)
        #expect(offered.timeSlots == [0.5, 2, 2.5, 15, 15.5].map(Self.slot(hours:)),
                "Monday 18:30, 20:00, 20:30, Tuesday 09:00, 09:30 (not 18:00: it is now)")
        let none = await ana.call("GET", "/queue_menus/8/scheduled_time_slots")
        #expect(none.status == 409 && none.text.contains("does not take scheduled calls"), "\(none.text)")

        let created = await book(ana, at: Self.slot(hours: 0.5))
        #expect(created.status == 201, "\(created.text)")
        let booked = try created.decode(as: CallResponse.self)
        #expect(booked.type == .scheduled && booked.status == .scheduled && booked.scheduleTime == Self.slot(hours: 0.5))
        #expect(booked.phoneNumber == "+14155550123" && !booked.recorded, "ask_user without a grant: not recorded")
        #expect(await ana.call("GET", "/calls/current").status == 404, "a booking is not a call in progress")

        #expect(try await slots(bo) == [2, 2.5, 15, 15.5].map(Self.slot(hours:)), "18:30 has its one call")
        let taken = await book(bo, at: Self.slot(hours: 0.5))
        #expect(taken.status == 400 && taken.text.contains("is taken"), "\(taken.text)")
        let closed = await book(bo, at: Self.slot(hours: 1))
        #expect(closed.status == 400 && closed.text.contains("is not a slot queue 10 offers"), "\(closed.text)")
        let past = await book(bo, at: Self.slot(hours: -24))
        #expect(past.status == 400 && past.text.contains("is not a slot"), "\(past.text)")
        for phone in ["4155550123", "+0155550123", "+1415555012345678", "+1 415 555", "+1"] {
            let bad = await book(bo, at: Self.slot(hours: 2), phone: phone)
            #expect(bad.status == 400 && bad.text.contains("E.164"), "\(phone): \(bad.text)")
        }
        let boReply = await book(bo, at: Self.slot(hours: 2))
        #expect(boReply.status == 201, "\(boReply.text)")
        let boBooking = try boReply.decode(as: CallResponse.self)

        let second = await book(ana, at: Self.slot(hours: 2.5))
        #expect(second.status == 409 && second.text.contains("already booked (call \(booked.id)"), "\(second.text)")
        #expect(try await slots(ana, moving: booked.id) == [0.5, 2.5, 15, 15.5].map(Self.slot(hours:)),
                "the booking being moved frees its own slot, not Bo's")
        let others = await ana.call("GET", "/queue_menus/10/scheduled_time_slots", query: ["call_id_for_rescheduling": String(boBooking.id)])
        #expect(others.status == 404, "another user's booking is never found: \(others.text)")
        let notANumber = await ana.call("GET", "/queue_menus/10/scheduled_time_slots", query: ["call_id_for_rescheduling": "x"])
        #expect(notANumber.status == 400 && notANumber.text.contains("must be an integer"), "\(notANumber.text)")
        let movedReply = await book(ana, at: Self.slot(hours: 15), moving: booked.id)
        #expect(movedReply.status == 201, "\(movedReply.text)")
        let moved = try movedReply.decode(as: CallResponse.self)
        #expect(moved.id != booked.id && moved.scheduleTime == Self.slot(hours: 15))
        let old = try await ana.call("GET", "/calls/\(booked.id)").decode(as: CallResponse.self)
        #expect(old.status == .ended && old.endReason == .rescheduled)
        #expect(try await slots(bo).contains(Self.slot(hours: 0.5)), "the old slot is free again")
        let movedAgain = await book(ana, at: Self.slot(hours: 15.5), moving: booked.id)
        #expect(movedAgain.status == 409 && movedAgain.text.contains("ended"), "\(movedAgain.text)")

        let cancelled = try await ana.call("POST", "/calls/\(moved.id)/cancel").decode(as: CallResponse.self)
        #expect(cancelled.status == .ended && cancelled.endReason == .cancelled)
        let twice = await ana.call("POST", "/calls/\(moved.id)/cancel")
        #expect(twice.status == 409 && twice.text.contains("only a scheduled call that has not come due"), "\(twice.text)")
        #expect(await bo.call("POST", "/calls/\(moved.id)/cancel").status == 404)

        let instant = await bo.call("POST", "/calls", #"{"menu_id": 8}"#)
        #expect(instant.status == 201, "a booking does not keep its end user from calling now: \(instant.text)")
        let events = try await ana.events(.callReceived).compactMap { try? $0.decoded(as: CallResponse.self) }
        #expect(events.map(\.status) == [.scheduled, .ended, .scheduled, .ended], "each change of the bookings is published")
    }

    /// With nothing booked, the chore that places callbacks looks once, then waits an hour,
    /// so that idle simulated days cost a few of its runs (issue 38, item 12: a 30-day
    /// `ccai.sleep` cost 4.3 s of CPU); a booking wakes it, and the callback rings when due.
    @Test(.timeLimit(.minutes(1))) func theIdleChoreWaitsLongAndABookingWakesIt() async throws {
        let (sandbox, clock) = try await Self.sandbox()
        await clock.waitForTimers { $0.contains(5) }
        clock.advance(by: 5)
        await clock.waitForTimers { $0.contains(3_600) }
        let ana = try await CallingEndUser(InProcessClient(sandbox), "wake-ana")
        let booking = try await book(ana, at: Self.slot(hours: 0.5)).decode(as: CallResponse.self)
        await clock.waitForTimers { $0.contains(5) && !$0.contains(3_600) }
        clock.advance(by: 30 * 60 - 10)   // 18:29:55: the woken chore looks, not due yet, so again in 5 s
        await clock.waitForTimers { $0.contains(5) }
        clock.advance(by: 5)
        #expect(await eventually {
            (try? await ana.call("GET", "/calls/\(booking.id)").decode(as: CallResponse.self).status) == .ringing
        }, "rung when due, an hour's wait or not")
        withExtendedLifetime(sandbox) {}
    }

    @Test func aBookingThatComesDueRingsAndTheAcceptedCallbackReachesTheAgent() async throws {
        let sink = CollectedPushes()
        let (sandbox, clock) = try await Self.sandbox(sink: sink)
        let client = InProcessClient(sandbox)
        let ana = try await CallingEndUser(client, "ring-ana")
        let token = String(repeating: "ab", count: 32)
        #expect(await ana.call("PUT", "/push_tokens", #"{"type": "voip", "token": "\#(token)"}"#).status == 204)
        let booking = try await book(ana, at: Self.slot(hours: 0.5)).decode(as: CallResponse.self)

        clock.advance(by: 29 * 60)
        _ = try await sandbox.placeScheduledCallsDue()
        #expect(try await ana.call("GET", "/calls/\(booking.id)").decode(as: CallResponse.self).status == .scheduled, "not due yet")
        clock.advance(by: 60)
        _ = try await sandbox.placeScheduledCallsDue()
        let ringing = try await ana.call("GET", "/calls/\(booking.id)").decode(as: CallResponse.self)
        #expect(ringing.status == .ringing)
        #expect(try await ana.events(.incomingCall).compactMap { try? $0.decoded(as: CallResponse.self).id } == [booking.id])
        let pushed = try await client.call("GET", "/admin/pushes", token: "operator-token").decode(as: PushRecords.self).pushes
        #expect(pushed.map(\.payload) == [PushPayload(kind: .incomingCall, callId: booking.id)])
        #expect(pushed.first?.type == .voip && pushed.first?.tokenSuffix == "abababab" && pushed.first?.endUserId == ana.id)
        #expect(sink.pushes.withLock { $0 } == pushed, "the sink got what was recorded")
        #expect(await ana.call("GET", "/calls/current").status == 200, "a ringing callback is in progress")

        let accepted = await ana.call("POST", "/calls/\(booking.id)/accept")
        #expect(accepted.status == 200, "\(accepted.text)")
        #expect(try accepted.decode(as: CallResponse.self).status != .ringing)
        let talking = try await ana.call(booking.id) { $0.status == .connected }
        #expect(talking.agent?.name == "Ava" && talking.type == .scheduled)
        let again = await ana.call("POST", "/calls/\(booking.id)/accept")
        #expect(again.status == 409 && again.text.contains("only a callback that is ringing"), "\(again.text)")
        #expect(await client.call("GET", "/admin/pushes").status == 401)
    }

    @Test func aCallbackCanBeDeclinedRingsOutOrFindsItsEndUserBusy() async throws {
        let (sandbox, clock) = try await Self.sandbox()
        let client = InProcessClient(sandbox)
        let bo = try await CallingEndUser(client, "ring-bo"), cy = try await CallingEndUser(client, "ring-cy"), di = try await CallingEndUser(client, "ring-di")
        let declined = try await book(bo, at: Self.slot(hours: 0.5)).decode(as: CallResponse.self)
        let unanswered = try await book(cy, at: Self.slot(hours: 2)).decode(as: CallResponse.self)
        let busy = try await book(di, at: Self.slot(hours: 2.5)).decode(as: CallResponse.self)
        #expect(await bo.call("POST", "/calls/\(declined.id)/decline").status == 409, "not ringing yet")

        clock.advance(by: 30 * 60)
        _ = try await sandbox.placeScheduledCallsDue()
        let refused = try await bo.call("POST", "/calls/\(declined.id)/decline").decode(as: CallResponse.self)
        #expect(refused.status == .ended && refused.endReason == .declined)

        clock.advance(by: 90 * 60)
        _ = try await sandbox.placeScheduledCallsDue()
        #expect(try await cy.call("GET", "/calls/\(unanswered.id)").decode(as: CallResponse.self).status == .ringing)
        #expect(try await sandbox.pushes.records(after: 0, limit: 10).pushes.isEmpty, "no voip token, no push")
        clock.advance(by: 29)
        _ = try await sandbox.placeScheduledCallsDue()
        #expect(try await cy.call("GET", "/calls/\(unanswered.id)").decode(as: CallResponse.self).status == .ringing, "29 s of 30")
        clock.advance(by: 1)
        _ = try await sandbox.placeScheduledCallsDue()
        let rangOut = try await cy.call("GET", "/calls/\(unanswered.id)").decode(as: CallResponse.self)
        #expect(rangOut.status == .ended && rangOut.endReason == .noAnswer)

        #expect(await di.call("POST", "/calls", #"{"menu_id": 8}"#).status == 201)
        clock.advance(by: 30 * 60)
        _ = try await sandbox.placeScheduledCallsDue()
        let onAnotherCall = try await di.call("GET", "/calls/\(busy.id)").decode(as: CallResponse.self)
        #expect(onAnotherCall.status == .ended && onAnotherCall.endReason == .busy)
    }

    @Test func pushTokensAreCheckedAndCleared() async throws {
        let (sandbox, _) = try await Self.sandbox()
        let ana = try await CallingEndUser(InProcessClient(sandbox), "push-ana")
        for body in [#"{"type": "voip", "token": "not-hex!"}"#, #"{"type": "voip", "token": "abc"}"#,
                     #"{"type": "fax", "token": "abcdef0123"}"#, #"{"type": "apns", "token": "\#(String(repeating: "a", count: 201))"}"#] {
            #expect(await ana.call("PUT", "/push_tokens", body).status == 400, "\(body)")
        }
        #expect(await ana.call("PUT", "/push_tokens", #"{"type": "apns", "token": "ABCDEF0123"}"#).status == 204)
        let payload = PushPayload(kind: .chatMessage, chatId: 1, alert: "hi")
        #expect(try await sandbox.pushes.send(payload, type: .apns, endUserID: ana.id)?.tokenSuffix == "cdef0123", "stored lowercased")
        #expect(await ana.call("PUT", "/push_tokens", #"{"type": "apns", "token": null}"#).status == 204)
        #expect(try await sandbox.pushes.send(payload, type: .apns, endUserID: ana.id) == nil, "a cleared token gets nothing")
    }

    @Test func theSchedulingSettingsAreChecked() async throws {
        do {
            _ = try await LuaConfigurations.configuration("""
                menus = {
                  { id = 1, name = "A", channels = { voice_call = { instant = true, scheduling = { slot_minutes = 30 } } } },
                  { id = 2, name = "B", channels = { voice_call = { schedule = true,
                      scheduling = { slot_minutes = 2, calls_per_slot = 0, days_ahead = 90, notice_minutes = -1, ring_seconds = 1 } } } },
                }
                """)
            Issue.record("the settings are refused")
        } catch let error as ConfigurationError {
            let problems = error.problems
            #expect(problems.contains("menus[id 1].channels.voice_call.scheduling: needs the channel's schedule = true"), "\(problems)")
            for field in ["slot_minutes", "calls_per_slot", "days_ahead", "notice_minutes", "ring_seconds"] {
                #expect(problems.contains { $0.hasPrefix("menus[id 2].channels.voice_call.scheduling.\(field): ") }, "\(field): \(problems)")
            }
        }
    }

    /// A day that springs forward keeps the wall-clock slots that exist: 02:00 and 02:30
    /// do not happen in New York on 8 March 2026.
    @Test func slotsKeepToTheWallClockAcrossDaylightSaving() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        let hours = try JSONDecoder().decode(BusinessHours.self, from: Data(#"{"sun": "01:00-04:00"}"#.utf8))
        let saturdayNoon = Date(timeIntervalSince1970: 1_772_902_800)   // 2026-03-07 12:00 New York
        let starts = SlotPlanner(hours: hours, timeZone: zone, scheduling: SchedulingConfiguration(slotMinutes: 30, daysAhead: 1))
            .starts(after: saturdayNoon)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        #expect(starts.map { String(format: "%02d:%02d", calendar.component(.hour, from: $0), calendar.component(.minute, from: $0)) }
                == ["01:00", "01:30", "03:00", "03:30"])
    }
}
