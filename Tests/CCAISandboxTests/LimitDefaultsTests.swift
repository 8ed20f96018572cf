import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// A sandbox that serves one run (the embedded sandbox of `ccai run`) applies no default
/// rate or quota, so a load test needs no configuration to lift them; the limits a
/// configuration sets apply there too, and a shared sandbox keeps every default. The
/// sandboxes' clocks stand still, so no rate refills while a test runs.
@Suite struct LimitDefaultsTests {
    private static let help = "menus = { { id = 1, name = \"Help\", channels = { chat = {} } } }"

    /// Starts and ends `count` chats as `token`; the status of the last start.
    private func chats(_ client: InProcessClient, _ token: String, count: Int) async throws -> InProcessClient.Reply {
        var last = await client.call("POST", "/chats", token: token, json: #"{"menu_id": 1}"#)
        for made in 1...count {
            if made > 1 { last = await client.call("POST", "/chats", token: token, json: #"{"menu_id": 1}"#) }
            guard last.status == 201 || last.status == 200 else { return last }
            let id = try #require((try JSONSerialization.jsonObject(with: last.body) as? [String: Any])?["id"] as? Int)
            #expect(await client.call("POST", "/chats/\(id)/end", token: token).status == 200)
        }
        return last
    }

    @Test func aRunsOwnSandboxAppliesNoDefaultQuotaOrRate() async throws {
        let configuration = try await LuaConfigurations.configuration(Self.help)
        let clock = ManualClock()
        let own = InProcessClient(try Sandbox(configuration: configuration, clock: clock, limitDefaults: .onlyConfigured))
        var token = ""
        for _ in 1...12 { token = try await own.signIn("own-ana", at: clock.now()) }   // past 10 sign-ins a minute
        let sixtyFirst = try await chats(own, token, count: 61)                     // past 60 chats an hour
        #expect(sixtyFirst.status == 201 || sixtyFirst.status == 200, "\(sixtyFirst.text)")

        let shared = InProcessClient(try Sandbox(configuration: configuration, clock: clock))
        let ana = try await shared.signIn("shared-ana", at: clock.now())
        let refused = try await chats(shared, ana, count: 61)
        #expect(refused.status == 429 && refused.text.contains("limits.chats_per_hour"), "a shared sandbox keeps its defaults")
    }

    @Test func theLimitsAConfigurationSetsApplyOnARunsOwnSandbox() async throws {
        let configuration = try await LuaConfigurations.configuration(Self.help + ", limits = { chats_per_hour = 2, burst = 5 }")
        let clock = ManualClock()
        let own = InProcessClient(try Sandbox(configuration: configuration, clock: clock, limitDefaults: .onlyConfigured))
        let ana = try await own.signIn("set-ana", at: clock.now())
        let third = try await chats(own, ana, count: 3)
        #expect(third.status == 429 && third.text.contains("limits.chats_per_hour") && third.headers["Retry-After"] == "60",
                "\(third.text)")
        let bob = try await own.signIn("set-bob", at: clock.now())
        var statuses: [Int] = []
        for _ in 1...6 { statuses.append(await own.call("GET", "/company", token: bob).status) }
        #expect(statuses.last == 429, "a burst set alone brings the rate's default with it: \(statuses)")
    }
}
