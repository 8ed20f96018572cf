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
    private let absolute: Date?

    /// Why a text is not a start.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    private static let localFormats = ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"]

    public init(_ text: String) throws {
        self.text = text
        let withOffset = ISO8601DateFormatter()
        if let date = withOffset.date(from: text) {
            absolute = date
            return
        }
        withOffset.formatOptions.insert(.withFractionalSeconds)
        if let date = withOffset.date(from: text) {
            absolute = date
            return
        }
        absolute = nil
        guard Self.local(text, in: TimeZone(identifier: "UTC")!) != nil else {
            throw Problem(description: "an ISO 8601 time like 2026-12-07T08:00:00 (the company's time zone) or "
                          + "2026-12-07T08:00:00-08:00 expected, got '\(text.prefix(60))'")
        }
    }

    /// `date` in UTC (`2026-12-07T16:00:00Z`).
    public init(_ date: Date) {
        text = ISO8601DateFormatter().string(from: date)
        absolute = date
    }

    /// The moment, reading a time without an offset in `timeZone`.
    public func date(in timeZone: TimeZone) -> Date {
        absolute ?? Self.local(text, in: timeZone)!
    }

    public var description: String { text }

    private static func local(_ text: String, in timeZone: TimeZone) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = timeZone
        for format in localFormats {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
