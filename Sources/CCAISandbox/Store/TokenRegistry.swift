import CCAIWire
import Foundation

/// The auth tokens the sandbox has issued and not revoked, by digest, with their end user,
/// expiry and signed custom data, and the profiles of the end users they belong to: what
/// the HTTP server checks on a request's headers before reading its body, and the caller
/// a handler gets, without asking the store. Kept in memory beside the store (which holds
/// the same tokens and is the durable copy), safe from any thread.
///
/// ```swift
/// registry.insert(digest: Digest.sha256Hex(token), endUser: ana, expiresAt: expiry, customDataText: "{}")
/// registry.endUser(token: token, now: Date())   // ana's id
/// registry.caller(token: token, now: Date())    // .known(Caller(token: token, endUser: ana, ...))
/// ```
final class TokenRegistry: @unchecked Sendable {
    /// A token's signed custom data is kept here only up to this size (its JSON text); a
    /// larger one is read from the store when a caller of the token is needed, so that
    /// tokens signed in with large claims do not multiply in memory.
    static let customDataBytesKept = 256

    /// What the registry knows of a token.
    enum Lookup {
        /// Not issued, revoked or expired.
        case unknown
        /// Valid, with its caller.
        case known(Caller)
        /// Valid, but its custom data is too large to be kept here: the store has it.
        case customDataInStore
    }

    private struct Entry {
        var endUserID: Int
        var expiresAt: Double
        /// Nil when larger than ``TokenRegistry/customDataBytesKept``.
        var customData: JSONValue?
    }

    private struct Profile {
        var endUser: EndUser
        /// The entries that name it; the profile is forgotten with the last.
        var tokens: Int
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var profiles: [Int: Profile] = [:]

    /// Records a token of `endUser` (whose `id` is set); `customDataText` is its custom
    /// data as stored.
    func insert(digest: String, endUser: EndUser, expiresAt: Double, customDataText: String) {
        guard let endUserID = endUser.id else { return }
        let customData = customDataText.utf8.count <= Self.customDataBytesKept ? try? JSONValue(jsonText: customDataText) : nil
        lock.withLock {
            if let previous = entries.updateValue(Entry(endUserID: endUserID, expiresAt: expiresAt, customData: customData),
                                                  forKey: digest) {
                release(previous.endUserID)
            }
            profiles[endUserID, default: Profile(endUser: endUser, tokens: 0)].tokens += 1
            profiles[endUserID]?.endUser = endUser
        }
    }

    /// The end user's profile as it now is, for the tokens that name it.
    func update(_ endUser: EndUser) {
        guard let id = endUser.id else { return }
        lock.withLock { profiles[id]?.endUser = endUser }
    }

    func remove(digest: String) {
        lock.withLock {
            if let removed = entries.removeValue(forKey: digest) { release(removed.endUserID) }
        }
    }

    /// Forgets the tokens that have expired by `now`.
    func removeExpired(now: Date) {
        let time = now.timeIntervalSince1970
        lock.withLock {
            for (digest, entry) in entries where entry.expiresAt <= time {
                entries.removeValue(forKey: digest)
                release(entry.endUserID)
            }
        }
    }

    /// The end user of `token` if it was issued, is not revoked and has not expired; an
    /// expired one is forgotten.
    func endUser(token: String, now: Date) -> Int? {
        lock.withLock { validEntry(Digest.sha256Hex(token), now: now)?.endUserID }
    }

    /// The caller of `token` (see ``Lookup``); an expired token is forgotten.
    func caller(token: String, now: Date) -> Lookup {
        let digest = Digest.sha256Hex(token)
        return lock.withLock {
            guard let entry = validEntry(digest, now: now), let profile = profiles[entry.endUserID] else { return .unknown }
            guard let customData = entry.customData else { return .customDataInStore }
            return .known(Caller(token: token, endUser: profile.endUser, signedCustomData: customData))
        }
    }

    /// The entry of a valid token; an expired one is removed. Called with the lock held.
    private func validEntry(_ digest: String, now: Date) -> Entry? {
        guard let entry = entries[digest] else { return nil }
        guard entry.expiresAt > now.timeIntervalSince1970 else {
            entries.removeValue(forKey: digest)
            release(entry.endUserID)
            return nil
        }
        return entry
    }

    /// One token fewer names the end user. Called with the lock held.
    private func release(_ endUserID: Int) {
        guard let profile = profiles[endUserID] else { return }
        if profile.tokens <= 1 { profiles.removeValue(forKey: endUserID) } else { profiles[endUserID]?.tokens -= 1 }
    }
}
