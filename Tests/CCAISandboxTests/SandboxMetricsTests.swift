@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Timekeeping
import Testing

/// `GET /admin/metrics` of a sandbox made with metrics (`ccai sandbox serve --metrics`).
@Suite struct SandboxMetricsTests {
    static func sandbox(collectsMetrics: Bool = true) async throws -> InProcessClient {
        var configuration = try await LuaConfigurations.configuration("""
            menus = { { id = 1, name = 'Say "hi"\\n', channels = { chat = {} } },
                      { id = 2, name = "Lines", channels = { voice_call = { instant = true } } } }
            """)
        configuration.adminToken = "operator-token"
        return InProcessClient(try Sandbox(configuration: configuration, clock: ManualClock(QueueMenuTests.mondayMorning),
                                           collectsMetrics: collectsMetrics))
    }

    @Test func requestsAreCountedByRouteAndStatusAndQueuesShowWhatWaits() async throws {
        let client = try await Self.sandbox()
        #expect(await client.call("GET", "/queue_menus").status == 401)
        #expect(await client.call("GET", "/no/such/route").status == 404)
        let token = try await client.signIn("metrics-ana", at: client.sandbox.clock.now())
        #expect(await client.call("POST", "/chats", token: token, json: #"{"menu_id": 1}"#).status == 201)

        let reply = await client.call("GET", "/admin/metrics", token: "operator-token")
        #expect(reply.status == 200 && reply.headers["Content-Type"] == PrometheusText.contentType)
        let samples = try PrometheusSamples(reply.text)
        let requests = "ccai_sandbox_requests_total"
        #expect(samples.value(requests, ["route": "GET /queue_menus", "status": "401"]) == 1, "refused on its headers")
        #expect(samples.value(requests, ["route": "unmatched", "status": "404"]) == 1)
        #expect(samples.value(requests, ["route": "POST /auth/end_user", "status": "200"]) == 1)
        #expect(samples.value(requests, ["route": "POST /chats", "status": "201"]) == 1)
        #expect(samples.value("ccai_sandbox_request_seconds_count", ["route": "POST /chats"]) == 1)
        #expect(samples.value("ccai_sandbox_request_seconds_count", ["route": "GET /queue_menus"]) == nil, "no handler ran")
        #expect(samples.types["ccai_sandbox_request_seconds"] == "histogram")

        let chatQueue = ["menu_id": "1", "menu": "Say \"hi\"\n", "channel": "chat"]
        #expect(samples.value("ccai_sandbox_queue_length", chatQueue) == 1, "the menu's name comes back as it was written")
        #expect(samples.value("ccai_sandbox_queue_length", ["menu_id": "2", "menu": "Lines", "channel": "voice_call"]) == 0)
        #expect(samples.named("ccai_sandbox_queue_length").count == 2, "a queue shows the channels it takes")
        #expect(samples.value("ccai_sandbox_agents") == 0 && samples.value("ccai_sandbox_agents_busy") == 0)
        #expect(samples.value("ccai_sandbox_event_streams") == 0)
        #expect((samples.value("ccai_sandbox_store_statement_seconds_count") ?? 0) > 0, "the sign-in and the chat wrote")

        let again = try PrometheusSamples(await client.call("GET", "/admin/metrics", token: "operator-token").text)
        #expect(again.value(requests, ["route": "GET /admin/metrics", "status": "200"]) == 1, "the scrape before counts")
    }

    @Test func theMetricsNeedTheAdminToken() async throws {
        let client = try await Self.sandbox()
        #expect(await client.call("GET", "/admin/metrics").status == 401)
        #expect(await client.call("GET", "/admin/metrics", token: "guess").status == 403)
        let endUser = try await client.signIn("metrics-bob", at: client.sandbox.clock.now())
        #expect(await client.call("GET", "/admin/metrics", token: endUser).status == 403, "an end user's token is not the admin's")
    }

    @Test func aSandboxWithoutMetricsSaysHowToTurnThemOn() async throws {
        let client = try await Self.sandbox(collectsMetrics: false)
        let reply = await client.call("GET", "/admin/metrics", token: "operator-token")
        #expect(reply.status == 404 && reply.text.contains("--metrics"), "\(reply.text)")
        #expect(client.router.tally == nil, "nothing is counted")
    }
}
