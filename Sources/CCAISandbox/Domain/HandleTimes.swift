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

    /// A channel's records in the order they ended: those before `first` are dropped
    /// (compacted away once they are half the array), and `total` is the sum of the rest,
    /// so recording and averaging cost O(1) amortized, whatever the traffic.
    private struct Window {
        var records: [Record] = []
        var first = 0
        var total = 0.0

        var count: Int { records.count - first }

        mutating func append(_ record: Record) {
            records.append(record)
            total += record.seconds
        }

        /// Drops the oldest records while `drop` says so.
        mutating func dropOldest(while drop: (Record, Int) -> Bool) {
            while first < records.count, drop(records[first], count) {
                total -= records[first].seconds
                first += 1
            }
            if first == records.count {
                self = Window()
            } else if first > records.count / 2 {
                records.removeFirst(first)
                first = 0
                total = records.reduce(0) { $0 + $1.seconds }   // no drift from the subtractions
            }
        }
    }

    private let windows = LockedState<[SessionChannel: Window]>([:])

    /// Records a session of `channel` that took `seconds`, ended at `endedAt`.
    func record(_ channel: SessionChannel, seconds: Double, endedAt: Date) {
        guard seconds.isFinite, seconds >= 0 else { return }
        windows.withLock { windows in
            windows[channel, default: Window()].append(Record(endedAt: endedAt.timeIntervalSince1970, seconds: seconds))
            windows[channel]?.dropOldest { _, count in count > Self.maximumKept }
        }
    }

    /// The mean of the sessions of `channel` that ended in the hour before `now`; nil
    /// when there are none.
    func average(_ channel: SessionChannel, now: Date) -> Double? {
        let since = now.timeIntervalSince1970 - Self.window
        return windows.withLock { windows -> Double? in
            windows[channel]?.dropOldest { record, _ in record.endedAt < since }
            guard let window = windows[channel], window.count > 0 else { return nil }
            return window.total / Double(window.count)
        }
    }
}
