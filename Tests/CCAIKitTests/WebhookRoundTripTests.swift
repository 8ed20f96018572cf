import CCAIBridge
import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import Testing
import Timekeeping

/// The whole way over real loopback HTTP: a sandbox's webhook queue POSTs through libcurl
/// (CCAIBridge's `CurlWebhookTransport`), and the receiver scripts use verifies and hands
/// on each delivery, in order; a receiver that refuses is retried, then given up.
@Suite struct WebhookRoundTripTests {
    let secrets = (primary: "primary-secret-0123", secondary: "secondary-secret-4567")

    func sandbox(url: String, allowRemote: Bool? = nil) throws -> Sandbox {
        var configuration = SandboxConfiguration.builtIn
        configuration.webhooks = WebhookConfiguration(url: url, primarySecret: secrets.primary, secondarySecret: secrets.secondary,
                                                      allowRemote: allowRemote)
        return try Sandbox(configuration: configuration, webhookTransport: CurlWebhookTransport.for(configuration), log: { _ in })
    }

    @Test func theSandboxsDeliveriesReachTheReceiverSignedAndInOrder() async throws {
        let (receiver, deliveries) = try WebhookReceiver.stream(path: "/hooks", signature: WebhookSignature(primarySecret: secrets.primary))
        // By name: the guard resolves localhost and pins what it checked.
        let hooks = try #require(try sandbox(url: "http://localhost:\(receiver.port)/hooks").webhooks)
        hooks.enqueue(.chatCreated, chatID: 42, data: ["id": 42, "status": "queued"])
        hooks.enqueue(.agentMessage, chatID: 42, data: ["text": "Hi, I'm Ava"])
        hooks.enqueue(.chatEnded, chatID: 42, data: ["id": 42, "status": "finished"])
        await hooks.idle()
        await receiver.stop()
        var received: [WebhookReceiver.Delivery] = []
        for await delivery in deliveries { received.append(delivery) }
        #expect(received.map(\.event) == ["chat_created", "agent_message", "chat_ended"])
        #expect(received.map(\.chatID) == [42, 42, 42])
        #expect(received[1].data == ["text": "Hi, I'm Ava"])
        #expect(hooks.deliveries().allSatisfy { $0.state == .delivered && $0.lastStatus == 204 && $0.attempts == 1 })
    }

    @Test func aReceiverWithOtherSecretsRefusesAndTheDeliveryFailsWithoutRetrying() async throws {
        let (receiver, deliveries) = try WebhookReceiver.stream(signature: WebhookSignature(primarySecret: "not-the-sandboxs-secret"))
        let hooks = try #require(try sandbox(url: "http://127.0.0.1:\(receiver.port)/").webhooks)
        let id = hooks.enqueue(.chatCreated, chatID: 1, data: [:])
        await hooks.idle()
        await receiver.stop()
        var received = 0
        for await _ in deliveries { received += 1 }
        #expect(received == 0)
        let record = try #require(hooks.delivery(id))
        #expect(record.state == .failed && record.lastStatus == 401 && record.attempts == 1)
    }

    /// The transport connects to the addresses the guard checked and makes no lookup of
    /// its own: a name no resolver knows is reached at its pinned address.
    @Test func theTransportConnectsToThePinnedAddressesOnly() async throws {
        let (receiver, deliveries) = try WebhookReceiver.stream(signature: WebhookSignature(primarySecret: secrets.primary))
        let configuration = WebhookConfiguration(url: "http://hooks.invalid:\(receiver.port)/", primarySecret: secrets.primary)
        let hooks = WebhookDispatcher(configuration: configuration, transport: CurlWebhookTransport(), clock: SystemClock(),
                                      resolve: { _ in ["127.0.0.1"] }, log: { _ in })
        let id = hooks.enqueue(.chatCreated, chatID: 5, data: [:])
        await hooks.idle()
        await receiver.stop()
        var received: [Int] = []
        for await delivery in deliveries { received.append(delivery.chatID) }
        #expect(received == [5])
        #expect(hooks.delivery(id)?.state == .delivered)
    }

    @Test func aRedirectIsNotFollowed() async throws {
        var router = HTTPRouter()
        router.add("POST", "/", authentication: .none) { _ in
            HTTPResponse(status: 307, headers: ["Location": "http://169.254.169.254/latest/meta-data"])
        }
        let server = try HTTPServer(router: router)
        let hooks = try #require(try sandbox(url: "http://127.0.0.1:\(server.port)/").webhooks)
        let id = hooks.enqueue(.chatCreated, chatID: 1, data: [:])
        await hooks.idle()
        await server.stop()
        #expect(hooks.delivery(id)?.lastStatus == 307)
        #expect(hooks.delivery(id)?.lastError == "the receiver answered 307: redirects are not followed")
    }
}
