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
            return list.map { String(format: "%02d:%02d-%02d:%02d", $0.lowerBound / 60, $0.lowerBound % 60,
                                     $0.upperBound / 60, $0.upperBound % 60) }.joined(separator: ",")
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
            raw[day] = list.map { String(format: "%02d:%02d-%02d:%02d", $0.lowerBound / 60, $0.lowerBound % 60,
                                         $0.upperBound / 60, $0.upperBound % 60) }.joined(separator: ",")
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
        let bounds = text.split(separator: "-").map { $0.split(separator: ":").compactMap { Int($0) } }
        guard bounds.count == 2, bounds.allSatisfy({ $0.count == 2 && (0...24).contains($0[0]) && (0...59).contains($0[1]) })
        else { return nil }
        let start = bounds[0][0] * 60 + bounds[0][1], end = bounds[1][0] * 60 + bounds[1][1]
        guard start < end, end <= 1440 else { return nil }
        return start..<end
    }

    /// Whether `date` falls in the hours, in `timeZone`.
    public func isOpen(at date: Date, in timeZone: TimeZone) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        let day = BusinessHours.days[(parts.weekday ?? 1) - 1]
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        return (ranges[day] ?? []).contains { $0.contains(minute) }
    }
}
