import CCAIBridge
import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// Refusals that are not transient fail the call at once, and a call that is retried has
/// one loop with one budget (issue 34: a quota's refusal hung `ccai.chat.start` for 30 s,
/// a handler's 500 was retried for 30 s, and the outbox, token renewal and the 429 loop
/// nested so that one send could take about a minute). The SDK talks to a real sandbox in
/// the process; the requests a test picks get the answers it scripts; the SDK's waits are
/// on a manual clock, so every bound is measured, not slept.
@Suite struct OneRetryLoopTests {
    /// The sandbox's router, except for the requests `answer` picks (the answer it gives
    /// them instead), which it counts with the SDK's clock time of each.
    private final class Scripted: HTTPTransport, @unchecked Sendable {
        private let router: RouterTransport
        private let clock: any TimeSource
        private let answer: @Sendable (HTTPClientRequest, Int) -> HTTPClientResponse?
        private let lock = NSLock()
        private var times: [Date] = []
        /// The clock time of each request answered by the script.
        var scripted: [Date] { lock.withLock { times } }

        init(_ sandbox: Sandbox, clock: any TimeSource, answer: @escaping @Sendable (HTTPClientRequest, Int) -> HTTPClientResponse?) {
            router = RouterTransport(router: sandbox.router)
            self.clock = clock
            self.answer = answer
        }

        func perform(_ request: HTTPClientRequest, onChunk: ((Int, Data) -> Bool)?) async throws -> HTTPClientResponse {
            let seen = lock.withLock { times.count }
            if let answer = answer(request, seen) {
                lock.withLock { times.append(clock.now()) }
                return answer
            }
            return try await router.perform(request, onChunk: onChunk)
        }
    }

    /// An answer with the platform's error body.
    private static func refusal(_ status: Int, _ code: String, retryAfter: String? = nil) -> HTTPClientResponse {
        HTTPClientResponse(status: status, headers: retryAfter.map { ["retry-after": $0] } ?? [:],
                           body: Data(#"{"error":{"code":"\#(code)","message":"scripted \#(code)"}}"#.utf8))
    }

    /// Whether `request` sends a chat message.
    private static func isMessage(_ request: HTTPClientRequest) -> Bool {
        request.method == "POST" && request.url.hasSuffix("/messages")
    }

    /// A chat service with a chat in progress, its SDK's clock, the transport and the delegate.
    private func chatting(_ name: String, answer: @escaping @Sendable (HTTPClientRequest, Int) -> HTTPClientResponse?)
        async throws -> (ChatService, ManualClock, Scripted, SigningDelegate, CCAI)
    {
        let sandbox = try Sandbox()
        let clock = ManualClock()
        let transport = Scripted(sandbox, clock: clock, answer: answer)
        let delegate = SigningDelegate(identifier: name)
        let ccai = CCAI(http: HTTPClient(clock: clock, transport: transport))
        delegate.ccai = ccai
        try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: inProcessHost, delegate: delegate, cacheAuthToken: false))
        ccai.initializeChat()
        let service = try #require(ccai.chatService)
        try await service.start(request: ChatRequest(menuId: 8))
        return (service, clock, transport, delegate, ccai)
    }

    /// Waits for the SDK to sleep each of `delays` in turn, and wakes it.
    private func advance(_ clock: ManualClock, through delays: [Double]) async {
        for delay in delays {
            await clock.waitForTimers { $0.contains(delay) }
            clock.advance(by: delay)
        }
    }

