import CCAIWire
import Foundation

/// Every change of a call's status: the statuses it may start from and the one it leads
/// to, one table as for chats (``ChatTransition``): the store's updates take their `WHERE
/// status` from here, and a transition from elsewhere changes nothing and is nil.
enum CallTransition: CaseIterable, Sendable {
    /// A human agent takes a waiting call: `connecting`, then `connected`.
    case assign, connect
    /// The queue's virtual agent answers a waiting call that nobody escalated.
    case answer
    /// The caller, or the virtual agent, asks for a human: the call waits again, for
    /// human agents only.
    case escalate
    /// The agent or the end user holds the call, and takes it off hold.
    case hold, unhold
    /// A cellular call on the device pauses the call; the app resumes it.
    case interrupt, resume
    /// A cold transfer: waiting on another queue, without its agent.
    case transfer
    /// By the end user or the agent.
    case end
    /// The platform restarted under the call.
    case fail
    /// A scheduled call comes due: the platform calls the end user back.
    case ring
    /// The app answers the callback: the call waits for an agent as an instant call does.
    case accept
    /// The app declines the callback, or it rings out.
    case decline
    /// The end user cancels a booking before it comes due (or books another slot instead).
    case cancel

    var from: [CallStatus] {
        switch self {
        case .assign, .answer: [.waiting]
        case .escalate: [.waiting, .connected, .onHold]
        case .connect: [.connecting]
        case .hold: [.connected]
        case .unhold: [.onHold]
        case .interrupt: [.connected, .onHold]
        case .resume: [.interrupted]
        case .transfer: [.connecting, .connected, .onHold]
        case .end, .fail: CallStatus.inProgress
        case .ring, .cancel: [.scheduled]
        case .accept, .decline: [.ringing]
        }
    }

    var to: CallStatus {
        switch self {
        case .assign: .connecting
        case .connect, .unhold, .resume, .answer: .connected
        case .hold: .onHold
        case .interrupt: .interrupted
        case .transfer, .accept, .escalate: .waiting
        case .end, .decline, .cancel: .ended
        case .fail: .failed
        case .ring: .ringing
        }
    }

    func condition() -> String {
        "status IN (" + from.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
    }
}

extension CallStatus {
    /// Every status of a live call: not over, and not only booked.
    static let inProgress = allCases.filter(\.isInProgress)
}

