import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

@Suite struct QueueMenuTests {
    /// Monday 30 November 2026, 10:00 in Los Angeles (18:00 UTC): open.
    static let mondayMorning = Date(timeIntervalSince1970: 1_796_061_600)
    /// The same Monday, 20:00 in Los Angeles: after hours.
    static let mondayEvening = mondayMorning.addingTimeInterval(10 * 3_600)

    /// Wire models decode with their own snake_case keys.
    private let decoder = JSONDecoder()

    /// A served sandbox and a token for it.
    private func serve(at date: Date, configuration: SandboxConfiguration = .builtIn) async throws -> (HTTPServer, String) {
        let sandbox = try Sandbox(configuration: configuration, clock: ManualClock(date))
        let server = try sandbox.serve()
        let jwt = try JWTSigner(algorithm: .hs384, secret: configuration.company.secret)
            .sign(["identifier": "menus"], issuedAt: date, lifetime: 600)
        let reply = try await Curl.request("POST", "\(server.baseURL)/auth/end_user",
                                           body: Data(#"{"company_key":"\#(configuration.company.key)","jwt":"\#(jwt)"}"#.utf8))
        let auth = try decoder.decode(AuthResponse.self, from: Data(reply.body.utf8))
        return (server, auth.authToken)
    }

    private func menus(_ server: HTTPServer, _ token: String, _ query: String = "") async throws -> QueueMenusResponse {
        let reply = try await Curl.request("GET", "\(server.baseURL)/queue_menus\(query)", headers: ["Authorization": "Bearer \(token)"])
        #expect(reply.status == 200, "\(reply.body)")
        return try decoder.decode(QueueMenusResponse.self, from: Data(reply.body.utf8))
    }

    @Test func theTreeDuringBusinessHours() async throws {
        let (server, token) = try await serve(at: Self.mondayMorning)
        let response = try await menus(server, token)
        #expect(response.isDirectAccess == false && response.language == "en")
        #expect(response.menus.map(\.id) == [1, 2, 3, 7, 8], "ordered by position, the hidden VIP queue left out")
        #expect(response.menus[1].children?.map(\.id) == [21, 22])
        let billing = response.menus[0]
        #expect(billing.name == "Billing")
        #expect(billing.channels?.chat?.enabled == true && billing.channels?.chat?.redaction == true)
        #expect(billing.channels?.voiceCall?.instantEnabled == true)
        #expect(billing.channels?.voiceCall?.recordingOption == .askUser)
        #expect(billing.redirectionExtra == nil && billing.deflectionFrom == nil)
        #expect(billing.getEnabledChannels() == [
            .chat, .instantCall, .scheduleCall(deflectionType: nil), .email(address: "billing@acme.test"),
            .externalDeflection(url: "https://help.acme.test", displayName: "Help Center"),
        ])
        #expect(response.menus.findMenu(byId: 22)?.name == "Internet")
        #expect(response.menus.findMenu(byId: 21)?.settings?.first?.sdk?.preSessionSmartAction == true)
        await server.stop()
    }

