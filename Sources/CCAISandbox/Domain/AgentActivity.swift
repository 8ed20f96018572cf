import Foundation
import Synchronization
import Timekeeping

/// What the human agents are doing, the one record of it: the sessions each has now (the
/// desk routes by it) and how long the sessions they let go were handled, by queue and
/// channel, over the last hour (wait estimates average them, ``WaitEstimator``). Times
/// come from the business clock, as the estimates' "now" does. Memory is bounded: handle
/// times older than an hour are dropped, and a queue's channel keeps at most
/// ``maximumRecords`` of them.
///
/// ```swift
/// activity.take(.chat(7), agent: "Ava", menuID: 1)
/// activity.release(.chat(7))                       // Ava handled it for its time
/// let figures = activity.snapshot()                // loads and last hour's averages
/// ```
final class AgentActivity: Sendable {
    /// A queue's channel, the unit handle times are averaged over.
    struct QueueChannel: Hashable, Sendable {
        var menuID: Int
        var channel: WaitChannel
    }

    /// The figures wait estimates read, as of one moment.
    struct Snapshot: Sendable {
        /// Sessions each agent has now, by agent name.
        var loads: [String: Int] = [:]
        /// The mean handle time of the sessions that ended in the last hour, by queue channel.
        var averageHandleSeconds: [QueueChannel: Double] = [:]
    }

    /// The window handle times are averaged over: the page's previous hour.
    static let window: TimeInterval = 3_600
    /// The most handle times kept per queue channel within the window.
    static let maximumRecords = 10_000

    private struct Held {
        var agent: String
        var queue: QueueChannel
        var since: Date
    }

    private struct Handled {
        var endedAt: Date
        var seconds: Double
    }

    private struct State {
        var held: [WorkItem: Held] = [:]
        var handled: [QueueChannel: [Handled]] = [:]
    }

    private let clock: any TimeSource
    private let state = Mutex(State())

    init(clock: any TimeSource) {
        self.clock = clock
    }

    /// The sessions each agent has now.
    var loads: [String: Set<WorkItem>] {
        state.withLock { state in state.held.reduce(into: [:]) { $0[$1.value.agent, default: []].insert($1.key) } }
    }

    /// The agent who has `item` now, if any.
    func holder(of item: WorkItem) -> String? {
        state.withLock { $0.held[item]?.agent }
    }

    /// `agent` takes `item`, waiting on queue `menuID`: its handle time starts now.
    func take(_ item: WorkItem, agent: String, menuID: Int) {
        let now = clock.now()
        state.withLock { $0.held[item] = Held(agent: agent, queue: QueueChannel(menuID: menuID, channel: item.channel), since: now) }
    }

    /// The agent holding `item` lets it go (ended, transferred): its handle time is
    /// recorded for the queue it was taken on. Returns that agent, nil when nobody held it.
    @discardableResult
    func release(_ item: WorkItem) -> String? {
        let now = clock.now()
        return state.withLock { state in
            guard let held = state.held.removeValue(forKey: item) else { return nil }
            var records = Self.recent(state.handled[held.queue] ?? [], now: now)
            records.append(Handled(endedAt: now, seconds: max(0, now.timeIntervalSince(held.since))))
            if records.count > Self.maximumRecords { records.removeFirst(records.count - Self.maximumRecords) }
            state.handled[held.queue] = records
            return held.agent
        }
    }

    /// The loads and the last hour's mean handle times, now.
    func snapshot() -> Snapshot {
        let now = clock.now()
        return state.withLock { state in
            var snapshot = Snapshot()
            for held in state.held.values { snapshot.loads[held.agent, default: 0] += 1 }
            for (queue, records) in state.handled {
                let recent = Self.recent(records, now: now)
                state.handled[queue] = recent.isEmpty ? nil : recent
                if !recent.isEmpty { snapshot.averageHandleSeconds[queue] = recent.map(\.seconds).reduce(0, +) / Double(recent.count) }
            }
            return snapshot
        }
    }

    /// The records that ended within the window before `now` (records are in end order).
    private static func recent(_ records: [Handled], now: Date) -> [Handled] {
        let start = now.addingTimeInterval(-window)
        guard let first = records.firstIndex(where: { $0.endedAt > start }) else { return [] }
        return first == 0 ? records : Array(records[first...])
    }
}

extension WorkItem {
    /// The channel the session is on.
    var channel: WaitChannel {
        switch self {
        case .chat: .chat
        case .call: .voiceCall
        }
    }
}
