import CCAIWire
import Foundation
import LuaRuntime
import Timekeeping

/// Writes log records as text lines to a file handle (standard error by default), one
/// line per record whatever the record holds (control characters are escaped:
/// ``TerminalText``):
///
///     03:05:02.123 INFO  chat started [quickstart.lua:12] chat_id=42 menu="Billing"
public struct StreamLogger: ScriptLogger {
    public let minimumLevel: LogLevel
    private let handle: FileHandle
    private let lock = NSLock()
    private let clock: (any TimeSource)?

    /// With `clock`, lines are stamped with its time when written (a simulation's, in
    /// virtual time) rather than with the record's.
    public init(minimumLevel: LogLevel = .info, handle: FileHandle = .standardError, clock: (any TimeSource)? = nil) {
        self.minimumLevel = minimumLevel
        self.handle = handle
        self.clock = clock
    }

    public func log(_ record: LogRecord) {
        guard record.level >= minimumLevel else { return }
        var record = record
        if let clock { record.time = clock.now() }
        lock.withLock { handle.write(Data((StreamLogger.format(record) + "\n").utf8)) }
    }

    /// The text of one record, without the line break (not thread-safe: the formatter is shared).
    public static func format(_ record: LogRecord) -> String {
        var line = timeFormatter.string(from: record.time) + " "
        line += record.level.rawValue.uppercased().padding(toLength: 5, withPad: " ", startingAt: 0) + " "
        line += record.message
        if let source = record.source { line += " [\(source)]" }
        for (key, value) in record.fields {
            line += " \(key)=\(formatValue(value))"
        }
        return TerminalText.escaped(line)
    }

    private static func formatValue(_ value: LuaValue) -> String {
        switch value {
        case .string(let text):
            let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
                $0.value > 0x20 && $0 != "\"" && $0 != "=" && $0.value != 0x7F
            }
            return plain ? text : (try? LuaJSON.encode(value)) ?? text
        case .table:
            return (try? LuaJSON.encode(value)) ?? value.description
        default:
            return value.description
        }
    }

    private static let timeFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "HH:mm:ss.SSS"
        return formatter
    }()
}
