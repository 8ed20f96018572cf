import CCAIWire
import Foundation
import Timekeeping

/// The per-end-user quotas of `limits` (docs/security.md), checked before anything is
/// created: chats, calls, uploads and their bytes, screen shares, the bytes of what end users
/// send to be stored, each over the last hour.
///
/// ```swift
/// try await quotas.check(.uploadBytes, endUserID: owner, adding: body.count)   // or a 429
/// ```
struct Quotas: Sendable {
    let store: SandboxStore
    let limits: LimitsConfiguration
    let clock: any TimeSource

    /// Refuses with a 429 when `endUserID` has used up a quota in the last hour; `adding`
    /// is what the request would add (bytes for uploads). A quota the sandbox does not
    /// enforce (``LimitDefaults/onlyConfigured``) never refuses.
    func check(_ what: SandboxStore.QuotaCount, endUserID: Int, adding: Int = 1) async throws {
        let (setting, key, noun): (Int?, String, String)
        switch what {
        case .chats: (setting, key, noun) = (limits.effectiveChatsPerHour, "chats_per_hour", "chats")
        case .calls: (setting, key, noun) = (limits.effectiveCallsPerHour, "calls_per_hour", "calls")
        case .uploads: (setting, key, noun) = (limits.effectiveUploadsPerHour, "uploads_per_hour", "uploads")
        case .uploadBytes: (setting, key, noun) = (limits.effectiveUploadBytesPerHour, "upload_bytes_per_hour", "bytes of uploads")
        case .screenShares: (setting, key, noun) = (limits.effectiveScreenSharesPerHour, "screen_shares_per_hour", "screen shares")
        case .storedBytes: (setting, key, noun) = (limits.effectiveStoredBytesPerHour, "stored_bytes_per_hour", "bytes stored")
        }
        guard let limit = setting else { return }   // no such quota on this sandbox
        let used = try await store.count(what, endUserID: endUserID, since: clock.now().addingTimeInterval(-3_600))
        guard used >= limit || adding > limit - used else { return }
        throw HTTPError.limitExceeded("at most \(limit) \(noun) an hour per end user (limits.\(key)); \(used) used", retryAfter: 60)
    }

    /// Counts `bytes` an end user just had stored (``check(_:endUserID:adding:)`` with
    /// `.storedBytes` asked first).
    func record(storedBytes bytes: Int, endUserID: Int) async throws {
        try await store.recordStoredBytes(bytes, endUserID: endUserID, now: clock.now())
    }
}
