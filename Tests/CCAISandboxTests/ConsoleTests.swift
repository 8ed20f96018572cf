@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing

/// The sandbox's console (`/console`): a person signed in with the admin token plays the
/// agents configured with `console = true`, through the same domain calls as a script.
@Suite struct ConsoleTests {
    /// A console in the process: the sandbox, its client, and the session's cookie and CSRF token.
    struct Console {
        let client: InProcessClient
        var cookie = ""
        var csrf = ""

        init() async throws {
            var configuration = try await LuaConfigurations.configuration("""
                menus = { { id = 1, name = "Help desk", channels = { chat = {} } },
                          { id = 2, name = "Billing", channels = { chat = {} } } },
                agents = { { name = "Casey", menus = { 1 }, console = true, max_chats = 1 }, { name = "Bea", menus = { 2 } } }
                """)
            configuration.adminToken = "console-admin-token"
            client = InProcessClient(try Sandbox(configuration: configuration, servesConsole: true))
        }

        func request(_ method: String, _ path: String, _ json: String? = nil, cookie: String? = nil, csrf: String? = nil) async
            -> HTTPResponse {
            var headers = ["content-type": "application/json"]
            if let cookie { headers["cookie"] = cookie }
            if let csrf { headers["x-csrf-token"] = csrf }
            return await client.router.respond(to: HTTPRequest(method: method, path: path, headers: headers, body: Data((json ?? "").utf8)))
        }

        mutating func signIn() async throws {
            let reply = await request("POST", "/console/session", #"{"token": "console-admin-token"}"#)
            #expect(reply.status == 201)
            let setCookie = try #require(reply.headers["Set-Cookie"])
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/console"))
            cookie = String(setCookie.split(separator: ";")[0])
            csrf = try #require(try JSONValue(jsonText: String(decoding: reply.body, as: UTF8.self))["csrf_token"]?.stringValue)
        }

        func change(_ action: String, _ json: String) async -> HTTPResponse {
            await request("POST", "/console/api/" + action, json, cookie: cookie, csrf: csrf)
        }

        func state() async throws -> State {
            let reply = await request("GET", "/console/api/state", cookie: cookie)
            #expect(reply.status == 200)
            return try JSONDecoder().decode(State.self, from: reply.body)
        }
    }

    /// What the page reads of `GET /console/api/state`.
    struct State: Decodable {
        struct Queue: Decodable {
            var menu_id: Int
            var waiting: [Waiting]
        }

        struct Waiting: Decodable {
            var chat_id: Int
        }

        struct Chat: Decodable {
            var chat_id: Int
            var messages: [Message]
            var customer_typing: Bool
            var preview: String?
        }

        struct Message: Decodable {
            var sender_type: String
            var text: String?
        }

        var queues: [Queue]
        var chats: [Chat]
    }

    @Test func aPersonTakesAChatAnswersTransfersItAndTheCustomerSeesAnAgent() async throws {
        var console = try await Console()
        let client = console.client
        let token = try await client.signIn("console-ana", at: client.sandbox.clock.now())
        let chat = try await client.call("POST", "/chats", token: token, json: #"{"menu_id": 1}"#).decode(as: ChatResponse.self)
        let hostile = #"<img src=x onerror="document.title='pwned'">"#
        let sent = await client.call("POST", "/chats/\(chat.id)/messages", token: token,
                                     json: try JSONValue.object(["client_message_id": "m1", "text": .string(hostile)]).jsonText())
        #expect(sent.status == 201, "\(sent.status) \(sent.text)")
        #expect(try await client.call("GET", "/chats/\(chat.id)", token: token).decode(as: ChatResponse.self).status == .queued,
                "a console agent's chats wait for the person")

        try await console.signIn()
        let waiting = try await console.state()
        #expect(waiting.queues.first?.waiting.map(\.chat_id) == [chat.id])
        #expect(await console.request("POST", "/console/api/take", #"{"chat_id": \#(chat.id), "agent": "Casey"}"#,
                                      cookie: console.cookie).status == 403, "a change needs the CSRF token")
        #expect(await console.change("take", #"{"chat_id": \#(chat.id), "agent": "Bea"}"#).status == 409, "Bea is no console agent")
        #expect(await console.change("take", #"{"chat_id": \#(chat.id), "agent": "Casey"}"#).status == 204)
        #expect(await console.change("take", #"{"chat_id": \#(chat.id), "agent": "Casey"}"#).status == 409, "taken once")
        let taken = try await client.call("GET", "/chats/\(chat.id)", token: token).decode(as: ChatResponse.self)
        #expect(taken.status == .active && taken.agent?.name == "Casey")

