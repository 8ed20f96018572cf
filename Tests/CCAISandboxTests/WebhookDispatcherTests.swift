import CCAISandbox
import CCAIWire
import Foundation
import Synchronization
import TestSupport
import Testing
import Timekeeping

/// The webhook queue: signed deliveries off the request path, retries with backoff on the
/// sandbox's clock (never a real wait), the bounds, the SSRF guard at delivery time, the
/// log an admin reads.
struct WebhookDispatcherTests {
    static let configuration = WebhookConfiguration(url: "http://127.0.0.1:9/hooks", primarySecret: "primary-secret-0123",
                                                    secondarySecret: "secondary-secret-4567")

    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func add(_ line: String) { lines.withLock { $0.append(line) } }
    }

    func dispatcher(_ transport: FakeWebhookTransport, clock: ManualClock, limits: WebhookDispatcher.Limits = .init(),
                    configuration: WebhookConfiguration = configuration,
                    resolve: @escaping WebhookAddressGuard.Resolver = { _ in ["127.0.0.1"] },
                    log: Lines = Lines()) -> WebhookDispatcher {
        WebhookDispatcher(configuration: configuration, transport: transport, clock: clock, limits: limits, resolve: resolve,
                          log: { log.add($0) })
    }

    @Test func aDeliveryIsTheSignedEnvelopeAndEnqueueReturnsBeforeIt() async throws {
        let clock = ManualClock()
        let gate = AsyncStream<Int>.makeStream()
        let transport = FakeWebhookTransport([.gate(gate.stream)])
        let hooks = dispatcher(transport, clock: clock)
        let id = hooks.enqueue(.chatCreated, chatID: 42, data: ["id": 42, "status": "queued"])
        // The POST is held at the gate: enqueue has returned all the same.
        let request = try #require(await transport.posted.next())
        #expect(hooks.delivery(id)?.state == .pending)
        gate.continuation.yield(200)
        await hooks.idle()

        #expect(request.url == "http://127.0.0.1:9/hooks")
        #expect(request.pinnedAddresses.isEmpty)  // an IP literal: nothing to resolve
        #expect(request.headers["Content-Type"] == "application/json")
        let envelope = try JSONDecoder().decode(WebhookEnvelope.self, from: request.body)
        #expect(envelope == WebhookEnvelope(id: id, event: "chat_created", chatId: 42, timestamp: "2027-01-15T08:00:00Z",
                                            data: ["id": 42, "status": "queued"]))
        let signing = WebhookSignature(primarySecret: "secondary-secret-4567")  // a receiver that rotated already
        try signing.verify(body: request.body, signature: request.headers["X-Signature"],
                           timestamp: request.headers["X-Signature-Timestamp"], now: clock.now())
        #expect(request.headers["X-Signature"]?.contains(" secondary=") == true)
        let record = try #require(hooks.delivery(id))
        #expect(record.state == .delivered && record.attempts == 1 && record.lastStatus == 200 && record.lastError == nil)
    }

    @Test func failuresAreRetriedWithDoublingWaitsOnTheClockEachAttemptSignedAnew() async throws {
        let clock = ManualClock()
        let transport = FakeWebhookTransport([.status(500), .refused, .status(204)])
        let hooks = dispatcher(transport, clock: clock)
        let id = hooks.enqueue(.agentMessage, chatID: 7, data: ["text": "Hello"])

        await clock.waitForTimers { $0.contains(1) }
        var record = try #require(hooks.delivery(id))
        #expect(record.state == .retrying && record.attempts == 1 && record.lastStatus == 500)
        #expect(record.nextAttemptAt == clock.now().timeIntervalSince1970 + 1)
        clock.advance(by: 1)
        await clock.waitForTimers { $0.contains(2) }
        record = try #require(hooks.delivery(id))
        #expect(record.state == .retrying && record.attempts == 2 && record.lastStatus == nil)
        #expect(record.lastError == "connection refused")
        clock.advance(by: 2)
        await hooks.idle()

        record = try #require(hooks.delivery(id))
        #expect(record.state == .delivered && record.attempts == 3 && record.lastStatus == 204)
        let requests = transport.requests
        #expect(requests.count == 3)
        #expect(Set(requests.map(\.body)).count == 1)  // the same bytes every time
        #expect(requests.map { $0.headers["X-Signature-Timestamp"] } == ["1800000000", "1800000001", "1800000003"])
        for request in requests {
            try hooks.signing.verify(body: request.body, signature: request.headers["X-Signature"],
                                     timestamp: request.headers["X-Signature-Timestamp"], now: clock.now())
        }
    }

    @Test func aTimeoutCountsAsAFailureAndIsRetried() async throws {
        let clock = ManualClock()
        let transport = FakeWebhookTransport([.hang])
        var limits = WebhookDispatcher.Limits()
        limits.timeoutSeconds = 10
        let hooks = dispatcher(transport, clock: clock, limits: limits)
        let id = hooks.enqueue(.chatEnded, chatID: 3, data: [:])
        await clock.waitForTimers { $0.contains(10) }
        clock.advance(by: 10)
        await clock.waitForTimers { $0.contains(1) }
        #expect(hooks.delivery(id)?.lastError == "no answer within 10.0 seconds")
        clock.advance(by: 1)
        await hooks.idle()
        #expect(hooks.delivery(id)?.state == .delivered)
        #expect(transport.requests.count == 2)
    }

    @Test(arguments: [(400, "the receiver answered 400"), (404, "the receiver answered 404"),
                      (302, "the receiver answered 302: redirects are not followed")])
    func answersRetryingCannotChangeFailAtOnce(status: Int, why: String) async throws {
        let clock = ManualClock()
        let transport = FakeWebhookTransport([.status(status)])
        let log = Lines()
        let hooks = dispatcher(transport, clock: clock, log: log)
        let id = hooks.enqueue(.chatDeflected, chatID: 5, data: [:])
        await hooks.idle()
        let record = try #require(hooks.delivery(id))
        #expect(record.state == .failed && record.attempts == 1 && record.lastStatus == status && record.lastError == why)
        #expect(log.all.contains { $0.contains("delivery \(id) (chat_deflected of chat 5)") && $0.contains(why) })
    }

    @Test func afterTheLastAttemptItIsGivenUpAndLogged() async throws {
        let clock = ManualClock()
        let transport = FakeWebhookTransport([.status(503), .status(429), .status(408)])
        var limits = WebhookDispatcher.Limits()
        limits.maximumAttempts = 3
        let log = Lines()
        let hooks = dispatcher(transport, clock: clock, limits: limits, log: log)
        let id = hooks.enqueue(.chatTransferred, chatID: 9, data: [:])
        for wait in [1.0, 2.0] {
            await clock.waitForTimers { $0.contains(wait) }
            clock.advance(by: wait)
        }
        await hooks.idle()
        let record = try #require(hooks.delivery(id))
        #expect(record.state == .failed && record.attempts == 3 && record.lastStatus == 408)
        #expect(record.lastError == "gave up after 3 attempts: the receiver answered 408")
        #expect(log.all.count == 1)
    }

    @Test func waitsDoubleUpToTheLongest() {
        let hooks = dispatcher(FakeWebhookTransport(), clock: ManualClock())
        #expect((1...9).map { hooks.retryDelay(after: $0) } == [1, 2, 4, 8, 16, 32, 60, 60, 60])
        #expect(hooks.retryDelay(after: Int.max) == 60)
    }

    @Test func pastTheQueueBoundTheNewDeliveryIsDroppedListedAndLogged() async throws {
        let clock = ManualClock()
        let gate = AsyncStream<Int>.makeStream()
        let transport = FakeWebhookTransport([.gate(gate.stream)])
        var limits = WebhookDispatcher.Limits()
        limits.maximumQueued = 2
        limits.maximumInFlight = 1
        let log = Lines()
        let hooks = dispatcher(transport, clock: clock, limits: limits, log: log)
        let first = hooks.enqueue(.chatCreated, chatID: 1, data: [:])  // under way, not waiting
        _ = try #require(await transport.posted.next())
        let waiting = [hooks.enqueue(.agentMessage, chatID: 1, data: [:]), hooks.enqueue(.agentMessage, chatID: 2, data: [:])]
        let dropped = hooks.enqueue(.chatEnded, chatID: 1, data: [:])
        #expect(hooks.delivery(dropped)?.state == .dropped)
        #expect(log.all == ["sandbox: webhook queue full (2 waiting): dropped delivery \(dropped), chat_ended of chat 1"])
        gate.continuation.yield(204)
        await hooks.idle()
        #expect(([first] + waiting).allSatisfy { hooks.delivery($0)?.state == .delivered })
        #expect(transport.requests.count == 3)
        #expect(hooks.delivery(dropped)?.attempts == 0)
    }

    @Test func aChatsDeliveriesGoOneAtATimeInOrderWhileOtherChatsProceed() async throws {
        let clock = ManualClock()
        let gate = AsyncStream<Int>.makeStream()
        let transport = FakeWebhookTransport([.gate(gate.stream)])
        var limits = WebhookDispatcher.Limits()
        limits.maximumInFlight = 2
        let hooks = dispatcher(transport, clock: clock, limits: limits)
        func posted() async throws -> String {
            let request = try #require(await transport.posted.next())
            let envelope = try JSONDecoder().decode(WebhookEnvelope.self, from: request.body)
            return "\(envelope.chatId) \(envelope.event)"
        }
        hooks.enqueue(.chatCreated, chatID: 1, data: [:])
        #expect(try await posted() == "1 chat_created")  // held at the gate
        hooks.enqueue(.agentMessage, chatID: 1, data: [:])
        hooks.enqueue(.chatCreated, chatID: 2, data: [:])
        // Chat 2 goes meanwhile; chat 1's message waits for chat 1's first delivery.
        #expect(try await posted() == "2 chat_created")
        #expect(transport.requests.count == 2)
        gate.continuation.yield(204)
        #expect(try await posted() == "1 agent_message")
        await hooks.idle()
    }

    @Test func theGuardRunsAgainAtEachDeliveryAndPinsTheAddressesItChecked() async throws {
        let clock = ManualClock()
        let answers = Mutex<[String]>(["127.0.0.1", "::1"])
        let transport = FakeWebhookTransport()
        let log = Lines()
        let hooks = dispatcher(transport, clock: clock,
                               configuration: WebhookConfiguration(url: "http://hooks.test:9000/in", primarySecret: "primary-secret-0123"),
                               resolve: { _ in answers.withLock { $0 } }, log: log)
        let first = hooks.enqueue(.chatCreated, chatID: 1, data: [:])
        await hooks.idle()
        #expect(hooks.delivery(first)?.state == .delivered)
        #expect(transport.requests.first?.pinnedAddresses == ["127.0.0.1", "::1"])

        // DNS now answers a public address as well: refused, never sent, not retried.
        answers.withLock { $0 = ["127.0.0.1", "203.0.113.7"] }
        let second = hooks.enqueue(.agentMessage, chatID: 1, data: [:])
        await hooks.idle()
        let record = try #require(hooks.delivery(second))
        #expect(record.state == .failed && record.attempts == 1 && record.lastStatus == nil)
        #expect(record.lastError?.hasPrefix("refused by the SSRF guard: the host 'hooks.test' resolves to 203.0.113.7") == true)
        #expect(transport.requests.count == 1)
        #expect(log.all.count == 1)
    }

    @Test func aNameThatDoesNotResolveIsRetried() async throws {
        let clock = ManualClock()
        let failing = Mutex(true)
        let transport = FakeWebhookTransport()
        let hooks = dispatcher(transport, clock: clock,
                               configuration: WebhookConfiguration(url: "https://hooks.test/in", primarySecret: "primary-secret-0123"),
                               resolve: { host in
                                   if failing.withLock({ $0 }) { throw WebhookAddressError.unresolvable(host: host, reason: "no answer") }
                                   return ["127.0.0.2"]
                               })
        let id = hooks.enqueue(.chatCreated, chatID: 1, data: [:])
        await clock.waitForTimers { $0.contains(1) }
        #expect(hooks.delivery(id)?.lastError == "the host 'hooks.test' does not resolve: no answer")
        failing.withLock { $0 = false }
        clock.advance(by: 1)
        await hooks.idle()
        #expect(hooks.delivery(id)?.state == .delivered)
        #expect(transport.requests.map(\.pinnedAddresses) == [["127.0.0.2"]])
    }

    @Test func allowRemoteLetsAPublicAddressThrough() async throws {
        let transport = FakeWebhookTransport()
        let hooks = dispatcher(transport, clock: ManualClock(),
                               configuration: WebhookConfiguration(url: "https://hooks.example/in", primarySecret: "primary-secret-0123",
                                                                   allowRemote: true),
                               resolve: { _ in ["203.0.113.7"] })
        let id = hooks.enqueue(.chatCreated, chatID: 1, data: [:])
        await hooks.idle()
        #expect(hooks.delivery(id)?.state == .delivered)
        #expect(transport.requests.first?.pinnedAddresses == ["203.0.113.7"])
    }

    @Test func dataThatCannotBeWrittenAsJSONFailsWithoutAnAttempt() async throws {
        let transport = FakeWebhookTransport()
        let hooks = dispatcher(transport, clock: ManualClock())
        let id = hooks.enqueue(.chatCreated, chatID: 1, data: ["wait": .number(.infinity)])
        await hooks.idle()
        #expect(hooks.delivery(id)?.state == .failed)
        #expect(hooks.delivery(id)?.lastError == "the data cannot be written as JSON")
        #expect(transport.requests.isEmpty)
    }

    @Test func theLogIsANewestFirstRingReadInPages() async throws {
        var limits = WebhookDispatcher.Limits()
        limits.logEntries = 5
        let hooks = dispatcher(FakeWebhookTransport(), clock: ManualClock(), limits: limits)
        let ids = (1...7).map { hooks.enqueue(.agentMessage, chatID: $0, data: [:]) }
        await hooks.idle()
        #expect(hooks.deliveries().map(\.id) == Array(ids.suffix(5).reversed()))
        #expect(hooks.deliveries(limit: 2).map(\.id) == [ids[6], ids[5]])
        #expect(hooks.deliveries(before: ids[5], limit: 2).map(\.id) == [ids[4], ids[3]])
        #expect(hooks.deliveries(before: ids[3], limit: 10).map(\.id) == [ids[2]])
        #expect(hooks.delivery(ids[0]) == nil)
    }
}

extension WebhookDispatcher {
    /// What a receiver holding the configuration's primary secret checks with.
    var signing: WebhookSignature { WebhookDispatcherTests.configuration.signature }
}
