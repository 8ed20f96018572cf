import CCAIScripting
import Foundation

/// A logger that keeps every record, for assertions.
final class CapturingLogger: ScriptLogger, @unchecked Sendable {
    let minimumLevel: LogLevel
    private let lock = NSLock()
    private var _records: [LogRecord] = []

    init(minimumLevel: LogLevel = .debug) {
        self.minimumLevel = minimumLevel
    }

    var records: [LogRecord] { lock.withLock { _records } }
    var messages: [String] { records.map(\.message) }

    func log(_ record: LogRecord) {
        lock.withLock { _records.append(record) }
    }
}
