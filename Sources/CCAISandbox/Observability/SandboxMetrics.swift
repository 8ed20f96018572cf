import CCAIWire
import Foundation
import Synchronization

/// What a sandbox started with metrics (`ccai sandbox serve --metrics`) counts as it runs,
/// and the Prometheus text `GET /admin/metrics` answers with (docs/observability.md):
/// requests by route and status and their handlers' durations (``RequestTally``), each SQL
/// statement's duration, and, read when scraped, the sessions waiting on each queue, the
/// human agents busy and the event streams open.
public final class SandboxMetrics: Sendable {
    /// What is read at scrape time rather than counted.
    struct Gauges: Sendable {
        /// Per queue: its id, its name and, per channel it takes (`chat`, `voice_call`), the
        /// sessions waiting.
        var queues: [(menuID: Int, name: String, waiting: [(channel: String, count: Int)])]
        var agents: Int
        var busyAgents: Int
        var eventStreams: Int
    }

    private let tally = Mutex<RequestTally?>(nil)
    private let statements = Mutex(LatencyHistogram())
    /// When the sandbox started (Unix seconds).
    let startTime: Double

    init(startTime: Date) {
        self.startTime = startTime.timeIntervalSince1970
    }

    /// The tally of `router`'s requests: made once, for the first router asked about (a
    /// sandbox's routers all have the same routes).
    func tally(for router: HTTPRouter) -> RequestTally {
        tally.withLock { tally in
            if let tally { return tally }
            let made = router.makeTally()
            tally = made
            return made
        }
    }

    /// Counts one SQL statement's duration.
    @Sendable func statementTook(_ seconds: Double) {
        statements.withLock { $0.observe(seconds) }
    }

    /// The exposition: the counts so far and `gauges`.
    func text(_ gauges: Gauges) -> String {
        var text = PrometheusText()
        let requests = tally.withLock { $0 }?.snapshot() ?? (answered: [], durations: [])
        text.family("ccai_sandbox_requests_total", .counter,
                    help: "requests answered, by route (the operation; unmatched when no route matched) and status")
        for (operation, status, count) in requests.answered {
            text.sample("ccai_sandbox_requests_total", labels: [("route", operation), ("status", String(status))], Double(count))
        }
        text.family("ccai_sandbox_request_seconds", .histogram, help: "how long each route's handler took")
        for (operation, histogram) in requests.durations {
            histogram.write(into: &text, name: "ccai_sandbox_request_seconds", labels: [("route", operation)])
        }
        text.family("ccai_sandbox_queue_length", .gauge, help: "sessions waiting for an agent, by queue and channel")
        for queue in gauges.queues {
            for (channel, count) in queue.waiting {
                text.sample("ccai_sandbox_queue_length", labels: [("menu_id", String(queue.menuID)), ("menu", queue.name),
                                                                   ("channel", channel)], Double(count))
            }
        }
        text.family("ccai_sandbox_agents", .gauge, help: "the human agents configured")
        text.sample("ccai_sandbox_agents", Double(gauges.agents))
        text.family("ccai_sandbox_agents_busy", .gauge, help: "human agents with at least one chat or call")
        text.sample("ccai_sandbox_agents_busy", Double(gauges.busyAgents))
        text.family("ccai_sandbox_event_streams", .gauge, help: "end users' event streams open")
        text.sample("ccai_sandbox_event_streams", Double(gauges.eventStreams))
        text.family("ccai_sandbox_store_statement_seconds", .histogram, help: "how long each SQL statement of the store took")
        statements.withLock { $0 }.write(into: &text, name: "ccai_sandbox_store_statement_seconds")
        text.family("ccai_sandbox_start_time_seconds", .gauge, help: "when the sandbox started, in Unix seconds")
        text.sample("ccai_sandbox_start_time_seconds", startTime)
        return text.body
    }
}
