import Foundation

/// The channel a session is in, for wait estimates.
enum SessionChannel: Sendable, Hashable {
    case chat
    case voiceCall
}

/// How long human agents spent on the sessions they ended in the last hour, by channel:
/// the "average duration in channel" of the published wait estimate (``WaitEstimator``).
/// The agent desk records a session when its agent lets it go (the time from taking it);
/// bounded: at most ``maximumKept`` sessions a channel, older than an hour forgotten.
final class HandleTimes: Sendable {
    /// The window the average covers: the previous hour, as published.
    static let window: TimeInterval = 3_600
    static let maximumKept = 50_000

    private struct Record {
        var endedAt: Double
        var seconds: Double
    }

    private let records = LockedState<[SessionChannel: [Record]]>([:])

    /// Records a session of `channel` that took `seconds`, ended at `endedAt`.
    func record(_ channel: SessionChannel, seconds: Double, endedAt: Date) {
        guard seconds.isFinite, seconds >= 0 else { return }
        records.withLock { records in
            var kept = records[channel, default: []]
            kept.append(Record(endedAt: endedAt.timeIntervalSince1970, seconds: seconds))
            if kept.count > Self.maximumKept { kept.removeFirst(kept.count - Self.maximumKept) }
            records[channel] = kept
        }
    }

    /// The mean of the sessions of `channel` that ended in the hour before `now`; nil
    /// when there are none.
    func average(_ channel: SessionChannel, now: Date) -> Double? {
        let since = now.timeIntervalSince1970 - Self.window
        return records.withLock { records -> Double? in
            var kept = records[channel, default: []]
            if let firstRecent = kept.firstIndex(where: { $0.endedAt >= since }) {
                kept.removeFirst(firstRecent)
            } else {
                kept.removeAll()
            }
            records[channel] = kept
            return kept.isEmpty ? nil : kept.reduce(0) { $0 + $1.seconds } / Double(kept.count)
        }
    }
}
