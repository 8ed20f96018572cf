import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// The SSRF guard of webhook URLs and the `webhooks` section of a configuration: every
/// way a URL could lead the sandbox off this machine is refused, each with a clear error.
struct WebhookGuardTests {
    let loopbackOnly = WebhookAddressGuard(allowRemote: false, resolve: { _ in ["127.0.0.1"] })

    @Test(arguments: ["127.0.0.1", "127.255.3.4", "::1", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"])
    func loopbackAddresses(address: String) {
        #expect(WebhookAddressGuard.isLoopback(address))
    }

    @Test(arguments: ["0.0.0.0", "10.0.0.1", "169.254.169.254", "128.0.0.1", "126.255.255.255", "::", "::2",
                      "::ffff:10.0.0.1", "fe80::1", "fc00::1", "localhost", "127.0.0.1.nip.io", "2130706433", ""])
    func notLoopbackAddresses(address: String) {
        #expect(!WebhookAddressGuard.isLoopback(address))
    }

    @Test(arguments: [
        ("ftp://127.0.0.1/hooks", "the scheme 'ftp' is not allowed: http or https expected"),
        ("file:///etc/passwd", "the scheme 'file' is not allowed: http or https expected"),
        ("gopher://127.0.0.1:70/", "the scheme 'gopher' is not allowed: http or https expected"),
        ("http://user:password@127.0.0.1/", "the URL must not carry a user name or password"),
        ("http://token@127.0.0.1/", "the URL must not carry a user name or password"),
        ("http:///hooks", "'http:///hooks' is not a URL with a host (http://127.0.0.1:9000/hooks, say)"),
        ("127.0.0.1:9000", "'127.0.0.1:9000' is not a URL with a host (http://127.0.0.1:9000/hooks, say)"),
        ("http://127.0.0.1:0/", "'http://127.0.0.1:0/' is not a URL with a host (http://127.0.0.1:9000/hooks, say)"),
        ("not a url", "'not a url' is not a URL with a host (http://127.0.0.1:9000/hooks, say)"),
    ])
    func malformedOrDangerousURLsAreRefused(url: String, message: String) {
        #expect(throws: WebhookAddressError.self) { try loopbackOnly.target(url) }
        do { _ = try loopbackOnly.target(url) } catch { #expect(String(describing: error) == message) }
    }

    @Test func literalsAreCheckedThemselvesAndNamesByWhatTheyResolveTo() throws {
        let v6 = try loopbackOnly.target("http://[::1]:8080/in")
        #expect(v6.host == "::1" && v6.port == 8080 && v6.isLiteral)
        #expect(try loopbackOnly.addresses(of: v6) == ["::1"])
        #expect(throws: WebhookAddressError.notLoopback(host: "10.1.2.3", addresses: ["10.1.2.3"])) {
            try loopbackOnly.addresses(of: try loopbackOnly.target("http://10.1.2.3/"))
        }
        #expect(throws: WebhookAddressError.notLoopback(host: "0.0.0.0", addresses: ["0.0.0.0"])) {
            try loopbackOnly.addresses(of: try loopbackOnly.target("http://0.0.0.0:9000/"))
        }
        let rebinding = WebhookAddressGuard(allowRemote: false, resolve: { _ in ["127.0.0.1", "169.254.169.254"] })
        #expect(throws: WebhookAddressError.notLoopback(host: "evil.test", addresses: ["169.254.169.254"])) {
            try rebinding.addresses(of: try rebinding.target("https://evil.test/"))
        }
        let nothing = WebhookAddressGuard(allowRemote: false, resolve: { _ in [] })
        #expect(throws: WebhookAddressError.unresolvable(host: "void.test", reason: "no address")) {
            try nothing.addresses(of: try nothing.target("http://void.test/"))
        }
        let https = try loopbackOnly.target("HTTPS://LocalHost/in")
        #expect(https.port == 443 && !https.isLiteral)
    }

    @Test func theSystemResolverSeesLocalhostAsLoopbackAndANumericNameAsWhatItMeans() throws {
        let system = WebhookAddressGuard(allowRemote: false)
        let addresses = try system.addresses(of: try system.target("http://localhost:9000/"))
        #expect(!addresses.isEmpty && addresses.allSatisfy(WebhookAddressGuard.isLoopback))
        // 2130706433 is 127.0.0.1 to the resolver: a name, resolved and pinned like any other.
        let numeric = try system.target("http://2130706433:9000/")
        #expect(!numeric.isLiteral)
        #expect(try system.addresses(of: numeric) == ["127.0.0.1"])
        #expect(throws: WebhookAddressError.self) { try system.addresses(of: try system.target("http://nowhere.invalid/")) }
    }

    // MARK: The configuration

    private func load(_ webhooks: String) async throws -> SandboxConfiguration {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hooks-\(UUID().uuidString).lua").path
        try """
            return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                     webhooks = \(webhooks) }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return try await SandboxConfiguration.load(file: path)
    }

    @Test func aConfigurationNamesItsWebhooks() async throws {
        let configuration = try await load("""
            { url = "http://localhost:9000/hooks", primary_secret = "0123456789abcdef", secondary_secret = "fedcba9876543210" }
            """)
        #expect(configuration.webhooks == WebhookConfiguration(url: "http://localhost:9000/hooks", primarySecret: "0123456789abcdef",
                                                               secondarySecret: "fedcba9876543210"))
        let remote = try await load(#"{ url = "https://hooks.example.com/in", primary_secret = "0123456789abcdef", allow_remote = true }"#)
        #expect(remote.webhooks?.allowRemote == true)
    }

    @Test(arguments: [
        (#"{ url = "http://10.0.0.8/in", primary_secret = "0123456789abcdef" }"#,
         "webhooks.url: the host '10.0.0.8' resolves to 10.0.0.8, not only loopback addresses; set allow_remote = true"),
        (#"{ url = "ftp://127.0.0.1/in", primary_secret = "0123456789abcdef" }"#,
         "webhooks.url: the scheme 'ftp' is not allowed"),
        (#"{ url = "http://me:pw@127.0.0.1/in", primary_secret = "0123456789abcdef" }"#,
         "webhooks.url: the URL must not carry a user name or password"),
        (#"{ url = "http://127.0.0.1/in", primary_secret = "" }"#, "webhooks.primary_secret: must not be empty"),
        (#"{ url = "http://127.0.0.1/in", primary_secret = "short" }"#,
         "webhooks.primary_secret: at least 16 bytes expected, got 5"),
        (#"{ url = "http://127.0.0.1/in", primary_secret = "0123456789abcdef", secondary_secret = "0123456789abcdef" }"#,
         "webhooks.secondary_secret: must differ from primary_secret"),
        (#"{ url = "http://127.0.0.1/in" }"#, "webhooks.primary_secret"),
        (#"{ url = "http://127.0.0.1/in", primary_secret = "0123456789abcdef", allow_remotes = true }"#,
         "webhooks.allow_remotes: unknown field (did you mean 'allow_remote'?)"),
        (#"{ url = 9000, primary_secret = "0123456789abcdef" }"#, "webhooks.url: string expected, got number"),
    ])
    func badWebhookSectionsSayWhatIsWrong(section: String, message: String) async throws {
        let error = await #expect(throws: ConfigurationError.self) { try await load(section) }
        #expect(error?.problems.contains { $0.hasPrefix(message) } == true, "\(error?.problems ?? [])")
    }

    // MARK: The sandbox

    static let configured: SandboxConfiguration = {
        var configuration = SandboxConfiguration.builtIn
        configuration.webhooks = WebhookConfiguration(url: "http://127.0.0.1:9/hooks", primarySecret: "0123456789abcdef")
        configuration.adminToken = "admin-token"
        return configuration
    }()

    @Test func aSandboxWithWebhooksNeedsATransport() throws {
        let error = #expect(throws: ConfigurationError.self) { try Sandbox(configuration: Self.configured, log: { _ in }) }
        #expect(error?.message.contains("no HTTP client") == true)
        #expect(try Sandbox(configuration: .builtIn).webhooks == nil)
    }

    @Test func theAdminReadsTheDeliveriesNewestFirstInPages() async throws {
        let transport = FakeWebhookTransport([.status(500)])
        let sandbox = try Sandbox(configuration: Self.configured, clock: ManualClock(), webhookTransport: transport, log: { _ in })
        let hooks = try #require(sandbox.webhooks)
        let first = hooks.enqueue(.chatCreated, chatID: 1, data: [:])
        let second = hooks.enqueue(.chatCreated, chatID: 2, data: [:])
        _ = await transport.posted.next()
        _ = await transport.posted.next()
        let client = InProcessClient(sandbox)
        let all = await client.call("GET", "/admin/webhook_deliveries", token: "admin-token")
        #expect(all.status == 200)
        let records = try all.decode(as: WebhookDeliveryRecords.self).deliveries
        #expect(records.map(\.id) == [second, first])
        #expect(records.first?.url == "http://127.0.0.1:9/hooks" && records.first?.event == "chat_created")
        #expect(all.text.contains(#""chat_id":2"#))
        let older = await client.call("GET", "/admin/webhook_deliveries", query: ["before": String(second), "limit": "5"],
                                      token: "admin-token")
        #expect(try older.decode(as: WebhookDeliveryRecords.self).deliveries.map(\.id) == [first])
        let bad = await client.call("GET", "/admin/webhook_deliveries", query: ["before": "-1"], token: "admin-token")
        #expect(bad.status == 400 && bad.text.contains("before must be a whole number"))
        #expect(await client.call("GET", "/admin/webhook_deliveries", token: "not-it").status == 403)
        #expect(await client.call("GET", "/admin/webhook_deliveries", token: nil).status == 401)
    }

    @Test func withoutWebhooksTheLogIsEmpty() async throws {
        var configuration = SandboxConfiguration.builtIn
        configuration.adminToken = "admin-token"
        let reply = await InProcessClient(try Sandbox(configuration: configuration)).call("GET", "/admin/webhook_deliveries",
                                                                                            token: "admin-token")
        #expect(reply.status == 200 && reply.text == #"{"deliveries":[]}"#)
    }
}
