import Foundation

/// The moment a run begins (`--start`, `options.start`): ISO 8601, a date and a time of
/// day with an offset (`2026-12-07T08:00:00-08:00`, `...Z`) or without one, then in the
/// company's time zone (`2026-12-07T08:00`, `2026-12-07T08:00:00`, `2026-12-07` at midnight).
///
/// ```swift
/// let start = try ScenarioStart("2026-12-07T08:00")
/// let date = start.date(in: TimeZone(identifier: "America/Los_Angeles")!)   // 16:00 UTC
/// ```
public struct ScenarioStart: Sendable, Equatable, CustomStringConvertible {
    /// The text as given.
    public let text: String
    private let moment: Moment

    private enum Moment: Equatable {
        case absolute(Date)
        /// A date and time of day without an offset: read in a time zone when known.
        case local(DateComponents)
    }

    /// Why a text is not a start.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    private static let localFormats = ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"]

    public init(_ text: String) throws {
        self.text = text
        let withOffset = ISO8601DateFormatter()
        if let date = withOffset.date(from: text) {
            moment = .absolute(date)
            return
        }
        withOffset.formatOptions.insert(.withFractionalSeconds)
        if let date = withOffset.date(from: text) {
            moment = .absolute(date)
            return
        }
        guard let components = Self.localComponents(text) else {
            throw Problem(description: "an ISO 8601 time like 2026-12-07T08:00:00 (the company's time zone) or "
                          + "2026-12-07T08:00:00-08:00 expected, got '\(text.prefix(60))'")
        }
        moment = .local(components)
    }

    /// `date` in UTC (`2026-12-07T16:00:00Z`).
    public init(_ date: Date) {
        text = ISO8601DateFormatter().string(from: date)
        moment = .absolute(date)
    }

    /// The moment, reading a time without an offset in `timeZone`. A time that the zone
    /// skips (a daylight-saving gap: 02:30 on the night clocks go forward) is the moment
    /// the clocks reach it after the jump; a time the zone has twice, the first.
    public func date(in timeZone: TimeZone) -> Date {
        switch moment {
        case .absolute(let date):
            return date
        case .local(let components):
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = TimeZone(identifier: "UTC") ?? timeZone
            return calendar.date(from: components) ?? utc.date(from: components) ?? Date(timeIntervalSince1970: 0)
        }
    }

    public var description: String { text }

    /// The fields of a time without an offset, checked by reading it in UTC (where every
    /// date and time of day exists).
    private static func localComponents(_ text: String) -> DateComponents? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = TimeZone(identifier: "UTC")
        for format in localFormats {
            formatter.dateFormat = format
            if let date = formatter.date(from: text), let calendar = formatter.calendar {
                var utc = calendar
                utc.timeZone = formatter.timeZone
                return utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            }
        }
        return nil
    }
}
