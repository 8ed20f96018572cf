@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// Event streams end with their token: revoked at once, expired at the next event or
/// keep-alive; one end user holds a bounded number of them (docs/security.md).
@Suite struct EventStreamSecurityTests {
    private func sandbox(_ limits: String = "", tokenSeconds: Double? = nil) async throws -> (Sandbox, HTTPServer, ManualClock) {
        var configuration = try await LuaConfigurations.configuration(
            "menus = { { id = 1, name = \"Help\", channels = { chat = {} } } }" + (limits.isEmpty ? "" : ", limits = { \(limits) }"))
        configuration.company.authTokenSeconds = tokenSeconds
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        let sandbox = try Sandbox(configuration: configuration, clock: clock)
        return (sandbox, try sandbox.serve(), clock)
    }

    /// A stream of `/events` read by hand, once its first line (`retry:`) has arrived.
    private func openStream(_ server: HTTPServer, _ token: String) async throws -> RawConnection {
        let stream = try RawConnection(port: server.port)
        stream.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
        let start = try await stream.read(for: 10) { $0.contains("retry: 1000") }
        #expect(start.text.contains("200 OK") && !start.closed, "\(start.text)")
        return stream
    }

    /// Whether the server keeps the stream open for a moment more.
    private func stillOpen(_ stream: RawConnection) async throws -> Bool {
        try await !stream.read(for: 0.3).closed
    }

    private func endUserID(_ server: HTTPServer, _ token: String) async throws -> Int {
        try #require(try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/end_user", token), as: EndUser.self).id)
    }

    @Test(.timeLimit(.minutes(1))) func signingOutClosesThatTokensStreamsAtOnce() async throws {
        let (_, server, _) = try await sandbox()
        let laptop = try await SandboxHTTP.token(server, "streams-ana")
        let phone = try await SandboxHTTP.token(server, "streams-ana")
        let revoked = try await openStream(server, laptop)
        let kept = try await openStream(server, phone)
        #expect(try await SandboxHTTP.call(server, "DELETE", "/auth/end_user", laptop).status == 204)
        #expect(try await revoked.read(for: 5).closed, "the revoked token's stream ends without waiting for a keep-alive")
        #expect(try await stillOpen(kept), "the same end user's other token keeps its stream")
        await server.stop()
    }

    @Test(.timeLimit(.minutes(1))) func anExpiredTokensStreamEndsAtTheNextEventUnsent() async throws {
        let (sandbox, server, clock) = try await sandbox(tokenSeconds: 10)
        let ana = try await SandboxHTTP.token(server, "expiry-ana")
        let owner = try await endUserID(server, ana)
        let stream = try await openStream(server, ana)
        clock.advance(by: 11)
        try await sandbox.publish(endUserID: owner, event: .typingEvent, data: ["secret": "after expiry"])
        let read = try await stream.read(for: 5)
        #expect(read.closed && !read.text.contains("after expiry"), "\(read.text)")
        await server.stop()
    }

    @Test(.timeLimit(.minutes(1))) func anExpiredTokensIdleStreamEndsAtTheNextKeepAlive() async throws {
        let (_, server, clock) = try await sandbox(tokenSeconds: 10)
        let ana = try await SandboxHTTP.token(server, "idle-ana")
        let stream = try await openStream(server, ana)
        await clock.waitForTimers { $0.contains(EventRoutes.keepAliveSeconds) }
        clock.advance(by: EventRoutes.keepAliveSeconds)
        let read = try await stream.read(for: 5)
        #expect(read.closed && !read.text.contains("keep-alive"), "\(read.text)")
        await server.stop()
    }

    @Test(.timeLimit(.minutes(1))) func aNewStreamPastTheCapClosesTheOldest() async throws {
        let (_, server, _) = try await sandbox("event_streams_per_end_user = 2")
        let ana = try await SandboxHTTP.token(server, "cap-ana")
        let oldest = try await openStream(server, ana)
        let older = try await openStream(server, ana)
        let reconnected = try await openStream(server, ana)
        #expect(try await oldest.read(for: 5).closed, "the oldest stream makes way for the new one")
        #expect(try await stillOpen(older))
        #expect(try await stillOpen(reconnected))
        let bob = try await SandboxHTTP.token(server, "cap-bob")
        let bobs = try await openStream(server, bob)
        #expect(try await stillOpen(older), "the cap is per end user")
        #expect(try await stillOpen(bobs))
        await server.stop()
    }
}