        let held = try await console.state()
        let messages = held.chats.first?.messages ?? []
        #expect(held.chats.map(\.chat_id) == [chat.id])
        #expect(messages.contains { $0.text == hostile }, "the customer's text as written: \(messages)")
        #expect(!messages.contains { $0.sender_type == "agent" }, "no default agent answered for the person")

        #expect(await client.call("POST", "/chats/\(chat.id)/typing", token: token, json: #"{"typing": true}"#).status < 300)
        #expect(await client.call("POST", "/chats/\(chat.id)/preview", token: token,
                                  json: #"{"text": "I need a ref", "timestamp": 1}"#).status < 300)
        let typing = try await console.state().chats.first
        #expect(typing?.customer_typing == true && typing?.preview == "I need a ref", "the person sees the customer type")

        #expect(await console.change("send", #"{"chat_id": \#(chat.id), "text": "  "}"#).status == 400)
        #expect(await console.change("send", #"{"chat_id": \#(chat.id), "text": "Hello from the console"}"#).status == 204)
        let seen = try await client.call("GET", "/chats/\(chat.id)/messages", token: token).decode(as: [ChatMessage].self)
        #expect(seen.contains { $0.text == "Hello from the console" && $0.sender.type == .agent && $0.sender.name == "Casey" },
                "the customer gets it as any agent's message")

        #expect(await console.change("transfer", #"{"chat_id": \#(chat.id), "menu_id": 2}"#).status == 204)
        #expect(await eventually {
            (try? await client.call("GET", "/chats/\(chat.id)", token: token).decode(as: ChatResponse.self).agent?.name) == "Bea"
        }, "Billing's agent takes the transferred chat")
        #expect(await console.change("end", #"{"chat_id": \#(chat.id)}"#).status == 409, "no longer the console's")
    }

    @Test func theConsoleNeedsTheAdminTokenAndItsSession() async throws {
        var console = try await Console()
        #expect(await console.request("GET", "/console").status == 200, "the sign-in page")
        let page = await console.request("GET", "/console")
        #expect(page.headers["Content-Security-Policy"]?.contains("script-src 'self'") == true)
        #expect(await console.request("POST", "/console/session", #"{"token": "guess"}"#).status == 403)
        #expect(await console.request("GET", "/console/api/state").status == 401)
        #expect(await console.request("GET", "/console/api/state", cookie: "ccai_console=forged").status == 401)
        try await console.signIn()
        #expect(await console.request("GET", "/console/api/state", cookie: console.cookie).status == 200)
        #expect(await console.change("take", "not json").status == 400)
        #expect(await console.change("take", #"{"chat_id": 999, "agent": "Casey"}"#).status == 404)
        #expect(await console.request("DELETE", "/console/session", cookie: console.cookie).status == 204)
        #expect(await console.request("GET", "/console/api/state", cookie: console.cookie).status == 401, "signed out")
    }

    @Test func aSandboxWithoutTheConsoleHasNoConsoleRoutes() async throws {
        let client = InProcessClient(try Sandbox())
        #expect(await client.call("GET", "/console").status == 404)
    }

    @Test func aConsoleAgentHasNoScript() async throws {
        var configuration = try await LuaConfigurations.configuration("""
            menus = { { id = 1, name = "Help", channels = { chat = {} } } },
            agents = { { name = "Casey", menus = { 1 }, console = true } }
            """)
        #expect(configuration.problems().isEmpty)
        configuration.agents?[0].script = "casey.lua"
        #expect(configuration.problems().contains { $0.contains("agents[Casey]: a console agent is played by a person") })
    }
}
