import Foundation

/// The event streams open, per end user, with the token each was opened with: at most
/// `limit` per end user (a new one past it closes their oldest, so that an SDK
/// reconnecting after a network drop is never locked out by the stream it lost), and
/// closed at once when their token is revoked.
///
/// ```swift
/// let ticket = await streams.open(stream, endUserID: 7, token: token)   // may close 7's oldest
/// await streams.close(token: token)                                     // signing out
/// streams.remove(ticket)                                                // the stream ended
/// ```
final class EventStreams: Sendable {
    /// An open stream, as ``open(_:endUserID:token:)`` registered it.
    struct Ticket: Sendable {
        fileprivate let id: Int
        fileprivate let endUserID: Int
    }

    private struct Entry {
        var id: Int
        var token: String
        var stream: HTTPEventStream
    }

    private struct State {
        var nextID = 0
        /// Per end user, the oldest first.
        var open: [Int: [Entry]] = [:]
    }

    /// Streams an end user may hold open at once (`limits.event_streams_per_end_user`).
    let limit: Int
    private let hub: EventHub
    private let state = LockedState(State())

    init(limit: Int, hub: EventHub) {
        self.limit = max(1, limit)
        self.hub = hub
    }

    /// Registers a stream; past the limit the end user's oldest streams are closed.
    func open(_ stream: HTTPEventStream, endUserID: Int, token: String) async -> Ticket {
        let (ticket, displaced) = state.withLock { state -> (Ticket, [Entry]) in
            state.nextID += 1
            var streams = state.open[endUserID, default: []]
            streams.append(Entry(id: state.nextID, token: token, stream: stream))
            let displaced = Array(streams.prefix(max(0, streams.count - limit)))
            state.open[endUserID] = Array(streams.dropFirst(displaced.count))
            return (Ticket(id: state.nextID, endUserID: endUserID), displaced)
        }
        if !displaced.isEmpty { await end(displaced, of: endUserID) }
        return ticket
    }

    /// The streams open now, of every end user.
    var openCount: Int {
        state.withLock { $0.open.values.reduce(0) { $0 + $1.count } }
    }

    /// Closes every stream opened with `token` (it was revoked).
    func close(token: String) async {
        let closing = state.withLock { state -> [(Int, [Entry])] in
            var closing: [(Int, [Entry])] = []
            for (endUserID, streams) in state.open where streams.contains(where: { $0.token == token }) {
                closing.append((endUserID, streams.filter { $0.token == token }))
                state.open[endUserID] = streams.filter { $0.token != token }
            }
            return closing
        }
        for (endUserID, streams) in closing { await end(streams, of: endUserID) }
    }

    /// Whether the end user has a stream open that still reads (one its client dropped
    /// is not, though it is forgotten only at its next write).
    func hasOpen(endUserID: Int) -> Bool {
        state.withLock { state in state.open[endUserID]?.contains { $0.stream.isOpen } ?? false }
    }

    /// Forgets a stream that has ended.
    func remove(_ ticket: Ticket) {
        state.withLock { state in
            state.open[ticket.endUserID]?.removeAll { $0.id == ticket.id }
            if state.open[ticket.endUserID]?.isEmpty == true { state.open[ticket.endUserID] = nil }
        }
    }

    /// Ends streams at once (their clients see the end) and wakes their writers, which
    /// find them closed.
    private func end(_ streams: [Entry], of endUserID: Int) async {
        for entry in streams { entry.stream.close() }
        await hub.wake(endUserID: endUserID)
    }
}
