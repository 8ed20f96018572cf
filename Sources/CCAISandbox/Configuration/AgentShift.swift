import Foundation

/// One shift of a human agent, every day in the company's time zone:
/// `shifts = { { from = "08:00", to = "16:00" }, { from = "22:00", to = "06:00" } }`. A `to`
/// earlier than `from` ends the next day; `from = "00:00", to = "24:00"` is the whole day.
/// Times are read as business hours' are (``BusinessHours/minute(of:)``).
public struct AgentShift: Codable, Sendable, Equatable {
    /// When the shift starts, `HH:MM`.
    public var from: String
    /// When it ends, `HH:MM`; before `from`, the next day.
    public var to: String

    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }

    /// The minute of the day the shift starts (`24:00` is midnight); nil when `from` is not a time.
    var startMinute: Int? { BusinessHours.minute(of: from).map { $0 % 1440 } }

    /// The minutes of the day the shift covers: one range, or two when it runs past
    /// midnight; nil when a time is malformed or the shift has no length.
    var ranges: [Range<Int>]? {
        guard let start = startMinute, let end = BusinessHours.minute(of: to) else { return nil }
        let wholeDay = start == 0 && end == 1440
        guard start != end % 1440 || wholeDay else { return nil }
        return start < end ? [start..<end] : [start..<1440, 0..<end].filter { !$0.isEmpty }
    }

    /// Whether the shift covers `minute` of the day.
    func covers(minute: Int) -> Bool {
        (ranges ?? []).contains { $0.contains(minute) }
    }

    /// Whether the two shifts share a minute of the day.
    func overlaps(_ other: AgentShift) -> Bool {
        (ranges ?? []).contains { range in (other.ranges ?? []).contains { $0.overlaps(range) } }
    }

    /// `08:00-16:00`.
    var summary: String { "\(from)-\(to)" }
}

extension AgentConfiguration {
    /// Whether the agent works at `date` in `timeZone`: always without shifts.
    func isOnShift(at date: Date, in timeZone: TimeZone) -> Bool {
        guard let shifts else { return true }
        let minute = BusinessHours.localTime(of: date, in: timeZone).minute
        return shifts.contains { $0.covers(minute: minute) }
    }

    /// The first start of one of the agent's shifts after `date` (nil without shifts).
    func nextShiftStart(after date: Date, in timeZone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return (shifts ?? []).compactMap { shift -> Date? in
            guard let start = shift.startMinute else { return nil }
            let time = DateComponents(hour: start / 60, minute: start % 60, second: 0)
            return calendar.nextDate(after: date, matching: time, matchingPolicy: .nextTime)
        }.min()
    }

    /// Every problem of the agent's shifts, naming the agent and the field: a time that is
    /// not `HH:MM`, a shift without length, two shifts that overlap, an empty list.
    func shiftProblems() -> [String] {
        guard let shifts else { return [] }
        let field = "agents[\(name)].shifts"
        guard !shifts.isEmpty else {
            return ["\(field): an empty list leaves the agent no time to work (without shifts it always works)"]
        }
        var problems: [String] = []
        for (index, shift) in shifts.enumerated() {
            for (key, text) in [("from", shift.from), ("to", shift.to)] where BusinessHours.minute(of: text) == nil {
                problems.append("\(field)[\(index + 1)].\(key): '\(text)' is not a time of day like 08:00 (00:00 to 24:00)")
            }
            if BusinessHours.minute(of: shift.from) != nil, BusinessHours.minute(of: shift.to) != nil, shift.ranges == nil {
                problems.append("\(field)[\(index + 1)]: from and to are the same time (\(shift.summary)): a shift needs a length")
            }
            for (earlier, other) in shifts.prefix(index).enumerated() where shift.overlaps(other) {
                problems.append("\(field)[\(index + 1)]: \(shift.summary) overlaps shifts[\(earlier + 1)] (\(other.summary))")
            }
        }
        return problems
    }
}