    @Test func afterHoursQueuesAreDeflected() async throws {
        let (server, token) = try await serve(at: Self.mondayEvening)
        let response = try await menus(server, token, "?language=es")
        let billing = try #require(response.menus.findMenu(byId: 1))
        #expect(billing.name == "Facturación")
        #expect(billing.channels?.chat?.deflected == true && billing.channels?.chat?.deflectedReason == "after_hours")
        #expect(billing.channels?.voiceCall?.instantEnabled == false)
        #expect(billing.channels?.voiceCall?.voicemailReason == .afterHourDeflection)
        #expect(billing.redirectionExtra == QueueMenuRedirection(
            menuId: 7, deflectionType: .afterHourDeflection,
            message: "Estamos cerrados. Nuestro turno de noche puede ayudarle."))
        #expect(billing.getEnabledChannels().contains(.scheduleCall(deflectionType: .afterHourDeflection)))
        #expect(!billing.getEnabledChannels().contains(.chat))
        let nightDesk = try #require(response.menus.findMenu(byId: 7))
        #expect(nightDesk.channels?.chat?.enabled == true, "open around the clock")
        #expect(nightDesk.deflectionFrom == [QueueMenuDeflection(deflectionType: .afterHourDeflection, menuId: 1)])
        await server.stop()
    }

    @Test func overCapacityQueuesAreDeflected() async throws {
        let configuration = try await LuaConfigurations.configuration("""
            menus = {
              { id = 1, name = "Full", capacity = { max_waiting = 0 }, deflection = { over_capacity = 2 }, channels = { chat = {} } },
              { id = 2, name = "Overflow", channels = { chat = {} } }
            }
            """)
        let (server, token) = try await serve(at: Self.mondayEvening, configuration: configuration)
        let response = try await menus(server, token)
        #expect(response.menus[0].channels?.chat?.deflectedReason == "over_capacity")
        #expect(response.menus[0].redirectionExtra?.deflectionType == .overCapacityDeflection)
        #expect(response.menus[1].deflectionFrom == [QueueMenuDeflection(deflectionType: .overCapacityDeflection, menuId: 1)])
        await server.stop()
    }

    /// The answer is encoded once for each state of the queues (QueueMenuEncodings): the
    /// same bytes while nothing changes, a new answer as soon as a queue goes over its
    /// capacity, and a direct access key's its own (languages: directAccessKeysAndLanguages).
    @Test func theAnswerFollowsTheQueuesAsTheyChange() async throws {
        let configuration = try await LuaConfigurations.configuration("""
            menus = {
              { id = 1, name = "Full", capacity = { max_waiting = 1 }, deflection = { over_capacity = 2 },
                direct_access_keys = { "full" }, channels = { chat = {} } },
              { id = 2, name = "Overflow", channels = { chat = {} } }
            }
            """)
        let (server, token) = try await serve(at: Self.mondayMorning, configuration: configuration)
        let headers = ["Authorization": "Bearer \(token)"]
        let first = try await Curl.request("GET", "\(server.baseURL)/queue_menus", headers: headers)
        #expect(try await Curl.request("GET", "\(server.baseURL)/queue_menus", headers: headers).body == first.body)
        #expect(try await menus(server, token, "?key=full").isDirectAccess)
        #expect(try await menus(server, token).menus[0].channels?.chat?.deflected == false)
        let chat = try await Curl.request("POST", "\(server.baseURL)/chats", body: Data(#"{"menu_id": 1}"#.utf8), headers: headers)
        #expect(chat.status == 201 && chat.body.contains(#""status":"queued""#), "\(chat.body)")
        let full = try await menus(server, token)
        #expect(full.menus[0].channels?.chat?.deflectedReason == "over_capacity")
        #expect(full.menus[1].deflectionFrom == [QueueMenuDeflection(deflectionType: .overCapacityDeflection, menuId: 1)])
        #expect(try await menus(server, token, "?key=full").menus[0].channels?.chat?.deflected == true)
        await server.stop()
    }

    @Test func directAccessKeysAndLanguages() async throws {
        let (server, token) = try await serve(at: Self.mondayMorning)
        let vip = try await menus(server, token, "?key=vip")
        #expect(vip.isDirectAccess && vip.menus.map(\.id) == [9] && vip.menus[0].hidden == true)
        let order = try await menus(server, token, "?key=order-help&language=es-MX")
        #expect(order.isDirectAccess && order.menus[0].name == "Facturación" && order.language == "es")
        let unknown = try await menus(server, token, "?key=nope&language=fr")
        #expect(!unknown.isDirectAccess && unknown.menus.count == 5 && unknown.language == "en")
        await server.stop()
    }

    @Test func waitTimes() async throws {
        let (server, token) = try await serve(at: Self.mondayMorning)
        let headers = ["Authorization": "Bearer \(token)"]
        let billing = try await Curl.request("GET", "\(server.baseURL)/queue_menus/1/wait_times", headers: headers)
        #expect(billing.body == #"{"chat":10,"voice_call":10}"#, "nobody waits: the published 10 s")
        let sales = try await Curl.request("GET", "\(server.baseURL)/queue_menus/3/wait_times", headers: headers)
        #expect(sales.body == "{}")
        #expect(try await Curl.request("GET", "\(server.baseURL)/queue_menus/404/wait_times", headers: headers).status == 404)
        #expect(try await Curl.request("GET", "\(server.baseURL)/queue_menus/abc/wait_times", headers: headers).status == 400)
        #expect(try await Curl.request("GET", "\(server.baseURL)/queue_menus").status == 401)
        await server.stop()
    }

    @Test func menuConfigurationsAreValidated() async throws {
        let cases = [
            ("{ { id = 1, name = 'a' }, { id = 1, name = 'b' } }", "the id 1 is used twice"),
            ("{ { id = 1, name = 'a', deflection = { after_hours = 5 } } }", "there is no menu 5"),
            ("{ { id = 1, name = 'a', direct_access_keys = { 'k' } }, { id = 2, name = 'b', direct_access_keys = { 'k' } } }", "'k' is used twice"),
            ("{ { id = 1, name = 'a', hours = { mon = '9-5' } } }", "is not like"),
            ("{ { id = 1, name = 'a', hours = { someday = true } } }", "'someday' is not a day"),
            ("{ { id = 1, name = 'a', channels = { voice_call = { recording = 'sometimes' } } } }", "menus[1].channels.voice_call.recording"),
            ("{ { id = 1, name = 'a', chanels = { chat = {} } } }", "menus[1].chanels: unknown field (did you mean 'channels'?)"),
            ("{ { id = 1, name = 'a', children = { { id = 2, name = 'b', hidenn = true } } } }",
             "menus[1].children[1].hidenn: unknown field (did you mean 'hidden'?)"),
        ]
        for (menus, message) in cases {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("menus-\(UUID().uuidString).lua").path
            try """
                return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s" },
                         menus = \(menus) }
                """.write(toFile: path, atomically: true, encoding: .utf8)
            do {
                _ = try await SandboxConfiguration.load(file: path)
                Issue.record("expected an error for \(menus)")
            } catch let error as ConfigurationError {
                #expect(error.message.contains(message), "\(error.message)")
            }
        }
    }
}

extension QueueMenuTests {
    /// A file with several mistakes reports them all at once, unknown fields first.
    @Test func everyProblemOfAFileIsReportedInOneRun() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("typos-\(UUID().uuidString).lua").path
        try """
            return { company = { name = "x", languages = { "en" }, time_zone = "Mars/Olympus", key = "k", secret = "s",
                                 supprt_email = "help@x.test" },
                     agent = { { name = "Ava", menus = { 1 } } },
                     menus = { { id = 1, name = "a" }, { id = 1, name = "b" } } }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try await SandboxConfiguration.load(file: path)
            Issue.record("the mistakes are refused")
        } catch let error as ConfigurationError {
            for expected in ["4 problems", "agent: unknown field (did you mean 'agents'?)",
                             "company.supprt_email: unknown field (did you mean 'support_email'?)",
                             "company.time_zone: 'Mars/Olympus' is not an IANA time zone", "menus: the id 1 is used twice"] {
                #expect(error.message.contains(expected), "\(expected) in \(error.message)")
            }
        }
    }
}

/// Builds configurations from Lua text, as a configuration file would.
enum LuaConfigurations {
    /// A company (key `dev-key`, secret `dev-secret`, UTC, always open) with `fields`
    /// (Lua table fields: `menus = {...}, agents = {...}`).
    static func configuration(_ fields: String) async throws -> SandboxConfiguration {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString).lua")
        try await write(path, fields)
        return try await SandboxConfiguration.load(file: path.path)
    }

    /// Writes that company with `fields` to `file` (for configurations that name files beside them).
    static func write(_ file: URL, _ fields: String) async throws {
        try """
            return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     \(fields) }
            """.write(to: file, atomically: true, encoding: .utf8)
    }
}
