import Foundation

/// The slots a queue offers scheduled calls: each `slot_minutes` from the start of every
/// range of its business hours that the slot fits in, in the company's time zone (a day
/// that skips or repeats an hour for daylight saving keeps the wall-clock times that
/// exist), starting after now and `notice_minutes` ahead, up to `days_ahead` days out; at
/// most ``maximumSlots`` of them, the soonest. A queue without hours is open all day.
///
/// ```swift
/// let planner = SlotPlanner(hours: menu.hours, timeZone: zone, scheduling: SchedulingConfiguration())
/// planner.starts(after: now)   // every half hour of the open hours, for a week
/// ```
struct SlotPlanner {
    let hours: BusinessHours?
    let timeZone: TimeZone
    let scheduling: SchedulingConfiguration

    /// The most slots one answer lists (five-minute slots all day for 60 days would be
    /// 17,280).
    static let maximumSlots = 1_000

    func starts(after now: Date) -> [Date] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let slot = scheduling.effectiveSlotMinutes
        let earliest = now.addingTimeInterval(Double(scheduling.effectiveNoticeMinutes) * 60)
        let horizon = now.addingTimeInterval(Double(scheduling.effectiveDaysAhead) * 86_400)
        let today = calendar.startOfDay(for: now)
        var starts = Set<Date>()
        for offset in 0...scheduling.effectiveDaysAhead {
            guard let day = calendar.date(byAdding: .day, value: offset, to: today) else { continue }
            let name = BusinessHours.days[calendar.component(.weekday, from: day) - 1]
            let ranges = hours.map { $0.ranges[name] ?? [] } ?? [0..<1_440]
            let date = calendar.dateComponents([.year, .month, .day], from: day)
            for range in ranges {
                for minute in stride(from: range.lowerBound, through: range.upperBound - slot, by: slot) {
                    var parts = date
                    (parts.hour, parts.minute) = (minute / 60, minute % 60)
                    guard let start = calendar.date(from: parts), start > now, start >= earliest, start < horizon,
                        calendar.component(.hour, from: start) * 60 + calendar.component(.minute, from: start) == minute
                    else { continue }
                    starts.insert(start)
                }
            }
        }
        return Array(starts.sorted().prefix(Self.maximumSlots))
    }
}
