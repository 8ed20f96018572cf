import Foundation

/// Opening hours per weekday: `{ mon = "09:00-17:00", tue = "09:00-12:00,13:00-17:00",
/// sat = false, sun = true }`. A missing day is closed; `true` is open all day.
public struct BusinessHours: Codable, Sendable, Equatable {
    public static let days = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// Minutes since midnight, [start, end) per day.
    var ranges: [String: [Range<Int>]]

    /// The week from Monday, days with the same hours together: `mon-fri 09:00-17:00;
    /// sat-sun closed`.
    public var summary: String {
        let week = Self.days.dropFirst() + [Self.days[0]]
        func hours(_ day: String) -> String {
            let list = ranges[day] ?? []
            if list.isEmpty { return "closed" }
            if list == [0..<1440] { return "all day" }
            return list.map(Self.text(of:)).joined(separator: ",")
        }
        var groups: [(first: String, last: String, hours: String)] = []
        for day in week {
            if let last = groups.last, last.hours == hours(day) {
                groups[groups.count - 1].last = day
            } else {
                groups.append((day, day, hours(day)))
            }
        }
        return groups.map { ($0.first == $0.last ? $0.first : "\($0.first)-\($0.last)") + " " + $0.hours }.joined(separator: "; ")
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode([String: DayValue].self)
        ranges = [:]
        for (day, value) in raw {
            guard BusinessHours.days.contains(day) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                    debugDescription: "'\(day)' is not a day (use \(BusinessHours.days.joined(separator: ", ")))"))
            }
            switch value {
            case .closed: ranges[day] = []
            case .allDay: ranges[day] = [0..<1440]
            case .text(let text):
                ranges[day] = try text.split(separator: ",").map { part in
                    guard let range = BusinessHours.parse(part.trimmingCharacters(in: .whitespaces)) else {
                        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                            debugDescription: "'\(text)' is not like \"09:00-17:00\" (for \(day))"))
                    }
                    return range
                }
            }
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        var raw: [String: String] = [:]
        for (day, list) in ranges {
            raw[day] = list.map(Self.text(of:)).joined(separator: ",")
        }
        try container.encode(raw)
    }

    private enum DayValue: Decodable {
        case closed, allDay, text(String)
        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                self = flag ? .allDay : .closed
            } else {
                self = .text(try container.decode(String.self))
            }
        }
    }

    /// `"09:00-17:00"` -> 540..<1020.
    static func parse(_ text: String) -> Range<Int>? {
        let bounds = text.split(separator: "-", omittingEmptySubsequences: false).map(minute(of:))
        guard bounds.count == 2, let start = bounds[0], let end = bounds[1], start < end else { return nil }
        return start..<end
    }

    /// `"09:00"` -> 540: minutes since midnight, `"24:00"` (1440) the latest; nil when the
    /// text is not `HH:MM`.
    static func minute(of text: some StringProtocol) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let hour = parts[0], let minute = parts[1], (0...24).contains(hour), (0...59).contains(minute)
        else { return nil }
        let total = hour * 60 + minute
        return total <= 1440 ? total : nil
    }

    /// `540` -> `"09:00"`.
    static func text(ofMinute minute: Int) -> String {
        String(format: "%02d:%02d", minute / 60, minute % 60)
    }

    /// `540..<1020` -> `"09:00-17:00"`.
    static func text(of range: Range<Int>) -> String {
        text(ofMinute: range.lowerBound) + "-" + text(ofMinute: range.upperBound)
    }

    /// The day (`"mon"`) and the minute since midnight of `date` in `timeZone`.
    static func localTime(of date: Date, in timeZone: TimeZone) -> (day: String, minute: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        return (BusinessHours.days[(parts.weekday ?? 1) - 1], (parts.hour ?? 0) * 60 + (parts.minute ?? 0))
    }

    /// Whether `date` falls in the hours, in `timeZone`.
    public func isOpen(at date: Date, in timeZone: TimeZone) -> Bool {
        let (day, minute) = BusinessHours.localTime(of: date, in: timeZone)
        return (ranges[day] ?? []).contains { $0.contains(minute) }
    }
}
