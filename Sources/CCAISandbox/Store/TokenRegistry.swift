import CCAIWire
import Foundation

/// The auth tokens the sandbox has issued and not revoked, by digest, with their expiry:
/// what the HTTP server checks on a request's headers before reading its body. Kept in
/// memory beside the store (which holds the same digests), safe from any thread.
///
/// ```swift
/// registry.insert(digest: Digest.sha256Hex(token), expiresAt: expiry)
/// registry.isValid(token: token, now: Date())   // true
/// ```
final class TokenRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var expiries: [String: Double] = [:]

    func insert(digest: String, expiresAt: Double) {
        lock.withLock { expiries[digest] = expiresAt }
    }

    func remove(digest: String) {
        lock.withLock { _ = expiries.removeValue(forKey: digest) }
    }

    /// Whether `token` was issued, is not revoked and has not expired; an expired one is forgotten.
    func isValid(token: String, now: Date) -> Bool {
        let digest = Digest.sha256Hex(token)
        return lock.withLock {
            guard let expiry = expiries[digest] else { return false }
            guard expiry > now.timeIntervalSince1970 else {
                expiries.removeValue(forKey: digest)
                return false
            }
            return true
        }
    }

    var count: Int { lock.withLock { expiries.count } }
}
