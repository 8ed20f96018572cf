import CSQLite
import Foundation

/// Whether the store has room to write: a disk that is full (SQLite's `SQLITE_FULL`, or an
/// I/O error writing) is the server being unavailable for a while, not a bug, so requests
/// that hit it answer `503 unavailable` with `Retry-After`, and `GET /healthz` answers 503
/// while the store's file system has less than ``minimumFreeBytes`` free, so that a load
/// balancer stops sending it work.
///
/// ```swift
/// let room = StorageRoom(directory: "/var/lib/ccai")
/// room.problem    // nil, or "the sandbox's disk has 3 MiB free ..."
/// ```
struct StorageRoom: Sendable {
    /// Below this free on the store's file system, `/healthz` says the sandbox is unavailable.
    static let minimumFreeBytes = 64 << 20
    /// The wait a 503 for want of room asks for.
    static let retryAfterSeconds = 30

    /// The store's folder; nil for a store in memory (always room, as far as the disk goes).
    let directory: String?
    /// Bytes free for an unprivileged writer on the file system of `directory`.
    var freeBytes: @Sendable (String) -> Int? = StorageRoom.freeBytes(at:)

    /// Why the store has no room, if it has not.
    var problem: String? {
        guard let directory, let free = freeBytes(directory), free < Self.minimumFreeBytes else { return nil }
        return "the sandbox's disk has \(free >> 20) MiB free, less than the \(Self.minimumFreeBytes >> 20) MiB it needs to store"
    }

    static func freeBytes(at path: String) -> Int? {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return nil }
        let (bytes, overflow) = Int(status.f_bavail).multipliedReportingOverflow(by: Int(status.f_frsize))
        return overflow ? Int.max : bytes
    }
}

extension SQLiteError {
    /// Whether the write failed for want of room or of a working disk (`SQLITE_FULL`,
    /// `SQLITE_IOERR` and their extended codes).
    var isStorageFailure: Bool {
        let primary = code & 0xFF
        return primary == SQLITE_FULL || primary == SQLITE_IOERR
    }
}

extension HTTPError {
    /// The answer to a request the store could not serve for want of room: a 503
    /// `unavailable` with `Retry-After`; nil for any other error.
    init?(storage error: any Error) {
        guard let error = error as? SQLiteError, error.isStorageFailure else { return nil }
        self.init(code: .unavailable,
                  message: "the sandbox cannot store this now: its disk is full or failing (\(error.message)); "
                      + "try again once there is room",
                  headers: ["Retry-After": String(StorageRoom.retryAfterSeconds)])
    }
}