    /// Each refusal a retry cannot change is the answer: one request, no wait, its code.
    /// Messages go through the outbox, which retried a quota's 429 and a handler's 500
    /// for 30 s.
    @Test(.timeLimit(.minutes(1)), arguments: [
        (429, "limit_exceeded", "3600"), (429, "limit_exceeded", nil), (403, "forbidden", nil),
        (400, "invalid_argument", nil), (404, "not_found", nil), (409, "conflict", nil), (500, "internal", nil),
    ] as [(Int, String, String?)])
    func aRefusalThatIsNotTransientFailsAtOnce(status: Int, code: String, retryAfter: String?) async throws {
        let (service, clock, transport, delegate, ccai) = try await chatting("refused-\(status)-\(code)") { request, _ in
            Self.isMessage(request) ? Self.refusal(status, code, retryAfter: retryAfter) : nil
        }
        do {
            try await service.sendMessage(.text(content: "hello"))
            Issue.record("a \(status) \(code) fails the send")
        } catch let error as CCAIError {
            #expect(error.code.rawValue == code && error.status == status && !error.retryable, "\(error)")
        }
        #expect(transport.scripted.count == 1, "sent once, and the send returned with the clock never moved")
        withExtendedLifetime((delegate, clock, ccai)) {}
    }

    /// A platform that is down for good: a message is tried again, 0.25 s then doubling to
    /// 2 s apart, for the policy's patience (30 s on the SDK's clock), then fails with
    /// `unavailable`: one loop, no other inside it.
    @Test(.timeLimit(.minutes(1))) func aMessageGivesUpWithinItsPatience() async throws {
        let (service, clock, transport, delegate, _) = try await chatting("always-503") { request, _ in
            Self.isMessage(request) ? Self.refusal(503, "unavailable") : nil
        }
        let start = clock.now()
        let sending = Task { try await service.sendMessage(.text(content: "hello")) }
        await advance(clock, through: [0.25, 0.5, 1] + Array(repeating: 2, count: 14))
        await #expect(throws: CCAIError.self) { _ = try await sending.value }
        #expect(transport.scripted.count == 18)
        let last = try #require(transport.scripted.last)
        #expect(last.timeIntervalSince(start) == 29.75, "the last attempt came before the patience ran out")
        #expect(last.timeIntervalSince(start) <= RetryPolicy.standard.messagePatience)
        withExtendedLifetime(delegate) {}
    }

    /// A rate limit that lasts: each 429 asks for 10 s, which the loop waits for while its
    /// budget allows (the message's patience, 30 s: no attempt begins at its end, with no
    /// time left to be answered), then the send fails. The transport's 429 loop no longer
    /// runs inside the outbox's, which made this about a minute.
    @Test(.timeLimit(.minutes(1))) func aRateLimitThatLastsIsWaitedForWithinTheOneBudget() async throws {
        let (service, clock, transport, delegate, _) = try await chatting("always-429") { request, _ in
            Self.isMessage(request) ? Self.refusal(429, "limit_exceeded", retryAfter: "10") : nil
        }
        let start = clock.now()
        let sending = Task { try await service.sendMessage(.text(content: "hello")) }
        await advance(clock, through: [10, 10])
        do {
            _ = try await sending.value
            Issue.record("a rate limit past the budget fails the send")
        } catch let error as CCAIError {
            #expect(error.code == .limitExceeded, "\(error)")
        }
        #expect(transport.scripted.map { $0.timeIntervalSince(start) } == [0, 10, 20])
        #expect(clock.now().timeIntervalSince(start) <= RetryPolicy.standard.messagePatience)
        withExtendedLifetime(delegate) {}
    }

    /// A short rate limit passes: the message goes out after the wait it asked for.
    @Test(.timeLimit(.minutes(1))) func aShortRateLimitIsWaitedForOnce() async throws {
        let (service, clock, transport, delegate, _) = try await chatting("429-then-ok") { request, seen in
            Self.isMessage(request) && seen == 0 ? Self.refusal(429, "limit_exceeded", retryAfter: "1") : nil
        }
        let sending = Task { try await service.sendMessage(.text(content: "hello")) }
        await advance(clock, through: [1])
        #expect(try await sending.value.count == 1)
        #expect(transport.scripted.count == 1)
        withExtendedLifetime(delegate) {}
    }

