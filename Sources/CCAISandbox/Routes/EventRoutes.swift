import CCAIWire
import Foundation

/// `GET /events`: the end user's real-time events as Server-Sent Events. Every event is
/// stored before it is sent, with an increasing id; a client that reconnects with
/// `Last-Event-ID` (or `?last_event_id=`) gets what it missed, then the live stream.
/// Idle streams get a comment every 15 seconds. A stream lives as long as its token: it
/// ends at once when the token is revoked, and at the next event or keep-alive once it has
/// expired; an end user's streams are capped (``EventStreams``).
struct EventRoutes: Sendable {
    let callers: CallerResolver
    let feed: EventFeed
    let streams: EventStreams
    static let keepAliveSeconds: Double = 15

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.events, events),
        ], callers: callers)
    }

    private func events(_ request: HTTPRequest, _ caller: Caller) async throws -> HTTPResponse {
        guard caller.endUser.id != nil else { throw HTTPError.unauthenticated("no end user") }
        let resumeFrom = request.headers["last-event-id"] ?? request.query["last_event_id"]
        var lastID: Int64 = 0
        if let resumeFrom, !resumeFrom.isEmpty {
            guard let id = Int64(resumeFrom), id >= 0 else {
                throw HTTPError.badRequest("Last-Event-ID must be an event id (a whole number), got '\(resumeFrom)'")
            }
            lastID = id
        }
        let start = lastID
        return .eventStream { stream in
            await serve(stream, caller, after: start)
        }
    }

    /// Unsent bytes past which a replay waits for the client to read.
    static let drainAboveBytes = 512 << 10
    /// How long a client that does not read is waited for before its stream is dropped.
    static let drainPatienceSeconds: Double = 30

    /// Waits until the client has read most of what was written; false when it does not
    /// read within the patience, on the sandbox's clock (the stream is then closed: it
    /// resumes with Last-Event-ID).
    private func drained(_ stream: HTTPEventStream) async -> Bool {
        guard await stream.drained(toAtMost: Self.drainAboveBytes, patience: Self.drainPatienceSeconds, on: callers.clock) else {
            stream.close()
            return false
        }
        return stream.isOpen
    }

    private func serve(_ stream: HTTPEventStream, _ caller: Caller, after start: Int64) async {
        guard let endUserID = caller.endUser.id else { return }
        let ticket = await streams.open(stream, endUserID: endUserID, token: caller.token)
        defer { streams.remove(ticket) }
        var lastID = start
        stream.sendRetry(milliseconds: 1_000)
        while stream.isOpen {
            let version = await feed.version(of: endUserID)
            guard let pending = try? await feed.events(of: endUserID, after: lastID) else { break }
            guard callers.isCurrent(caller) else { break }
            for event in pending {
                guard stream.send(id: String(event.id), event: event.name, data: event.data) else { return }
                lastID = event.id
            }
            if !pending.isEmpty {
                guard await drained(stream) else { return }
                continue
            }
            await feed.wait(for: endUserID, after: version, timeout: Self.keepAliveSeconds)
            guard stream.isOpen, callers.isCurrent(caller) else { break }
            if await feed.version(of: endUserID) == version {
                guard stream.sendComment("keep-alive") else { return }
            }
        }
        stream.close()
    }
}
