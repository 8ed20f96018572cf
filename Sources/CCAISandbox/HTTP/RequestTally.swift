import CCAIWire
import Synchronization

/// Counts the requests a router answered, by route and status, and how long its handlers
/// took by route: what `GET /admin/metrics` shows as `ccai_sandbox_requests_total` and
/// `ccai_sandbox_request_seconds`. Routes are the router's operations (`"GET
/// /chats/{id}"`), so their number is bounded by the endpoint table whatever the paths
/// asked for; a path no route matches counts under `unmatched`.
public final class RequestTally: Sendable {
    /// The label of requests that matched no route.
    public static let unmatched = "unmatched"

    private struct Counts {
        /// By route index (the last slot: unmatched), then status.
        var answered: [[Int: Int]]
        /// Handler durations by route index.
        var durations: [LatencyHistogram]
    }

    /// The operations, by route index.
    let operations: [String]
    private let counts: Mutex<Counts>

    init(operations: [String]) {
        self.operations = operations
        counts = Mutex(Counts(answered: Array(repeating: [:], count: operations.count + 1),
                              durations: Array(repeating: LatencyHistogram(), count: operations.count)))
    }

    /// Counts an answer of `status` from route `route` (nil or unknown: no route matched),
    /// and its handler's duration when it ran.
    func record(route: Int?, status: Int, seconds: Double? = nil) {
        let index = route.flatMap { operations.indices.contains($0) ? $0 : nil }
        counts.withLock { counts in
            counts.answered[index ?? operations.count][status, default: 0] += 1
            if let index, let seconds { counts.durations[index].observe(seconds) }
        }
    }

    /// The counts, as (operation, status, count) sorted by operation then status, and the
    /// durations of the routes that ran.
    func snapshot() -> (answered: [(operation: String, status: Int, count: Int)], durations: [(operation: String, histogram: LatencyHistogram)]) {
        let counts = counts.withLock { $0 }
        var answered: [(String, Int, Int)] = []
        for (index, statuses) in counts.answered.enumerated() {
            let operation = index < operations.count ? operations[index] : Self.unmatched
            for (status, count) in statuses.sorted(by: { $0.key < $1.key }) { answered.append((operation, status, count)) }
        }
        let durations = zip(operations, counts.durations).filter { $0.1.count > 0 }.map { ($0.0, $0.1) }
        return (answered.sorted { ($0.0, $0.1) < ($1.0, $1.1) }, durations.sorted { $0.0 < $1.0 })
    }
}
