import CCAIWire
import Foundation

/// The pruning of old events and files (`limits`, docs/security.md).
extension Sandbox {
    var limits: LimitsConfiguration { configuration.limits ?? LimitsConfiguration() }

    /// Deletes events and files past their retention (`limits.event_retention_seconds`,
    /// `limits.media_retention_seconds`) and expired tokens; the sandbox does it every
    /// minute by itself.
    @discardableResult
    public func pruneOldData() async throws -> (events: Int, media: Int) {
        let now = clock.now()
        return try await store.prune(eventsBefore: now.addingTimeInterval(-limits.effectiveEventRetentionSeconds),
                                     mediaBefore: now.addingTimeInterval(-limits.effectiveMediaRetentionSeconds), now: now)
    }
}