    /// A refused token is renewed once and the call made once more, with no wait: a 401
    /// then the platform's answer costs one sign-in; a 401 that stays is the answer after
    /// that one renewal, not a loop.
    @Test(.timeLimit(.minutes(1))) func aRefusedTokenIsRenewedOnce() async throws {
        let (_, clock, transport, delegate, ccai) = try await chatting("renewed") { request, seen in
            request.url.hasSuffix("/company") && seen == 0 ? Self.refusal(401, "unauthenticated") : nil
        }
        let signIns = delegate.calls
        #expect(try await ccai.companyService?.get().displayName == SandboxConfiguration.builtIn.company.name)
        #expect(delegate.calls == signIns + 1 && transport.scripted.count == 1 && clock.pendingTimers == 0)

        let (_, _, refusing, stubborn, sdk) = try await chatting("refused") { request, _ in
            request.url.hasSuffix("/company") ? Self.refusal(401, "unauthenticated") : nil
        }
        let before = stubborn.calls
        await #expect(throws: CCAIError.self) { _ = try await sdk.companyService?.get() }
        #expect(stubborn.calls == before + 1 && refusing.scripted.count == 2, "one renewal, one more attempt")
    }

    /// An ordinary call's budget is its request's timeout (30 s): a platform answering 503
    /// is asked the policy's three times more, 0.1 s doubling, then the call fails.
    @Test(.timeLimit(.minutes(1))) func anIdempotentCallIsRetriedThePolicysTimes() async throws {
        let (_, clock, transport, delegate, ccai) = try await chatting("company-503") { request, _ in
            request.url.hasSuffix("/company") ? Self.refusal(503, "unavailable") : nil
        }
        let start = clock.now()
        let asking = Task { try await ccai.companyService?.get() }
        await advance(clock, through: [0.1, 0.2, 0.4])
        await #expect(throws: CCAIError.self) { _ = try await asking.value }
        let offsets = transport.scripted.map { ($0.timeIntervalSince(start) * 1000).rounded() / 1000 }
        #expect(offsets == [0, 0.1, 0.3, 0.7], "\(offsets)")
        withExtendedLifetime(delegate) {}
    }

    /// One deadline per call, as documented (issue 38, item 10: a server dripping its answer
    /// made `company.get` fail after 120 s, its 30 s timeout retried three times): each
    /// attempt may take only what is left of the call's budget, so a platform that answers
    /// 503 after 29 s gets a last attempt of 0.9 s, and the call ends by its 30 s.
    @Test(.timeLimit(.minutes(1))) func everyAttemptFitsInTheCallsOneDeadline() async throws {
        final class Slow: HTTPTransport, @unchecked Sendable {
            let clock: ManualClock
            private let lock = NSLock()
            private var given: [TimeInterval] = []
            /// The timeout each attempt was given.
            var timeouts: [TimeInterval] { lock.withLock { given } }
            init(clock: ManualClock) { self.clock = clock }

            func perform(_ request: HTTPClientRequest, onChunk: ((Int, Data) -> Bool)?) async throws -> HTTPClientResponse {
                lock.withLock { given.append(request.timeout) }
                // The answer comes after 29 s, or not within the attempt's timeout.
                clock.advance(by: min(29, request.timeout))
                if request.timeout < 29 { throw TransportError.timeout(request.timeout) }
                return OneRetryLoopTests.refusal(503, "unavailable")
            }
        }
        let clock = ManualClock()
        let transport = Slow(clock: clock)
        let http = HTTPClient(clock: clock, transport: transport)
        let start = clock.now()
        let asking = Task { try await http.send(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:9/company", timeout: 30)) }
        await advance(clock, through: [0.1])
        await #expect(throws: TransportError.self) { _ = try await asking.value }
        #expect(transport.timeouts.count == 2 && transport.timeouts[0] == 30, "\(transport.timeouts)")
        #expect(abs(transport.timeouts[1] - 0.9) < 0.001, "the last attempt gets what is left: \(transport.timeouts)")
        #expect(clock.now().timeIntervalSince(start) <= 30.0001)
    }
}
