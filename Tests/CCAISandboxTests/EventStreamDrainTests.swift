@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// A replay larger than a client reads at once waits for it to read (the server's drain
/// watch, no polling); a client that does not read within the patience (30 s of the
/// sandbox's clock) has its stream closed, and resumes with Last-Event-ID.
@Suite struct EventStreamDrainTests {
    /// Events of 64 KiB: 128 of them (8 MiB) are more than the socket buffers take from a
    /// client that does not read (up to 4 MiB on the server's side, its own held small);
    /// the replay writes them 256 KiB at a time, each once the client has read.
    private static let eventText = String(repeating: "x", count: 64 << 10)
    private static let eventCount = 128
    /// The last event, after the backlog.
    private static let lastEvent = "the-end"

    /// A sandbox on a manual clock, served, with a backlog of events for one end user, and
    /// that user's `/events` requested on a raw connection nothing has read from yet.
    private func backlog(_ identifier: String) async throws -> (HTTPServer, ManualClock, RawConnection) {
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        let sandbox = try Sandbox(clock: clock)
        let server = try sandbox.serve()
        let token = try await SandboxHTTP.token(server, identifier)
        let owner = try #require(try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/end_user", token),
                                                        as: EndUser.self).id)
        for _ in 0..<Self.eventCount {
            try await sandbox.publish(endUserID: owner, event: .typingEvent, data: .string(Self.eventText))
        }
        try await sandbox.publish(endUserID: owner, event: .typingEvent, data: .string(Self.lastEvent))
        let stream = try RawConnection(port: server.port, receiveBuffer: 16 << 10)
        stream.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
        return (server, clock, stream)
    }

    @Test(.timeLimit(.minutes(1))) func aClientThatDoesNotReadIsClosedAfterThePatience() async throws {
        let (server, clock, stream) = try await backlog("drain-idle")
        await clock.waitForTimers { $0.contains(EventRoutes.drainPatienceSeconds) }   // the replay waits for the client
        clock.advance(by: EventRoutes.drainPatienceSeconds)
        // The stream ends after what was written: the client reads it, then the end.
        let read = try await stream.read(for: 30)
        let (closed, replayedAll) = (read.closed, read.text.contains(Self.lastEvent))
        #expect(closed, "the stream ends once the patience has run out")
        #expect(!replayedAll, "the replay stopped where the client was: it resumes with Last-Event-ID")
        await server.stop()
    }

    @Test(.timeLimit(.minutes(1))) func aClientThatReadsGetsTheWholeReplayWithoutTheClockMoving() async throws {
        let (server, clock, stream) = try await backlog("drain-reader")
        await clock.waitForTimers { $0.contains(EventRoutes.drainPatienceSeconds) }   // the replay waits for the client
        var text = "", closed = false
        let lastEvent = Self.lastEvent
        while !closed, !text.suffix(4 << 10).contains(Self.lastEvent) {
            let read = try await stream.read(for: 10) { $0.utf8.count >= 256 << 10 || $0.contains(lastEvent) }   // a quarter MiB at a time
            (text, closed) = (text + read.text, read.closed)
        }
        #expect(!closed, "the stream stays open once the client has read")
        let events = text.components(separatedBy: "event: typing_event").count - 1
        #expect(events == Self.eventCount + 1, "every event, the clock never advanced")
        await server.stop()
    }
}
