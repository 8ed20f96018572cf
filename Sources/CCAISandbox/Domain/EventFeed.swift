import CCAIWire
import Foundation

/// The read side of end users' events, for their event streams: what was recorded after
/// an id, and a wait for the next publication (``EventPublisher`` records and announces).
///
/// ```swift
/// let seen = await feed.version(of: owner)
/// let missed = try await feed.events(of: owner, after: lastID)
/// if missed.isEmpty { await feed.wait(for: owner, after: seen, timeout: 15) }
/// ```
struct EventFeed: Sendable {
    let store: SandboxStore
    let hub: EventHub

    /// How many publications there have been for the end user (a stream reads the store
    /// after taking it, so no publication between the two is slept through).
    func version(of endUserID: Int) async -> Int {
        await hub.version(endUserID: endUserID)
    }

    /// The events recorded for the end user after `id`, oldest first, a page at a time.
    func events(of endUserID: Int, after id: Int64) async throws -> [SandboxEvent] {
        try await store.events(endUserID: endUserID, after: id)
    }

    /// Returns once something is published for the end user after version `seen`, or
    /// after `timeout` seconds.
    func wait(for endUserID: Int, after seen: Int, timeout: TimeInterval) async {
        await hub.wait(endUserID: endUserID, after: seen, timeout: timeout)
    }
}
