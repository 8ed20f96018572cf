import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// The platform's published Apps API, as a client written from the public pages alone
/// calls it: over the wire, HTTP Basic credentials, the published paths and fields.
@Suite struct AppsAPITests {
    static let token = "s3cret-token-0123456789"
    static let company = """
        company = { name = "Acme", languages = { "en", "es" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret",
                    subdomain = "acme" },
        api_credentials = { { name = "ci", token = "\(token)" }, { name = "rotated", token = "another-token-9876543210" } },
        menus = { { id = 1, name = "Support", channels = { chat = {}, voice_call = { instant = true } },
                    children = { { id = 2, name = "Billing", channels = { chat = {} } } } } },
        agents = { { name = "Ava Stone", menus = { 1, 2 } } }
        """

    /// A sandbox with the Apps API on a loopback port, its clock manual.
    static func serve(limits: String = "limits = { apps_requests_per_second = 10000, apps_burst = 10000 },")
        async throws -> (HTTPServer, ManualClock)
    {
        let (sandbox, clock) = try await sandbox(limits: limits)
        return (try sandbox.serve(), clock)
    }

    /// The sandbox ``serve(limits:)`` serves.
    static func sandbox(limits: String = "limits = { apps_requests_per_second = 10000, apps_burst = 10000 },")
        async throws -> (Sandbox, ManualClock)
    {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apps-\(UUID().uuidString).lua")
        try "return { \(limits) \(company) }".write(to: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: path) }
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        return (try Sandbox(configuration: try await SandboxConfiguration.load(file: path.path), clock: clock), clock)
    }

    static func basic(_ user: String, _ password: String) -> [String: String] {
        ["Authorization": "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
    }

    static func call(_ server: HTTPServer, _ method: String, _ path: String, _ body: String? = nil,
                     headers: [String: String] = basic("acme", token)) async throws -> Curl.Reply {
        var headers = headers
        if body != nil { headers["Content-Type"] = "application/json" }
        return try await Curl.request(method, server.baseURL + path, body: body.map { Data($0.utf8) }, headers: headers)
    }

    static func json(_ reply: Curl.Reply) throws -> JSONValue { try JSONValue(jsonText: reply.body) }

    @Test func credentialsAreTheSubdomainAndATokenAndARefusalSaysNothingOfWhichPart() async throws {
        let (server, _) = try await Self.serve()
        let refusals = [
            [:], Self.basic("acme", "wrong-token-0123456789"), Self.basic("other", Self.token), Self.basic("acme", ""),
            ["Authorization": "Basic !!!not-base64"], ["Authorization": "Bearer \(Self.token)"],
        ]
        var bodies = Set<String>()
        for headers in refusals {
            let reply = try await Self.call(server, "GET", "/apps/api/v1/wait_times?lang=en", headers: headers)
            #expect(reply.status == 401)
            #expect(reply.headers["www-authenticate"]?.hasPrefix("Basic") == true)
            bodies.insert(reply.body)
        }
        #expect(bodies.count == 1, "one answer whatever was wrong: \(bodies)")
        #expect(try await Self.call(server, "GET", "/apps/api/v1/wait_times?lang=en").status == 200)
        #expect(try await Self.call(server, "GET", "/apps/api/v1/wait_times?lang=en",
                                    headers: Self.basic("acme", "another-token-9876543210")).status == 200, "either credential")
        await server.stop()
    }

    @Test func aBurstPastTheCompanysRateIsA429UntilTheSecondHasPassed() async throws {
        let (server, clock) = try await Self.serve(limits: "")
        for _ in 0..<10 { #expect(try await Self.call(server, "GET", "/apps/api/v1/end_users?identifier=nobody").status == 404) }
        let refused = try await Self.call(server, "GET", "/apps/api/v1/end_users?identifier=nobody")
        #expect(refused.status == 429)
        #expect(refused.headers["retry-after"] == "1")
        #expect(try Self.json(refused)["error"]?["code"]?.stringValue == "limit_exceeded")
        #expect(try await Self.call(server, "GET", "/apps/api/v1/end_users?identifier=nobody",
                                    headers: Self.basic("acme", "wrong-token-0123456789")).status == 401, "a stranger spends no rate")
        clock.advance(by: 1)
        #expect(try await Self.call(server, "GET", "/apps/api/v1/end_users?identifier=nobody").status == 404)
        await server.stop()
    }

    @Test func endUsersAreUpsertedByIdentifierAndAreTheSDKs() async throws {
        let (server, _) = try await Self.serve()
        let created = try await Self.call(server, "POST", "/apps/api/v1/end_users", #"{"identifier": "cust-1", "name": "Jo"}"#)
        #expect(created.status == 200)
        let id = try #require(try Self.json(created)["id"]?.intValue)
        #expect(try Self.json(created)["identifier"]?.stringValue == "cust-1")
        let updated = try await Self.call(server, "POST", "/apps/api/v1/end_users", #"{"end_user": {"identifier": "cust-1", "email": "jo@x.test"}}"#)
        #expect(try Self.json(updated)["id"]?.intValue == id, "an upsert, not a second end user")
        #expect(try Self.json(try await Self.call(server, "GET", "/apps/api/v1/end_users?identifier=cust-1"))["id"]?.intValue == id)
        #expect(try Self.json(try await Self.call(server, "GET", "/apps/api/v1/end_users?id=\(id)"))["identifier"]?.stringValue == "cust-1")
        let signedIn = try await SandboxHTTP.token(server, "cust-1")
        let profile = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/end_user", signedIn), as: EndUser.self)
        #expect(profile.id == id && profile.name == "Jo" && profile.email == "jo@x.test", "the SDK signs in the same end user")
        for (path, status) in [("", 404), ("?id=\(id)&identifier=cust-1", 200), ("?id=\(id)&identifier=other", 404), ("?id=0", 400),
                               ("?id=x", 400), ("?identifier=none", 404), ("?identifer=cust-1", 400)] {
            #expect(try await Self.call(server, "GET", "/apps/api/v1/end_users" + path).status == status, "\(path)")
        }
        #expect(try await Self.call(server, "POST", "/apps/api/v1/end_users", #"{"identifier": ""}"#).status == 400)
        for name in [#"a\u202Eb"#, #"a\udb40\udc77b"#, #"a\u0000b"#] {
            #expect(try await Self.call(server, "POST", "/apps/api/v1/end_users", #"{"identifier": "x", "name": "\#(name)"}"#).status == 400,
                    "control and format characters, in the BMP or past it: \(name)")
        }
        #expect(try await Self.call(server, "POST", "/apps/api/v1/end_users", #"{"identifier": "x", "phone": "\#(String(repeating: "9", count: 65))"}"#)
            .status == 400)
        await server.stop()
    }

    @Test func waitTimesListEachMenuWithItsStaffingAndFilter() async throws {
        let (server, _) = try await Self.serve()
        let all = try Self.json(try await Self.call(server, "GET", "/apps/api/v1/wait_times?lang=en")).arrayValue ?? []
        #expect(all.map { $0["menu_id"]?.intValue } == [1, 2])
        let billing = try #require(all.last)
        #expect(billing["materialized_path"]?.stringValue == "Support / Billing")
        #expect(billing["menu_type"]?.stringValue == "mobile_menu")
        #expect(billing["chat"]?.intValue == 10 && billing["voice_call"] == .null, "nobody waits: 10 s; no voice channel: null")
        #expect(billing["logged_in_agents"]?.intValue == 1 && billing["available_agents"]?.intValue == 1)
        #expect(billing["breakthrough_agents"]?.intValue == 0)
        let voice = try Self.json(try await Self.call(server, "GET", "/apps/api/v1/wait_times?lang=en&channel_type=voice_call"))
        #expect(voice.arrayValue?.map { $0["menu_id"]?.intValue } == [1])
        let subtree = try Self.json(try await Self.call(server, "GET", "/apps/api/v1/wait_times?lang=en&menu_id=2"))
        #expect(subtree.arrayValue?.map { $0["menu_id"]?.intValue } == [2])
        #expect(try Self.json(try await Self.call(server, "GET", "/apps/api/v1/wait_times?lang=en&menu_type=ivr_menu")).arrayValue?.isEmpty == true)
        #expect(try Self.json(try await Self.call(server, "GET", "/apps/api/v1/wait_times?lang=en&wait%5Bfrom%5D=10")).arrayValue?.isEmpty == true,
                "no wait is above 10 seconds with nobody queued")
        let french = try Self.json(try await Self.call(server, "GET", "/apps/api/v1/wait_times?lang=fr&menu_id=2"))
        #expect(french.arrayValue?.first?["materialized_path"]?.stringValue == "Support / Billing", "the company's default language")
        for (query, status) in [("", 400), ("lang=xx", 400), ("lang=en&menu_id=9", 404), ("lang=en&menu_type=tv", 400),
                                ("lang=en&channel_type=email", 400), ("lang=en&wait%5Bto%5D=-1", 400), ("lang=en&menuid=2", 400),
                                ("lang=en&menu_id=1&menu_id=x", 400)] {
            #expect(try await Self.call(server, "GET", "/apps/api/v1/wait_times?" + query).status == status, "\(query)")
        }
        await server.stop()
    }

    /// The chat platform flow end to end: an end user, a chat an agent takes, the end
    /// user's message and the agent's answer, the published object at each step, the end.
    @Test func aServerChatsAsItsEndUserFromStartToFinish() async throws {
        let (server, _) = try await Self.serve()
        let user = try Self.json(try await Self.call(server, "POST", "/apps/api/v1/end_users", #"{"identifier": "bot-1"}"#))
        let userID = try #require(user["id"]?.intValue)
        let started = try await Self.call(server, "POST", "/apps/api/v1/chats",
                                          #"{"chat": {"end_user_id": \#(userID), "menu_id": 2, "lang": "en", "context": {"order": "A-1"}}}"#)
        #expect(started.status == 201)
        let chatID = try #require(try Self.json(started)["id"]?.intValue)
        #expect(try Self.json(started)["end_user"]?["identifier"]?.stringValue == "bot-1")
        #expect(try Self.json(started)["menus"]?.arrayValue?.map { $0["name"]?.stringValue } == ["Support", "Billing"])
        let taken = await eventually {
            (try? Self.json(try await Self.call(server, "GET", "/apps/api/v1/chats/\(chatID)")))?["all_agents"]?.arrayValue?.isEmpty == false
        }
        #expect(taken, "the agent takes the chat and greets")
        let assigned = try Self.json(try await Self.call(server, "GET", "/apps/api/v1/chats/\(chatID)"))
        #expect(assigned["status"]?.stringValue == "assigned" && assigned["status_text"]?.stringValue == "with_agent")
        #expect(assigned["agent"]?["name"]?.stringValue == "Ava Stone" && assigned["agent"]?["first_name"]?.stringValue == "Ava")
        #expect(assigned["agent"]?["id"]?.intValue == 1 && assigned["agent"]?["status"]?.stringValue == "connected")
        #expect(assigned["ends_at"] == .null && assigned["virtual_agent"] == .null)

        let sent = try await Self.call(server, "POST", "/apps/api/v1/chats/\(chatID)/message", #"{"message": {"type": "text", "content": "Where is my order?"}}"#)
        #expect(sent.status == 201)
        #expect(try Self.json(sent)["content"]?.stringValue == "Where is my order?")
        let signedIn = try await SandboxHTTP.token(server, "bot-1")
        let answered = try await SandboxHTTP.agentMessages(server, chatID, signedIn, count: 2)
        #expect(answered.last?.text?.contains("Where is my order?") == true, "the agent answered the server's message")

        let finished = try await Self.call(server, "PATCH", "/apps/api/v1/chats/\(chatID)", #"{"chat": {"status": "finished"}}"#)
        #expect(finished.status == 200)
        #expect(try Self.json(finished)["status"]?.stringValue == "finished")
        #expect(try Self.json(finished)["status_text"]?.stringValue == "finished_by_end_user")
        #expect(try Self.json(finished)["ends_at"]?.stringValue != nil)
        #expect(try Self.json(finished)["all_agents"]?[0]?["status"]?.stringValue == "disconnected")
        #expect(try await Self.call(server, "POST", "/apps/api/v1/chats/\(chatID)/message", #"{"content": "still there?"}"#).status == 409)
        #expect(try await Self.call(server, "PATCH", "/apps/api/v1/chats/\(chatID)", #"{"chat": {"status": "finished"}}"#).status == 409)
        await server.stop()
    }

    @Test func badRequestsAreClearAndAnAppsChatIsNotTheServers() async throws {
        let (server, _) = try await Self.serve()
        let userID = try #require(try Self.json(try await Self.call(server, "POST", "/apps/api/v1/end_users", #"{"identifier": "u"}"#))["id"]?.intValue)
        for (body, status) in [(#"{"end_user_id": 999, "menu_id": 1}"#, 404), (#"{"end_user_id": \#(userID), "menu_id": 99}"#, 404),
                               (#"{"end_user_id": \#(userID)}"#, 400), (#"{"end_user_id": \#(userID), "menu_id": 1, "context": [1]}"#, 400),
                               ("not json", 400)] {
            #expect(try await Self.call(server, "POST", "/apps/api/v1/chats", body).status == status, "\(body)")
        }
        let appUser = try await SandboxHTTP.token(server, "app-user")
        let appChat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", appUser, #"{"menu_id": 1}"#), as: ChatResponse.self)
        #expect(try await Self.call(server, "GET", "/apps/api/v1/chats/\(appChat.id)").status == 200, "the server reads every chat")
        #expect(try await Self.call(server, "POST", "/apps/api/v1/chats/\(appChat.id)/message", #"{"content": "hi"}"#).status == 409)
        #expect(try await Self.call(server, "PATCH", "/apps/api/v1/chats/\(appChat.id)", #"{"chat": {"status": "finished"}}"#).status == 409)
        let chatID = try #require(try Self.json(try await Self.call(server, "POST", "/apps/api/v1/chats",
                                                                    #"{"end_user_id": \#(userID), "menu_id": 1}"#))["id"]?.intValue)
        for (body, status) in [(#"{"chat": {"status": "assigned"}}"#, 400), (#"{"chat": {}}"#, 200), (#"{"chat": 1}"#, 400),
                               (#"{"chat": {"deflection_channel": "email"}}"#, 409),
                               (#"{"chat": {"deflection_channel": "email", "escalation_id": 1}}"#, 404)] {
            #expect(try await Self.call(server, "PATCH", "/apps/api/v1/chats/\(chatID)", body).status == status, "\(body)")
        }
        #expect(try await Self.call(server, "POST", "/apps/api/v1/chats/\(chatID)/message", #"{"type": "photo", "content": "x"}"#).status == 400)
        #expect(try await Self.call(server, "POST", "/apps/api/v1/chats/\(chatID)/message", #"{"content": ""}"#).status == 400)
        #expect(try await Self.call(server, "POST", "/apps/api/v1/chats/\(chatID)/escalations").status == 409, "no virtual agent")
        #expect(try await Self.call(server, "GET", "/apps/api/v1/chats/abc").status == 400)
        #expect(try await Self.call(server, "GET", "/apps/api/v1/chats/424242").status == 404)
        await server.stop()
    }

    @Test func credentialsAndSubdomainsAreCheckedWhenTheConfigurationLoads() async throws {
        for (fields, problem) in [
            (#"api_credentials = { { name = "ci", token = "short" } }"#, "api_credentials[1].token: at least 16"),
            (#"api_credentials = { { name = "", token = "0123456789abcdef" } }"#, "api_credentials[1].name"),
            (#"api_credentials = { { name = "a", token = "0123456789abcdef" }, { name = "a", token = "0123456789abcdeg" } }"#, "used twice"),
            ("limits = { apps_requests_per_second = 0 }", "limits.apps_requests_per_second"),
        ] {
            await #expect { try await LuaConfigurations.configuration(fields) } throws: { error in
                String(describing: error).contains(problem)
            }
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apps-\(UUID().uuidString).lua")
        try #"return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s", subdomain = "a.b" } }"#
            .write(to: path, atomically: true, encoding: .utf8)
        await #expect { try await SandboxConfiguration.load(file: path.path) } throws: { String(describing: $0).contains("company.subdomain") }
        let configuration = try await LuaConfigurations.configuration(#"api_credentials = { { name = "ci", token = "0123456789abcdef" } }"#)
        #expect(configuration.apiCredentials?.first?.tokenDigest == Digest.sha256Hex("0123456789abcdef"), "kept as a digest")
        #expect(!String(describing: configuration.apiCredentials ?? []).contains("0123456789abcdef"), "the token itself is not kept")
    }
}

extension JSONValue {
    fileprivate var intValue: Int? { if case .integer(let value) = self { Int(exactly: value) } else { nil } }
    fileprivate var arrayValue: [JSONValue]? { if case .array(let items) = self { items } else { nil } }
    fileprivate subscript(index: Int) -> JSONValue? { arrayValue.flatMap { $0.indices.contains(index) ? $0[index] : nil } }
}
