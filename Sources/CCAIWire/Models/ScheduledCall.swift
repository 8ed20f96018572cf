import Foundation

/// What `getScheduledTimeSlots` answers (seed 002): the start of every slot a queue still
/// offers, from its business hours in the company's time zone and its calls per slot,
/// soonest first. The seeds name the call, not its answer's fields: these are the sandbox's.
///
/// ```swift
/// let slots = try await calls.getScheduledTimeSlots(menuId: 1)   // [Date], each a slot's start
/// ```
public struct ScheduledTimeSlots: Codable, Equatable, Sendable {
    public var menuId: Int
    /// How long each slot is, in minutes.
    public var slotMinutes: Int
    /// The start of each slot offered, Unix seconds.
    public var timeSlots: [Double]

    enum CodingKeys: String, CodingKey {
        case menuId = "menu_id"
        case slotMinutes = "slot_minutes"
        case timeSlots = "time_slots"
    }

    public init(menuId: Int, slotMinutes: Int, timeSlots: [Double]) {
        self.menuId = menuId
        self.slotMinutes = slotMinutes
        self.timeSlots = timeSlots
    }
}

/// What `createScheduledCall` sends (seed 002): a slot of ``ScheduledTimeSlots``, the
/// number to call back in E.164 (`+` and up to 15 digits), and, to move a booking, the call
/// it replaces (`callIdForRescheduling`, whose slot is freed).
///
/// ```swift
/// ScheduledCallRequest(menuId: 1, phoneNumber: "+14155550123", scheduleTime: slots[0])
/// ```
public struct ScheduledCallRequest: Codable, Equatable, Sendable {
    public var menuId: Int
    public var phoneNumber: String
    /// The slot's start, Unix seconds.
    public var scheduleTime: Double
    /// `not_asked` unless the app asked: a queue that asks (`ask_user`) records a
    /// scheduled call only when it was `granted`.
    public var recordingPermission: RecordingPermission?
    public var callIdForRescheduling: Int?
    public var customData: CustomData?
    public var ticketId: String?

    enum CodingKeys: String, CodingKey {
        case menuId = "menu_id"
        case phoneNumber = "phone_number"
        case scheduleTime = "schedule_time"
        case recordingPermission = "recording_permission"
        case callIdForRescheduling = "call_id_for_rescheduling"
        case customData = "custom_data"
        case ticketId = "ticket_id"
    }

    public init(menuId: Int, phoneNumber: String, scheduleTime: Date, recordingPermission: RecordingPermission? = .notAsked,
                callIdForRescheduling: Int? = nil, customData: CustomData? = nil, ticketId: String? = nil) {
        self.menuId = menuId
        self.phoneNumber = phoneNumber
        self.scheduleTime = scheduleTime.timeIntervalSince1970
        self.recordingPermission = recordingPermission
        self.callIdForRescheduling = callIdForRescheduling
        self.customData = customData
        self.ticketId = ticketId
    }
}

/// E.164 numbers: a `+`, a country code that does not start with 0, up to 15 digits in all.
public enum PhoneNumber {
    /// Whether `text` is a number in E.164 form.
    ///
    /// ```swift
    /// PhoneNumber.isE164("+14155550123")   // true
    /// PhoneNumber.isE164("4155550123")     // false: no country code
    /// ```
    public static func isE164(_ text: String) -> Bool {
        let digits = text.utf8.dropFirst()
        return text.utf8.first == UInt8(ascii: "+") && (2...15).contains(digits.count)
            && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } && digits.first != UInt8(ascii: "0")
    }
}
