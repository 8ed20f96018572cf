import Foundation
import LuaRuntime

/// Severity of a log record, lowest first.
public enum LogLevel: String, CaseIterable, Comparable, Sendable {
    case debug, info, warn, error

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One line of a script's log (`ccai.log.info("message", { key = value })`, or `print`).
public struct LogRecord: Sendable, Equatable {
    public var time: Date
    public var level: LogLevel
    public var message: String
    /// Structured fields, sorted by key.
    public var fields: [(key: String, value: LuaValue)]
    /// Where in the script it was logged (`"quickstart.lua:12"`), when known.
    public var source: String?

    public init(time: Date = Date(), level: LogLevel, message: String,
                fields: [(key: String, value: LuaValue)] = [], source: String? = nil) {
        self.time = time
        self.level = level
        self.message = message
        self.fields = fields
        self.source = source
    }

    public static func == (lhs: LogRecord, rhs: LogRecord) -> Bool {
        lhs.time == rhs.time && lhs.level == rhs.level && lhs.message == rhs.message && lhs.source == rhs.source
            && lhs.fields.map(\.key) == rhs.fields.map(\.key) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }
}

/// Where scripts' log records go. The host writes them to standard error; tests collect them.
public protocol ScriptLogger: Sendable {
    /// Records below this level are not produced at all.
    var minimumLevel: LogLevel { get }
    func log(_ record: LogRecord)
}
