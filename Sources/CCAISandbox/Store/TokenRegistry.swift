import CCAIWire
import Foundation

/// The auth tokens the sandbox has issued and not revoked, by digest, with their end user
/// and expiry: what the HTTP server checks on a request's headers before reading its
/// body. Kept in memory beside the store (which holds the same digests), safe from any
/// thread.
///
/// ```swift
/// registry.insert(digest: Digest.sha256Hex(token), endUserID: 7, expiresAt: expiry)
/// registry.endUser(token: token, now: Date())   // 7
/// ```
final class TokenRegistry: @unchecked Sendable {
    private struct Entry {
        var endUserID: Int
        var expiresAt: Double
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    func insert(digest: String, endUserID: Int, expiresAt: Double) {
        lock.withLock { entries[digest] = Entry(endUserID: endUserID, expiresAt: expiresAt) }
    }

    func remove(digest: String) {
        lock.withLock { _ = entries.removeValue(forKey: digest) }
    }

    /// Forgets the tokens that have expired by `now`.
    func removeExpired(now: Date) {
        let time = now.timeIntervalSince1970
        lock.withLock { entries = entries.filter { $0.value.expiresAt > time } }
    }

    /// The end user of `token` if it was issued, is not revoked and has not expired; an
    /// expired one is forgotten.
    func endUser(token: String, now: Date) -> Int? {
        let digest = Digest.sha256Hex(token)
        return lock.withLock {
            guard let entry = entries[digest] else { return nil }
            guard entry.expiresAt > now.timeIntervalSince1970 else {
                entries.removeValue(forKey: digest)
                return nil
            }
            return entry.endUserID
        }
    }
}
