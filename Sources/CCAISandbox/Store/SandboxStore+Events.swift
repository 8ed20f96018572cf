import CCAIWire
import Foundation

extension SandboxStore {
    /// The id of the end user's newest event, if any.
    func latestEventID(endUserID: Int) throws -> Int64? {
        try database.query("SELECT MAX(id) FROM events WHERE end_user_id = ?", [.integer(Int64(endUserID))]).first?.first?.integerValue
    }

    /// Records an event for an end user; returns its id (increasing, never reused).
    func appendEvent(endUserID: Int, name: String, jsonText: String, now: Date) throws -> Int64 {
        try database.run("INSERT INTO events (end_user_id, name, data, created_at) VALUES (?, ?, ?, ?)",
                         [.integer(Int64(endUserID)), .text(name), .text(jsonText), .real(now.timeIntervalSince1970)])
        return database.lastInsertRowID
    }

    /// An end user's events after `id`, oldest first: at most `limit` of them and, past the
    /// first, at most `maximumBytes` of data in all (a replay is paged by bytes, so a
    /// reconnect never loads more than that at once).
    func events(endUserID: Int, after id: Int64, limit: Int = 500, maximumBytes: Int = 256 << 10) throws -> [SandboxEvent] {
        var events: [SandboxEvent] = []
        var total = 0
        try database.query("SELECT id, name, data FROM events WHERE end_user_id = ? AND id > ? ORDER BY id LIMIT ?",
                           [.integer(Int64(endUserID)), .integer(id), .integer(Int64(limit))]) { row in
            guard let id = row[0].integerValue, let name = row[1].textValue, let data = row[2].textValue else { return true }
            total += data.utf8.count
            if !events.isEmpty, total > maximumBytes { return false }
            events.append(SandboxEvent(id: id, name: name, data: data))
            return true
        }
        return events
    }
}
