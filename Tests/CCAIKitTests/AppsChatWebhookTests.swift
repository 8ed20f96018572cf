import CCAIBridge
import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import Testing
import Timekeeping

/// The chat platform flow as an integrator's server meets it: the Apps API over real
/// loopback HTTP (``AppsClient``), the chat's events as signed webhooks to a receiver that
/// verifies them (``WebhookReceiver``), in order.
@Suite struct AppsChatWebhookTests {
    static let secret = "webhook-secret-0123456789"
    static let token = "apps-token-0123456789"

    /// A sandbox of the built-in company whose webhooks go to a receiver on a loopback port,
    /// served, and a client of its Apps API.
    static func serve() throws -> (HTTPServer, AppsClient, WebhookReceiver, AsyncStream<WebhookReceiver.Delivery>) {
        let (receiver, deliveries) = try WebhookReceiver.stream(signature: WebhookSignature(primarySecret: secret))
        var configuration = SandboxConfiguration.builtIn
        configuration.webhooks = WebhookConfiguration(url: "http://127.0.0.1:\(receiver.port)/", primarySecret: secret)
        configuration.apiCredentials = [APICredential(name: "test", token: token)]
        var limits = LimitsConfiguration()
        limits.appsRequestsPerSecond = 1_000
        limits.appsBurst = 1_000
        configuration.limits = limits
        let sandbox = try Sandbox(configuration: configuration, webhookTransport: CurlWebhookTransport.for(configuration), log: { _ in })
        let server = try sandbox.serve()
        let apps = try AppsClient(baseURL: server.baseURL, credentials: .init(subdomain: "acme", token: token))
        return (server, apps, receiver, deliveries)
    }

    /// The next deliveries of a chat until `last` (or the stream's end).
    static func deliveries(_ stream: inout AsyncStream<WebhookReceiver.Delivery>.Iterator, until last: String) async
        -> [WebhookReceiver.Delivery]
    {
        var received: [WebhookReceiver.Delivery] = []
        while let delivery = await stream.next() {
            received.append(delivery)
            if delivery.event == last { break }
        }
        return received
    }

    @Test(.timeLimit(.minutes(1))) func aServerChatsFromCreationToTheEndThroughSignedWebhooks() async throws {
        let (server, apps, receiver, stream) = try Self.serve()
        var events = stream.makeAsyncIterator()
        let user = try await apps.upsertEndUser(AppsEndUserRequest(identifier: "webhook-customer"))
        let waits = try await apps.waitTimes(AppsWaitTimeQuery(lang: "en", menuId: 8))
        #expect(waits.map(\.menuId) == [8])
        let chat = try await apps.startChat(AppsChatRequest(endUserId: user.id, menuId: 8))

        let greeting = await Self.deliveries(&events, until: "agent_message")
        #expect(greeting.first?.event == "chat_created", "\(greeting.map(\.event))")
        #expect(greeting.first?.data["id"] == .integer(Int64(chat.id)) && greeting.first?.data["end_user"]?["id"] == .integer(Int64(user.id)))
        #expect(greeting.allSatisfy { $0.chatID == chat.id })
        #expect(greeting.last?.data["sender"]?["name"] == "Ben" && greeting.last?.data["content"]?.stringValue?.contains("Ben") == true)

        _ = try await apps.sendMessage("Where is my order?", to: chat.id)
        let answer = await Self.deliveries(&events, until: "agent_message")
        #expect(answer.last?.data["content"]?.stringValue?.contains("Where is my order?") == true, "\(answer.map(\.data))")
        #expect(!answer.contains { $0.data["sender"]?["type"] == "end_user" }, "the server's own messages are not sent back")

        let finished = try await apps.updateChat(chat.id, AppsChatUpdate(chat: .init(status: "finished")))
        #expect(finished.status == "finished")
        let end = await Self.deliveries(&events, until: "chat_ended")
        #expect(end.last?.data["status"] == "finished" && end.last?.data["status_text"] == "finished_by_end_user")
        await receiver.stop()
        await server.stop()
    }

    /// A virtual agent's chat escalated by an option that deflects it: escalated, the
    /// platform's notice, deflected, ended.
    @Test(.timeLimit(.minutes(1))) func anEscalationAndADeflectionAreToldInOrder() async throws {
        let (server, apps, receiver, stream) = try Self.serve()
        var events = stream.makeAsyncIterator()
        let user = try await apps.upsertEndUser(AppsEndUserRequest(identifier: "deflected-customer"))
        let chat = try await apps.startChat(AppsChatRequest(endUserId: user.id, menuId: 7))
        let greeted = await Self.deliveries(&events, until: "virtual_agent_message")
        #expect(greeted.first?.event == "chat_created" && greeted.last?.data["sender"]?["name"] == "Nova")
        _ = try await apps.escalate(chat.id, AppsEscalationRequest(escalationId: 2))
        let rest = await Self.deliveries(&events, until: "chat_ended")
        let names = rest.map(\.event).filter { $0 != "system_message" }
        #expect(names == ["chat_escalated", "chat_deflected", "chat_ended"], "\(rest.map(\.event))")
        #expect(rest.first { $0.event == "chat_deflected" }?.data["deflection_channel"] == "email")
        #expect(rest.last?.data["status_text"] == "deflected")
        await receiver.stop()
        await server.stop()
    }
}
