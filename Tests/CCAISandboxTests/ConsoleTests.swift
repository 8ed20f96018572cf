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
                menus = { { id = 1, name = "Help desk", channels = { chat = {}, voice_call = { instant = true } } },
                          { id = 2, name = "Billing", channels = { chat = {} } },
                          { id = 3, name = "Bot desk", channels = { chat = { virtual_agent = "greeter" } } } },
                agents = { { name = "Casey", menus = { 1, 3 }, console = true, max_chats = 1 }, { name = "Bea", menus = { 2 } } },
                virtual_agents = { greeter = { name = "Greeter" } },
                custom_forms = { { id = 10, title = "Contact", questions = { { id = 1, type = "text", text = "Name", required = true } } } }
                """)
            configuration.adminToken = "console-admin-token"
            client = InProcessClient(try Sandbox(configuration: configuration, servesConsole: true))
        }

        func request(_ method: String, _ path: String, _ json: String? = nil, cookie: String? = nil, csrf: String? = nil) async
            -> HTTPResponse {
            var headers = ["content-type": "application/json"]
            if let cookie { headers["cookie"] = cookie }
            if let csrf { headers["x-csrf-token"] = csrf }
            let parts = path.split(separator: "?", maxSplits: 1)
            let query = parts.count == 2 ? URLComponents(string: "?" + parts[1])?.queryItems ?? [] : []
            return await client.router.respond(to: HTTPRequest(
                method: method, path: String(parts[0]), query: Dictionary(query.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first }),
                headers: headers, body: Data((json ?? "").utf8)))
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
            var waiting_calls: [Waiting]
        }

        struct Waiting: Decodable {
            var id: Int
        }

        struct Chat: Decodable {
            var chat_id: Int
            var messages: [Message]
            var customer_typing: Bool
            var preview: String?
            var smart_actions: [Asked]
            var forms: [Form]
        }

        struct Message: Decodable {
            var sender_type: String
            var type: String
            var text: String?
            var media: ChatMedia?
        }

        struct Asked: Decodable {
            var type: String
            var status: String
        }

        struct Form: Decodable {
            var form: String
            var status: String
            var answers: [String: String]
        }

        struct Call: Decodable {
            var call_id: Int
            var status: String
        }

        struct Live: Decodable {
            var channel: String
            var id: Int
            var virtual_agent: String?
            var escalatable: Bool
        }

        var queues: [Queue]
        var chats: [Chat]
        var calls: [Call]
        var live: [Live]
        var watched: Chat?
    }

    /// A customer `name` signed in, with a chat started on `menu`.
    private static func customerChat(_ client: InProcessClient, _ name: String, menu: Int) async throws -> (token: String, chat: ChatResponse) {
        let token = try await client.signIn(name, at: client.sandbox.clock.now())
        let chat = try await client.call("POST", "/chats", token: token, json: #"{"menu_id": \#(menu)}"#).decode(as: ChatResponse.self)
        return (token, chat)
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
        #expect(waiting.queues.first?.waiting.map(\.id) == [chat.id])
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

    @Test func aPersonSendsFilesSmartActionsAndFormsAndReadsTheAnswers() async throws {
        var console = try await Console()
        let client = console.client
        let (token, chat) = try await Self.customerChat(client, "console-cy", menu: 1)
        try await console.signIn()
        #expect(await console.change("take", #"{"chat_id": \#(chat.id), "agent": "Casey"}"#).status == 204)

        let pdf = Data("%PDF-1.4 a receipt".utf8).base64EncodedString()
        #expect(await console.change("file", #"{"chat_id": \#(chat.id), "name": "receipt.pdf", "mime_type": "application/pdf", "data": "\#(pdf)"}"#)
            .status == 204)
        #expect(await console.change("file", #"{"chat_id": \#(chat.id), "name": "run.sh", "mime_type": "text/x-sh", "data": "\#(pdf)"}"#)
            .status == 400, "only the agent file types")
        let tooLarge = Data(count: ConsoleRoutes.maximumFileBytes + 1).base64EncodedString()
        let refused = await console.change("file", #"{"chat_id": \#(chat.id), "name": "big.pdf", "mime_type": "application/pdf", "data": "\#(tooLarge)"}"#)
        #expect(refused.status == 413, "\(refused.status) \(String(decoding: refused.body, as: UTF8.self))")
        let seen = try await client.call("GET", "/chats/\(chat.id)/messages", token: token).decode(as: [ChatMessage].self)
        let sent = try #require(seen.first { $0.media?.name == "receipt.pdf" }, "the customer gets the file: \(seen)")
        #expect(sent.sender.name == "Casey")
        let shown = try #require(try await console.state().chats.first?.messages.first { $0.media != nil }?.media)
        let download = await console.request("GET", "/console/api/media?chat_id=\(chat.id)&media_id=\(shown.id)", cookie: console.cookie)
        #expect(download.status == 200 && download.body == Data("%PDF-1.4 a receipt".utf8))
        #expect(download.headers["Content-Disposition"] == #"attachment; filename="receipt.pdf""#)
        #expect(await console.request("GET", "/console/api/media?chat_id=\(chat.id)&media_id=\(shown.id)").status == 401)

        #expect(await console.change("smart_action", #"{"chat_id": \#(chat.id), "type": "selfie"}"#).status == 400)
        #expect(await console.change("smart_action", #"{"chat_id": \#(chat.id), "type": "photo"}"#).status == 204)
        #expect(await console.change("form", #"{"chat_id": \#(chat.id), "form_id": 99}"#).status == 400)
        #expect(await console.change("form", #"{"chat_id": \#(chat.id), "form_id": 10, "external_form_id": "x"}"#).status == 400)
        #expect(await console.change("form", #"{"chat_id": \#(chat.id), "form_id": 10}"#).status == 204)
        let asked = try #require(try await console.state().chats.first)
        #expect(asked.smart_actions.map(\.type) == ["photo"])
        let form = try #require(asked.forms.first)
        #expect(form.form == "10" && form.status == "requested")

        let messages = try await client.call("GET", "/chats/\(chat.id)/messages", token: token).decode(as: [ChatMessage].self)
        let request = try #require(messages.first { $0.type == .form }?.form, "the customer gets the form: \(messages)")
        let requestID = try #require(request.smartActionId)
        let answer = #"{"smart_action_id": \#(requestID), "form_response": [{"question_id": 1, "value": "Cy"}]}"#
        let submitted = await client.call("POST", "/custom_forms/submissions", token: token, json: answer)
        #expect(submitted.status == 200, "\(submitted.status) \(submitted.text)")
        let answered = try #require(try await console.state().chats.first?.forms.first)
        #expect(answered.status == "submitted" && answered.answers == ["1": "Cy"])
    }

    @Test func aPersonAnswersHoldsAndEndsACall() async throws {
        var console = try await Console()
        let client = console.client
        let token = try await client.signIn("console-dee", at: client.sandbox.clock.now())
        let call = try await client.call("POST", "/calls", token: token, json: #"{"menu_id": 1}"#).decode(as: CallResponse.self)
        try await console.signIn()
        #expect(try await console.state().queues.first?.waiting_calls.map(\.id) == [call.id], "the call waits for the person")
        #expect(await console.change("answer", #"{"call_id": \#(call.id), "agent": "Bea"}"#).status == 409)
        #expect(await console.change("answer", #"{"call_id": \#(call.id), "agent": "Casey"}"#).status == 204)
        func status() async throws -> CallStatus {
            try await client.call("GET", "/calls/\(call.id)", token: token).decode(as: CallResponse.self).status
        }
        #expect(try await status() == .connected)
        #expect(try await console.state().calls.map(\.call_id) == [call.id])
        #expect(await console.change("hold", #"{"call_id": \#(call.id), "on_hold": false}"#).status == 409, "not on hold")
        #expect(await console.change("hold", #"{"call_id": \#(call.id), "on_hold": true}"#).status == 204)
        #expect(try await status() == .onHold)
        #expect(await console.change("hold", #"{"call_id": \#(call.id), "on_hold": false}"#).status == 204)
        #expect(try await status() == .connected)
        #expect(await console.change("end_call", #"{"call_id": \#(call.id)}"#).status == 204)
        #expect(try await status() == .ended)
        #expect(await eventually { (try? await console.state().calls.isEmpty) == true }, "the ended call leaves the person's list")
    }

    @Test func aPersonWatchesAVirtualAgentsChatAndEscalatesIt() async throws {
        var console = try await Console()
        let client = console.client
        let (token, chat) = try await Self.customerChat(client, "console-eve", menu: 3)
        for number in 0...ConsoleStateReader.liveShown {   // newer chats, all waiting for Casey: the queues list them
            _ = try await Self.customerChat(client, "console-waiter-\(number)", menu: 1)
        }
        try await console.signIn()
        #expect(await eventually {
            (try? await console.state().live.first { $0.id == chat.id }?.escalatable) == true
        }, "the virtual agent's chat is listed, and may be escalated")
        let watched = await console.request("GET", "/console/api/state?watch=\(chat.id)", cookie: console.cookie)
        let state = try JSONDecoder().decode(State.self, from: watched.body)
        #expect(state.watched?.chat_id == chat.id, "its messages are read as it goes")
        #expect(await console.change("take", #"{"chat_id": \#(chat.id), "agent": "Casey"}"#).status == 409, "the virtual agent has it")
        #expect(await console.change("escalate", #"{}"#).status == 400)
        #expect(await console.change("escalate", #"{"chat_id": \#(chat.id)}"#).status == 204)
        #expect(await console.change("escalate", #"{"chat_id": \#(chat.id)}"#).status == 409, "escalated once")
        #expect(try await console.state().queues.first { $0.menu_id == 3 }?.waiting.map(\.id) == [chat.id],
                "it waits for the queue's human agent, the person")
        #expect(await console.change("take", #"{"chat_id": \#(chat.id), "agent": "Casey"}"#).status == 204)
        let taken = try await client.call("GET", "/chats/\(chat.id)", token: token).decode(as: ChatResponse.self)
        #expect(taken.agent?.name == "Casey" && taken.status == .active)
    }

    @Test func wrongAdminTokensAreLimitedPerAddress() async throws {
        let console = try await Console()
        for _ in 0..<Int(ConsoleSessions.failureBurst) {
            #expect(await console.request("POST", "/console/session", #"{"token": "guess"}"#).status == 403)
        }
        let limited = await console.request("POST", "/console/session", #"{"token": "console-admin-token"}"#)
        #expect(limited.status == 429 && limited.headers["Retry-After"] != nil, "past the burst even the right token waits")
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
