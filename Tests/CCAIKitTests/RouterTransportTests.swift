import CCAIBridge
import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing

/// The SDK over the router transport: the same sandbox, no socket. Requests are admitted
/// and answered as over HTTP; event streams arrive as they are written and end when the
/// SDK stops reading; limits and timeouts hold.
@Suite struct RouterTransportTests {
    /// An SDK instance on the router transport, and its delegate (which the SDK holds weakly).
    private func sdk(_ sandbox: Sandbox, _ identifier: String) throws -> (CCAI, SigningDelegate) {
        let delegate = SigningDelegate(identifier: identifier)
        return (try makeSDK(sandbox, delegate: delegate, cache: false), delegate)
    }

    /// A chat's every change and its agent's messages come through the event stream, in
    /// order, as they do over HTTP.
    @Test(.timeLimit(.minutes(1))) func chatsAndTheirEventsWorkWithoutASocket() async throws {
        let sandbox = try Sandbox()
        let (ccai, delegate) = try sdk(sandbox, "router-chatter")
        defer { withExtendedLifetime(delegate) {} }
        ccai.initializeChat()
        let service = try #require(ccai.chatService)
        var states = service.stateChanged.makeAsyncIterator()
        #expect(await states.next() == .disconnected)
        #expect(await states.next() == .connecting)
        #expect(await states.next() == .connected)
        let seen = try await statusesOfAChatEndedOnceActive(service)
        #expect(seen == [.queued, .assigned, .active, .ended], "\(seen)")
        #expect(try await ccai.companyService?.get().displayName == SandboxConfiguration.builtIn.company.name)
    }

    /// Admission is the router's: no token is a 401, an unknown route a 404, a body over
    /// the route's limit a 413; an answer larger than the request allows is refused.
    @Test func admissionAndLimitsAreTheServers() async throws {
        let sandbox = try Sandbox()
        let transport = RouterTransport(router: sandbox.router)
        let base = "https://embedded-sandbox.invalid"
        let anonymous = try await transport.perform(HTTPClientRequest(url: base + "/company"), onChunk: nil)
        #expect(anonymous.status == 401)
        let health = try await transport.perform(HTTPClientRequest(url: base + "/healthz"), onChunk: nil)
        #expect(health.status == 200 && String(decoding: health.body, as: UTF8.self) == #"{"status":"ok"}"#, "probes need no token")
        let missing = try await transport.perform(HTTPClientRequest(url: base + "/no/such/route?x=1"), onChunk: nil)
        #expect(missing.status == 404 && String(decoding: missing.body, as: UTF8.self).contains("no endpoint GET /no/such/route"))
        let huge = HTTPClientRequest(method: "POST", url: base + "/auth/end_user", body: Data(count: 8 << 20))
        #expect(try await transport.perform(huge, onChunk: nil).status == 413)
        var small = HTTPClientRequest(url: base + "/no/such/route")
        small.maximumResponseBytes = 4
        await #expect(throws: TransportError.tooLarge(limit: 4)) { try await transport.perform(small, onChunk: nil) }
        await #expect(throws: TransportError.self) { try await transport.perform(HTTPClientRequest(url: "::"), onChunk: nil) }
    }

    /// A stream the reader stops, or whose task is cancelled, returns at once, though
    /// the writer is waiting for the next event (15 s away).
    @Test(.timeLimit(.minutes(1))) func aStreamEndsWhenItsReaderStops() async throws {
        let sandbox = try Sandbox()
        let token = try await InProcessClient(sandbox).signIn("router-reader", at: Date())
        let transport = RouterTransport(router: sandbox.router)
        let request = HTTPClientRequest(url: "https://embedded-sandbox.invalid/events", headers: ["Authorization": "Bearer \(token)"],
                                        timeout: 0)
        let stopped = try await transport.perform(request) { status, chunk in
            #expect(status == 200 && String(decoding: chunk, as: UTF8.self).hasPrefix("retry:"))
            return false
        }
        #expect(stopped.status == 200)
        let opened = Latch()
        let reading = Task {
            try await transport.perform(request) { _, _ in
                Task { await opened.open() }
                return true
            }
        }
        await opened.wait()
        reading.cancel()
        await #expect(throws: CancellationError.self) { _ = try await reading.value }
    }

    /// A stream opened with a completion is read as its writer writes: the reader stopping
    /// it tells the stream's answer, and cancelling it tells `CancellationError`, once, though
    /// the writer is waiting for its next event.
    @Test(.timeLimit(.minutes(1))) func anOpenedStreamTellsItsEndOnce() async throws {
        let sandbox = try Sandbox()
        let token = try await InProcessClient(sandbox).signIn("router-opener", at: Date())
        let transport = RouterTransport(router: sandbox.router)
        let request = HTTPClientRequest(url: "https://embedded-sandbox.invalid/events", headers: ["Authorization": "Bearer \(token)"],
                                        timeout: 0)
        let stopped = StreamOutcomes()
        _ = transport.open(request, onChunk: { _, _ in false }, completion: stopped.completion)
        #expect(try await stopped.first().get().status == 200)

        let cancelled = StreamOutcomes()
        let firstChunk = Latch()
        let stream = transport.open(request, onChunk: { status, chunk in
            #expect(status == 200 && String(decoding: chunk, as: UTF8.self).hasPrefix("retry:"))
            Task { await firstChunk.open() }
            return true
        }, completion: cancelled.completion)
        await firstChunk.wait()
        stream.cancel()
        stream.cancel()
        #expect(throws: CancellationError.self) { try cancelled.all.first?.get() }
        #expect(cancelled.all.count == 1 && stopped.all.count == 1)

        let refused = StreamOutcomes()
        _ = transport.open(HTTPClientRequest(url: "https://embedded-sandbox.invalid/events", timeout: 0),
                           onChunk: { _, _ in true }, completion: refused.completion)
        #expect(try await refused.first().get().status == 401, "an answer that is not a stream comes back whole")
    }
}

