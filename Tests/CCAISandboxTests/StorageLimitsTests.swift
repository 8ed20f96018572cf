@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// What one end user may make the sandbox keep: every stored field bounded (a 400 naming
/// the field and its limit), names free of control and format characters, an hourly quota
/// of stored bytes (a 429), and the lists that grow read by pages.
@Suite struct StorageLimitsTests {
    private static let help = "menus = { { id = 1, name = \"Help\", channels = { chat = {} } } }"

    private func signIn(_ server: HTTPServer, _ claims: [String: JSONValue]) async throws -> Curl.Reply {
        let jwt = try JWTSigner(algorithm: .hs384, secret: "dev-secret").sign(claims, issuedAt: QueueMenuTests.mondayMorning, lifetime: 600)
        return try await Curl.request("POST", "\(server.baseURL)/auth/end_user", body: Data(#"{"company_key":"dev-key","jwt":"\#(jwt)"}"#.utf8))
    }

    private func chat(_ server: HTTPServer, _ token: String, _ body: String = #"{"menu_id": 1}"#) async throws -> Curl.Reply {
        try await SandboxHTTP.call(server, "POST", "/chats", token, body)
    }

    @Test func everyStoredFieldIsBoundedAndNamesAreNames() async throws {
        let (_, server) = try SandboxHTTP.serveOverTheWire(configuration: try await LuaConfigurations.configuration(Self.help))
        let longName = try await signIn(server, ["identifier": "bounded-ana", "name": .string(String(repeating: "n", count: 300))])
        #expect(longName.status == 400 && longName.body.contains("'name' may be at most 256 bytes, got 300"), "\(longName.body)")
        let reversed = try await signIn(server, ["identifier": "bounded-ana", "name": "Ana \u{202E}nimda"])
        #expect(reversed.status == 400 && reversed.body.contains("control or format characters"), "\(reversed.body)")
        let bigData = try await signIn(server, ["identifier": "bounded-ana",
                                                "custom_data": ["note": .string(String(repeating: "x", count: 17_000))]])
        #expect(bigData.status == 400 && bigData.body.contains("'custom_data' may be at most 16384 bytes"), "\(bigData.body)")

        let ana = try await SandboxHTTP.token(server, "bounded-ana")
        for (body, expected) in [(#"{"email": "\#(String(repeating: "e", count: 250))@x.test"}"#, "'email' may be at most 254 bytes"),
                                 (#"{"phone": "+1 555\n0100"}"#, "'phone' must not contain control or format characters"),
                                 (#"{"name": "\#(String(repeating: "n", count: 257))"}"#, "'name' may be at most 256 bytes")] {
            let reply = try await SandboxHTTP.call(server, "PATCH", "/end_user", ana, body)
            #expect(reply.status == 400 && reply.body.contains(expected), "\(reply.body)")
        }
        let unsigned = #"{"menu_id": 1, "custom_data": {"unsigned": {"note": {"label": "Note", "type": "string", "value": "\#(String(repeating: "x", count: 17_000))"}}}}"#
        let bigChat = try await chat(server, ana, unsigned)
        #expect(bigChat.status == 400 && bigChat.body.contains("'custom_data.unsigned' may be at most 16384 bytes"), "\(bigChat.body)")

        let started = try SandboxHTTP.decode(try await chat(server, ana), as: ChatResponse.self)
        let path = "/chats/\(started.id)"
        let payload = try await SandboxHTTP.call(server, "POST", path + "/chat_events", ana,
                                                 #"{"name": "clicked", "payload": {"x": "\#(String(repeating: "p", count: 17_000))"}}"#)
        #expect(payload.status == 400 && payload.body.contains("'payload' may be at most 16384 bytes"), "\(payload.body)")
        let eventName = try await SandboxHTTP.call(server, "POST", path + "/chat_events", ana,
                                                   #"{"name": "\#(String(repeating: "c", count: 129))"}"#)
        #expect(eventName.status == 400 && eventName.body.contains("'name' may be at most 128 bytes"), "\(eventName.body)")
        let clientID = try await SandboxHTTP.call(server, "POST", path + "/messages", ana,
                                                  #"{"client_message_id": "\#(String(repeating: "i", count: 129))", "text": "hi"}"#)
        #expect(clientID.status == 400 && clientID.body.contains("'client_message_id' may be at most 128 bytes"), "\(clientID.body)")
        let oneCharacter = "e" + String(repeating: "\u{301}", count: 20_000)   // one character of 40,001 bytes
        let accents = try await SandboxHTTP.call(server, "POST", path + "/messages", ana,
                                                 #"{"client_message_id": "a", "text": "\#(oneCharacter)"}"#)
        #expect(accents.status == 413 && accents.body.contains("'text' may be at most 40000 bytes"), "\(accents.body)")
        let preview = try await SandboxHTTP.call(server, "POST", path + "/preview", ana,
                                                 #"{"text": "\#(String(repeating: "v", count: 40_001))", "timestamp": 1}"#)
        #expect(preview.status == 400 && preview.body.contains("'text' may be at most 40000 bytes"), "\(preview.body)")
        #expect(try await SandboxHTTP.call(server, "POST", path + "/messages", ana, #"{"client_message_id": "b", "text": "hi"}"#)
            .status == 201, "what fits is kept")
        await server.stop()
    }

    @Test func storedBytesHaveAnHourlyQuotaPerEndUser() async throws {
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        let sandbox = try Sandbox(configuration: try await LuaConfigurations.configuration(Self.help + """
            , limits = { stored_bytes_per_hour = 2000 }
            """), clock: clock)
        let server = try sandbox.serve()
        let ana = try await SandboxHTTP.token(server, "quota-bytes-ana")
        let chat = try SandboxHTTP.decode(try await chat(server, ana), as: ChatResponse.self)
        let text = String(repeating: "t", count: 400)
        var refused: Curl.Reply?
        for index in 1...10 {
            let reply = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana,
                                                   #"{"client_message_id": "m\#(index)", "text": "\#(text)"}"#)
            if reply.status != 201 { refused = reply; break }
        }
        let over = try #require(refused, "2,000 bytes an hour hold at most 4 messages of 400 characters")
        #expect(over.status == 429 && over.body.contains("limits.stored_bytes_per_hour") && over.headers["retry-after"] != nil,
                "\(over.body)")
        let event = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/chat_events", ana,
                                               #"{"name": "clicked", "payload": {"x": "\#(text)"}}"#)
        #expect(event.status == 429, "events count too: \(event.body)")
        let bob = try await SandboxHTTP.token(server, "quota-bytes-bob")
        #expect(try await self.chat(server, bob).status == 201, "the quota is per end user")
        clock.advance(by: 3_601)
        let later = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana,
                                               #"{"client_message_id": "later", "text": "\#(text)"}"#)
        #expect(later.status == 201, "an hour later: \(later.body)")
        await server.stop()
    }

    @Test func messagesAreReadByPages() async throws {
        let (_, server) = try SandboxHTTP.serveOverTheWire(configuration: try await LuaConfigurations.configuration(Self.help))
        let ana = try await SandboxHTTP.token(server, "pages-ana")
        let chat = try SandboxHTTP.decode(try await chat(server, ana), as: ChatResponse.self)
        for index in 1...5 {
            _ = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana, #"{"client_message_id": "p\#(index)", "text": "\#(index)"}"#)
        }
        let all = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)/messages", ana), as: [ChatMessage].self)
        var paged: [ChatMessage] = []
        var after = 0
        while true {
            let page = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)/messages?limit=2&after=\(after)", ana),
                                              as: [ChatMessage].self)
            #expect(page.count <= 2)
            paged += page
            guard page.count == 2, let last = page.last?.id else { break }
            after = last
        }
        #expect(paged == all && all.filter { $0.sender.type == "end_user" }.count == 5)
        for query in ["limit=0", "limit=1001", "limit=x", "after=-1", "after=1e3"] {
            let reply = try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)/messages?\(query)", ana)
            #expect(reply.status == 400 && (reply.body.contains("limit must") || reply.body.contains("after must")), "\(query): \(reply.body)")
        }
        await server.stop()
    }

    /// Survey answers are kept as they are checked (trimmed), and the operator reads the
    /// ratings and answers by pages.
    @Test func surveyAnswersAreKeptTrimmedAndRatingsAreReadByPages() async throws {
        var configuration = SandboxConfiguration.builtIn
        configuration.adminToken = "operator-token"
        let client = InProcessClient(try Sandbox(configuration: configuration, clock: ManualClock(QueueMenuTests.mondayMorning)))
        var chats: [Int] = []
        for index in 1...3 {
            let token = try await client.signIn("ratings-\(index)", at: QueueMenuTests.mondayMorning)
            let chat = try await client.call("POST", "/chats", token: token, json: #"{"menu_id": 9}"#).decode(as: ChatResponse.self)
            _ = await client.call("POST", "/chats/\(chat.id)/end", token: token)
            _ = await client.call("POST", "/chats/\(chat.id)/post_session/start", token: token)
            _ = await client.call("POST", "/chats/\(chat.id)/post_session/ready", token: token)
            let answered = await client.call("POST", "/chats/\(chat.id)/survey", token: token,
                                             json: #"{"answers": {"1": "  5\n", "2": "\t\#(String(repeating: " ", count: 50_000))more tea  "}}"#)
            #expect(answered.status == 204, "\(answered.text)")
            chats.append(chat.id)
        }
        let first = try await client.call("GET", "/admin/ratings", query: ["limit": "2"], token: "operator-token").decode(as: RatingsReport.self)
        #expect(first.surveys.map(\.communicationId) == Array(chats.prefix(2)))
        #expect(first.surveys.first?.answers == ["1": "5", "2": "more tea"], "trimmed is what is kept")
        let rest = try await client.call("GET", "/admin/ratings", query: ["limit": "2", "after": String(chats[1])], token: "operator-token")
            .decode(as: RatingsReport.self)
        #expect(rest.surveys.map(\.communicationId) == [chats[2]])
        #expect(await client.call("GET", "/admin/ratings", query: ["limit": "1001"], token: "operator-token").status == 400)
    }
}