/// Voice calls: their signalling, as the platform keeps it.
extension SandboxStore {
    static func createCallTables(in database: SQLiteDatabase) throws {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS calls (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              end_user_id INTEGER NOT NULL REFERENCES end_users(id),
              menu_id INTEGER NOT NULL,
              type TEXT NOT NULL DEFAULT 'instant',
              status TEXT NOT NULL,
              agent_name TEXT,
              virtual_agent_name TEXT,
              escalated INTEGER NOT NULL DEFAULT 0,
              post_session TEXT,
              post_session_required INTEGER NOT NULL DEFAULT 0,
              post_session_opt_in INTEGER NOT NULL DEFAULT 0,
              post_session_status TEXT,
              recording_permission TEXT,
              recorded INTEGER NOT NULL,
              estimated_wait INTEGER,
              end_reason TEXT,
              voicemail_reason TEXT,
              deflection TEXT,
              phone_number TEXT,
              schedule_time REAL,
              rang_at REAL,
              custom_data TEXT NOT NULL,
              created_at REAL NOT NULL,
              connected_at REAL,
              ended_at REAL
            );
            CREATE INDEX IF NOT EXISTS calls_by_user ON calls (end_user_id, status);
            CREATE INDEX IF NOT EXISTS calls_by_status ON calls (status, menu_id);
            """)
        try addMissingColumns(in: database, to: "calls", [("type", "TEXT NOT NULL DEFAULT 'instant'"), ("voicemail_reason", "TEXT"),
                                                          ("deflection", "TEXT"), ("phone_number", "TEXT"), ("schedule_time", "REAL"),
                                                          ("rang_at", "REAL"), ("escalated", "INTEGER NOT NULL DEFAULT 0"),
                                                          ("post_session", "TEXT"), ("post_session_required", "INTEGER NOT NULL DEFAULT 0"),
                                                          ("post_session_opt_in", "INTEGER NOT NULL DEFAULT 0"),
                                                          ("post_session_status", "TEXT")])
        try database.execute("CREATE INDEX IF NOT EXISTS calls_by_type ON calls (type, id)")
        try database.execute("CREATE INDEX IF NOT EXISTS calls_by_slot ON calls (type, status, menu_id, schedule_time)")
    }

    enum CallCreation {
        case created(CallResponse)
        case inProgress(CallResponse)
    }

    /// What a new call record is: an instant call waits with its estimate, a voicemail is
    /// connected to the queue's box at once, recorded.
    enum NewCall {
        case instant(recordingPermission: RecordingPermission?, recorded: Bool, estimatedWait: Int)
        case voicemail(VoicemailReason)
    }

    /// Creates a call, unless the end user has one in progress (then that one is returned
    /// as `.inProgress`): both decided in one transaction.
    func createCall(endUserID: Int, menuID: Int, _ new: NewCall, customData: JSONValue, now: Date) throws -> CallCreation {
        try database.transaction {
            if let existing = try currentCall(endUserID: endUserID) { return .inProgress(existing) }
            let time = SQLiteValue.real(now.timeIntervalSince1970)
            let (type, status, permission, recorded, wait, reason, connected): (CallType, CallStatus, SQLiteValue, Bool, SQLiteValue,
                                                                                SQLiteValue, SQLiteValue)
            switch new {
            case .instant(let recordingPermission, let isRecorded, let estimatedWait):
                (type, status, permission, recorded) = (.instant, .waiting, recordingPermission.map { .text($0.rawValue) } ?? .null, isRecorded)
                (wait, reason, connected) = (.integer(Int64(estimatedWait)), .null, .null)
            case .voicemail(let voicemailReason):
                (type, status, permission, recorded, wait) = (.voicemail, .connected, .null, true, .null)
                (reason, connected) = (.text(voicemailReason.rawValue), time)
            }
            try database.run(
                """
                INSERT INTO calls (end_user_id, menu_id, type, status, recording_permission, recorded, estimated_wait, voicemail_reason,
                                   custom_data, created_at, connected_at)
                  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.integer(Int64(endUserID)), .integer(Int64(menuID)), .text(type.rawValue), .text(status.rawValue), permission,
                 .integer(recorded ? 1 : 0), wait, reason, .text(try customData.jsonText()), time, connected])
            guard let call = try call(id: Int(database.lastInsertRowID)) else { throw SQLiteError(code: 0, message: "the call vanished") }
            return .created(call)
        }
    }

    private static let callColumns =
        "id, menu_id, status, estimated_wait, agent_name, virtual_agent_name, recording_permission, recorded, end_reason, "
        + "created_at, connected_at, ended_at, type, voicemail_reason, phone_number, schedule_time, post_session_required, "
        + "post_session_opt_in, post_session_status"

    func calls(where condition: String, _ parameters: [SQLiteValue]) throws -> [CallResponse] {
        try database.query("SELECT \(SandboxStore.callColumns) FROM calls WHERE \(condition)", parameters).compactMap { row in
            guard let id = row[0].integerValue, let menuID = row[1].integerValue,
                let status = row[2].textValue.flatMap(CallStatus.init(rawValue:)), case .real(let created) = row[9]
            else { return nil }
            func time(_ value: SQLiteValue) -> Double? { if case .real(let seconds) = value { seconds } else { nil } }
            return CallResponse(id: Int(id), menuId: Int(menuID), type: row[12].textValue.flatMap(CallType.init(rawValue:)) ?? .instant,
                                status: status,
                                estimatedWait: status == .waiting ? row[3].integerValue.map { Int($0) } : nil,
                                agent: row[4].textValue.map { ChatAgent(name: $0) },
                                virtualAgent: row[5].textValue.map { ChatAgent(name: $0) },
                                recordingPermission: row[6].textValue.flatMap(RecordingPermission.init(rawValue:)),
                                recorded: row[7].integerValue == 1, endReason: row[8].textValue.map(CallEndReason.init(rawValue:)),
                                voicemailReason: row[13].textValue.flatMap(VoicemailReason.init(rawValue:)),
                                phoneNumber: row[14].textValue, scheduleTime: time(row[15]), createdAt: created,
                                connectedAt: time(row[10]), endedAt: time(row[11]), postSessionRequired: row[16].integerValue == 1,
                                postSessionOptInRequired: row[16].integerValue == 1 ? row[17].integerValue == 1 : nil,
                                postSessionTransferStatus: row[18].textValue.flatMap(PostSessionTransferStatus.init(rawValue:)))
        }
    }

    func call(id: Int) throws -> CallResponse? {
        try calls(where: "id = ?", [.integer(Int64(id))]).first
    }

    /// The end user's own call `id` (another user's call is never found).
    func call(id: Int, endUserID: Int) throws -> CallResponse? {
        try calls(where: "id = ? AND end_user_id = ?", [.integer(Int64(id)), .integer(Int64(endUserID))]).first
    }

    /// The end user whose call `id` is.
    func callOwner(id: Int) throws -> Int? {
        try database.query("SELECT end_user_id FROM calls WHERE id = ?", [.integer(Int64(id))]).first?.first?.integerValue.map { Int($0) }
    }

    /// The end user's call in progress, if any.
    func currentCall(endUserID: Int) throws -> CallResponse? {
        try calls(where: "end_user_id = ? AND status IN (\(Self.inProgressCallStatuses)) ORDER BY id DESC LIMIT 1",
                  [.integer(Int64(endUserID))]).first
    }

    /// Every call in progress with its end user (what a restart finds).
    func callsInProgress() throws -> [(call: CallResponse, endUserID: Int)] {
        try calls(where: "status IN (\(Self.inProgressCallStatuses)) ORDER BY id", []).compactMap { call in
            try callOwner(id: call.id).map { (call, $0) }
        }
    }

    /// The `limit` newest calls in progress that an agent or a virtual agent has, newest
    /// first, with their end users (the console's; those still waiting are in their queues).
    func latestCallsWithAnAgent(limit: Int) throws -> [(call: CallResponse, endUserID: Int)] {
        try calls(where: "status IN (\(Self.inProgressCallStatuses)) AND status != 'waiting' "
                  + "AND (agent_name IS NOT NULL OR virtual_agent_name IS NOT NULL) ORDER BY id DESC LIMIT ?", [.integer(Int64(limit))])
            .compactMap { call in try callOwner(id: call.id).map { (call, $0) } }
    }

    private static let inProgressCallStatuses = CallStatus.inProgress.map { "'\($0.rawValue)'" }.joined(separator: ", ")

    /// The calls waiting for an agent on `menus`, oldest first, with their end users.
    func waitingCalls(menus: [Int]) throws -> [(call: CallResponse, endUserID: Int)] {
        guard !menus.isEmpty else { return [] }
        let list = menus.map(String.init).joined(separator: ", ")
        return try calls(where: "status = 'waiting' AND menu_id IN (\(list)) ORDER BY id", []).compactMap { call in
            try callOwner(id: call.id).map { (call, $0) }
        }
    }

    /// Moves a call along `transition` (with its agent, when given); nil when the call is
    /// not in a status the transition starts from. The first connection is remembered, an
    /// end's reason and time are stored.
    func updateCall(id: Int, _ transition: CallTransition, agent: String? = nil, endReason: CallEndReason? = nil, now: Date)
        throws -> CallResponse?
    {
        let changed = try database.run(
            """
            UPDATE calls SET status = ?, agent_name = coalesce(?, agent_name),
              connected_at = CASE WHEN ? THEN coalesce(connected_at, ?) ELSE connected_at END,
              ended_at = CASE WHEN ? THEN ? ELSE ended_at END, end_reason = coalesce(?, end_reason),
              rang_at = CASE WHEN ? THEN ? ELSE rang_at END
              WHERE id = ? AND \(transition.condition())
            """,
            [.text(transition.to.rawValue), agent.map { .text($0) } ?? .null,
             .integer(transition == .connect ? 1 : 0), .real(now.timeIntervalSince1970),
             .integer(transition.to.isFinished ? 1 : 0), .real(now.timeIntervalSince1970),
             endReason.map { .text($0.rawValue) } ?? .null,
             .integer(transition == .ring ? 1 : 0), .real(now.timeIntervalSince1970), .integer(Int64(id))])
        return changed == 1 ? try call(id: id) : nil
    }

    /// Gives an ended call the post-session settings of its queue when someone talked on
    /// it (it connected, and it is not a voicemail); nil otherwise.
    func recordPostSession(callID: Int, _ settings: PostSessionSettings) throws -> CallResponse? {
        let changed = try database.run(
            """
            UPDATE calls SET post_session = ?, post_session_required = ?, post_session_opt_in = ?
              WHERE id = ? AND status = 'ended' AND type != 'voicemail' AND connected_at IS NOT NULL
            """,
            [try Self.json(settings), .integer(settings.isFlowConfigured ? 1 : 0), .integer(settings.optIn == true ? 1 : 0),
             .integer(Int64(callID))])
        return changed == 1 ? try call(id: callID) : nil
    }

    /// The queue's virtual agent `name` answers a waiting call that nobody escalated and
    /// no human has; nil otherwise.
    func answerCall(id: Int, virtualAgent name: String, now: Date) throws -> CallResponse? {
        let changed = try database.run(
            """
            UPDATE calls SET status = 'connected', virtual_agent_name = ?, connected_at = coalesce(connected_at, ?)
              WHERE id = ? AND escalated = 0 AND agent_name IS NULL AND \(CallTransition.answer.condition())
            """, [.text(name), .real(now.timeIntervalSince1970), .integer(Int64(id))])
        return changed == 1 ? try call(id: id) : nil
    }

    /// Leaves the virtual agent for human agents: a call a virtual agent has waits again
    /// without it, and a waiting call is marked so that its queue's virtual agent does not
    /// take it. Nil when a human has the call or it was escalated before.
    func escalateCall(id: Int) throws -> CallResponse? {
        let changed = try database.run(
            """
            UPDATE calls SET status = 'waiting', virtual_agent_name = NULL, escalated = 1
              WHERE id = ? AND escalated = 0 AND agent_name IS NULL AND \(CallTransition.escalate.condition())
                AND (virtual_agent_name IS NOT NULL OR status = 'waiting')
            """, [.integer(Int64(id))])
        return changed == 1 ? try call(id: id) : nil
    }

    /// A cold transfer: the call waits on `menuID`, without an agent.
    func transferCall(id: Int, toMenu menuID: Int) throws -> CallResponse? {
        let changed = try database.run(
            """
            UPDATE calls SET status = 'waiting', agent_name = NULL, virtual_agent_name = NULL, menu_id = ?
              WHERE id = ? AND \(CallTransition.transfer.condition())
            """,
            [.integer(Int64(menuID)), .integer(Int64(id))])
        return changed == 1 ? try call(id: id) : nil
    }

    /// Records a waiting call's new estimate; nil when it no longer waits.
    func updateEstimatedWait(callID: Int, seconds: Int) throws -> CallResponse? {
        let changed = try database.run("UPDATE calls SET estimated_wait = ? WHERE id = ? AND status = 'waiting'",
                                       [.integer(Int64(seconds)), .integer(Int64(callID))])
        return changed == 1 ? try call(id: callID) : nil
    }

    /// Records the wait-time deflection offered to a waiting call; false when one was
    /// offered before or the call no longer waits (an offer is made once).
    func recordDeflection(_ deflection: CallDeflection) throws -> Bool {
        let text = String(decoding: try JSONEncoder().encode(deflection), as: UTF8.self)
        return try database.run("UPDATE calls SET deflection = ? WHERE id = ? AND deflection IS NULL AND status = 'waiting'",
                                [.text(text), .integer(Int64(deflection.callId))]) == 1
    }

    /// The deflection offered to call `id`, if one was.
    func callDeflection(id: Int) throws -> CallDeflection? {
        guard let text = try database.query("SELECT deflection FROM calls WHERE id = ?", [.integer(Int64(id))]).first?.first?.textValue
        else { return nil }
        return try? JSONDecoder().decode(CallDeflection.self, from: Data(text.utf8))
    }

    /// A page of the voicemails left, by call id (the operator's view).
    func voicemails(after: Int, limit: Int) throws -> [VoicemailRecord] {
        try database.query("""
            SELECT id, menu_id, end_user_id, voicemail_reason, status, created_at, ended_at FROM calls
            WHERE type = 'voicemail' AND id > ? ORDER BY id LIMIT ?
            """, [.integer(Int64(after)), .integer(Int64(limit))]).compactMap { row in
            guard let id = row[0].integerValue, let menu = row[1].integerValue, let user = row[2].integerValue,
                let status = row[4].textValue.flatMap(CallStatus.init(rawValue:)), case .real(let created) = row[5]
            else { return nil }
            let ended: Double? = if case .real(let seconds) = row[6] { seconds } else { nil }
            return VoicemailRecord(callId: Int(id), menuId: Int(menu), endUserId: Int(user),
                                   reason: row[3].textValue.flatMap(VoicemailReason.init(rawValue:)), status: status,
                                   createdAt: created, endedAt: ended)
        }
    }

    /// A scheduled call to book: its slot, the number called back, what was decided about
    /// recording, and the booking it replaces.
    struct Booking {
        var menuID: Int
        var phoneNumber: String
        var scheduleTime: Double
        var recordingPermission: RecordingPermission?
        var recorded: Bool
        var callsPerSlot: Int
        var replacing: Int?
    }

    enum BookingOutcome {
        /// Booked; the booking it replaced, ended as `rescheduled`.
        case booked(CallResponse, replaced: CallResponse?)
        /// The slot has its calls.
        case slotTaken
        /// The end user has another booking (one at a time).
        case alreadyBooked(CallResponse)
        /// The call to reschedule is not the end user's booking still to come.
        case notReschedulable(CallResponse?)
    }

    /// Books a scheduled call in one transaction: the slot has room, the end user has no
    /// other booking, and the booking it replaces (its slot freed) ends as `rescheduled`.
    func bookScheduledCall(endUserID: Int, _ booking: Booking, customData: JSONValue, now: Date) throws -> BookingOutcome {
        try database.transaction {
            var replaced: CallResponse?
            if let id = booking.replacing {
                let old = try call(id: id, endUserID: endUserID)
                guard let old, old.type == .scheduled, old.status == .scheduled else { return .notReschedulable(old) }
                replaced = old
            }
            let other = Int64(booking.replacing ?? 0)
            if let existing = try calls(where: "end_user_id = ? AND type = 'scheduled' AND status = 'scheduled' AND id != ? LIMIT 1",
                                        [.integer(Int64(endUserID)), .integer(other)]).first {
                return .alreadyBooked(existing)
            }
            let taken = try database.query(
                "SELECT COUNT(*) FROM calls WHERE type = 'scheduled' AND status = 'scheduled' AND menu_id = ? AND schedule_time = ? AND id != ?",
                [.integer(Int64(booking.menuID)), .real(booking.scheduleTime), .integer(other)]).first?.first?.integerValue ?? 0
            guard taken < booking.callsPerSlot else { return .slotTaken }
            let time = SQLiteValue.real(now.timeIntervalSince1970)
            var ended: CallResponse?
            if let replaced {
                try database.run("UPDATE calls SET status = 'ended', end_reason = ?, ended_at = ? WHERE id = ?",
                                 [.text(CallEndReason.rescheduled.rawValue), time, .integer(Int64(replaced.id))])
                ended = try call(id: replaced.id)
            }
            try database.run(
                """
                INSERT INTO calls (end_user_id, menu_id, type, status, recording_permission, recorded, phone_number, schedule_time,
                                   custom_data, created_at)
                  VALUES (?, ?, 'scheduled', 'scheduled', ?, ?, ?, ?, ?, ?)
                """,
                [.integer(Int64(endUserID)), .integer(Int64(booking.menuID)), booking.recordingPermission.map { .text($0.rawValue) } ?? .null,
                 .integer(booking.recorded ? 1 : 0), .text(booking.phoneNumber), .real(booking.scheduleTime),
                 .text(try customData.jsonText()), time])
            guard let call = try call(id: Int(database.lastInsertRowID)) else { throw SQLiteError(code: 0, message: "the call vanished") }
            bookings.wake()
            return .booked(call, replaced: ended)
        }
    }

    /// The bookings of each slot of `menuID` from `start` on (Unix seconds), leaving out
    /// call `excluding` (a booking being moved frees its slot).
    func bookedSlots(menuID: Int, from start: Double, excluding: Int?) throws -> [Double: Int] {
        var counts: [Double: Int] = [:]
        for row in try database.query(
            """
            SELECT schedule_time, COUNT(*) FROM calls
            WHERE type = 'scheduled' AND status = 'scheduled' AND menu_id = ? AND schedule_time >= ? AND id != ?
            GROUP BY schedule_time
            """, [.integer(Int64(menuID)), .real(start), .integer(Int64(excluding ?? 0))]) {
            if case .real(let time) = row[0], let count = row[1].integerValue { counts[time] = Int(count) }
        }
        return counts
    }

    /// The bookings whose slot has come (`schedule_time` at or before `now`, Unix
    /// seconds), soonest first, with their end users.
    func scheduledCallsDue(now: Double) throws -> [(call: CallResponse, endUserID: Int)] {
        try calls(where: "type = 'scheduled' AND status = 'scheduled' AND schedule_time <= ? ORDER BY schedule_time, id", [.real(now)])
            .compactMap { call in try callOwner(id: call.id).map { (call, $0) } }
    }

    /// The callbacks ringing, with their end users and when each started to ring.
    /// Whether a call waits for the clock: booked and not yet due, or ringing.
    func hasCallsAwaitingTheClock() throws -> Bool {
        !(try database.query("SELECT 1 FROM calls WHERE status IN ('scheduled', 'ringing') LIMIT 1", [])).isEmpty
    }

    func callsRinging() throws -> [(call: CallResponse, endUserID: Int, rangAt: Date)] {
        try calls(where: "status = 'ringing' ORDER BY id", []).compactMap { call in
            let row = try database.query("SELECT end_user_id, rang_at FROM calls WHERE id = ?", [.integer(Int64(call.id))]).first
            guard let row, let owner = row[0].integerValue, case .real(let rang) = row[1] else { return nil }
            return (call, Int(owner), Date(timeIntervalSince1970: rang))
        }
    }

    /// What call `id`'s session carries for its agents.
    func callCustomData(id: Int) throws -> JSONValue {
        let text = try database.query("SELECT custom_data FROM calls WHERE id = ?", [.integer(Int64(id))]).first?.first?.textValue
        return text.flatMap { try? JSONValue(jsonText: $0) } ?? [:]
    }
}
