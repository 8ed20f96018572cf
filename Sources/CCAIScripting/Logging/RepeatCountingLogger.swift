import CCAIWire
import Foundation
import LuaRuntime

/// A logger for runs of many VUs: a warning or an error that has been logged already (the
/// same level, message, fields and place) is counted instead of written again, so that
/// ten thousand VUs failing alike write one line, and ``repeats()`` says how often each
/// came back. Debug and info records pass through as they are.
///
/// ```swift
/// let logger = RepeatCountingLogger(StreamLogger())
/// // ... the run ...
/// for line in logger.repeats() { printError(line) }   // "3999 more times: ERROR ..."
/// ```
public final class RepeatCountingLogger: ScriptLogger, @unchecked Sendable {
    private let base: ScriptLogger
    private let lock = NSLock()
    private var seen: [String: Int] = [:]
    /// In the order they first came.
    private var order: [String] = []
    /// The most distinct warnings and errors remembered; past it, new ones are written as they come.
    static let maximumDistinct = 10_000

    public init(_ base: ScriptLogger) { self.base = base }

    public var minimumLevel: LogLevel { base.minimumLevel }

    public func log(_ record: LogRecord) {
        guard record.level >= .warn else { return base.log(record) }
        let key = Self.key(record)
        let first: Bool = lock.withLock {
            if let count = seen[key] {
                seen[key] = count + 1
                return false
            }
            guard seen.count < Self.maximumDistinct else { return true }
            seen[key] = 1
            order.append(key)
            return true
        }
        if first { base.log(record) }
    }

    /// A line for each warning or error that came more than once: how many more times,
    /// and the record as it was written.
    public func repeats() -> [String] {
        lock.withLock {
            order.compactMap { key in
                guard let count = seen[key], count > 1 else { return nil }
                return "\(count - 1) more time\(count == 2 ? "" : "s"): \(key)"
            }
        }
    }

    /// What the record says, its time aside: `ERROR message [file.lua:3] key=value`.
    private static func key(_ record: LogRecord) -> String {
        var line = record.level.rawValue.uppercased() + " " + record.message
        if let source = record.source { line += " [\(source)]" }
        for (key, value) in record.fields { line += " \(key)=\(value.description)" }
        return TerminalText.escaped(line)
    }
}
