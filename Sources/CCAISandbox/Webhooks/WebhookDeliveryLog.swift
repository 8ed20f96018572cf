import CCAIWire
import Foundation

/// The deliveries an admin reads (`GET /admin/webhook_deliveries`): a ring of the latest
/// ``capacity`` deliveries, each updated as it goes (attempts, last status, state); past
/// the capacity the oldest entry goes.
final class WebhookDeliveryLog: Sendable {
    let capacity: Int
    /// Oldest first; ids increase, so an entry is found by binary search.
    private let entries = LockedState<[WebhookDeliveryRecord]>([])

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func append(_ record: WebhookDeliveryRecord) {
        entries.withLock { entries in
            entries.append(record)
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
    }

    /// Changes the entry `id`, if it is still in the ring.
    func update(_ id: Int, _ change: (inout WebhookDeliveryRecord) -> Void) {
        entries.withLock { entries in
            guard let index = Self.index(of: id, in: entries) else { return }
            change(&entries[index])
        }
    }

    func record(_ id: Int) -> WebhookDeliveryRecord? {
        entries.withLock { entries in Self.index(of: id, in: entries).map { entries[$0] } }
    }

    /// At most `limit` entries, newest first, older than `before` (0: from the newest).
    func page(before: Int, limit: Int) -> [WebhookDeliveryRecord] {
        entries.withLock { entries in
            entries.reversed().lazy.filter { before <= 0 || $0.id < before }.prefix(limit).map { $0 }
        }
    }

    private static func index(of id: Int, in entries: [WebhookDeliveryRecord]) -> Int? {
        var low = 0, high = entries.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if entries[middle].id == id { return middle }
            if entries[middle].id < id { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }
}
