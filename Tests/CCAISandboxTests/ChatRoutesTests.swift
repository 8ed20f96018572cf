@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

@Suite struct ChatRoutesTests {
    private func chat(_ reply: Curl.Reply) throws -> ChatResponse {
        try JSONDecoder().decode(ChatResponse.self, from: Data(reply.body.utf8))
    }

    @Test func aChatStartsQueuedAndEnds() async throws {
        let (_, server) = try SandboxHTTP.serve()
        let ana = try await SandboxHTTP.token(server, "chat-ana")
        let started = try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1, "lang": "es-MX"}"#)
        #expect(started.status == 201, "\(started.body)")
        let chat = try chat(started)
        #expect(chat.status == .queued && chat.menuId == 1 && chat.lang == "es" && chat.redactionEnabled)
        let again = try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 2}"#)
        #expect(again.status == 409 && again.body.contains("already in progress"))
        #expect(try self.chat(try await SandboxHTTP.call(server, "GET", "/chats/current", ana)).id == chat.id)
        let ended = try self.chat(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/end", ana))
        #expect(ended.status == .ended && ended.endedBy == "end_user" && ended.endedAt != nil)
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/end", ana).status == 409)
        #expect(try await SandboxHTTP.call(server, "GET", "/chats/current", ana).status == 404)
        #expect(try self.chat(try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)", ana)).status == .ended)
        await server.stop()
    }

    @Test func chatEventsAreRecordedWhileTheChatIsInProgress() async throws {
        let (_, server) = try SandboxHTTP.serve()
        let ana = try await SandboxHTTP.token(server, "event-ana")
        let chat = try chat(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 8}"#))
        let sent = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/chat_events", ana,
                                  #"{"name": "form_received", "payload": {"name": "contact_form", "step": 2}}"#)
        #expect(sent.status == 201, "\(sent.body)")
        let stored = try JSONDecoder().decode(StoredChatEvent.self, from: Data(sent.body.utf8))
        #expect(stored.chatId == chat.id && stored.name == "form_received")
        #expect(stored.payload == ["name": "contact_form", "step": 2])
        let bare = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/chat_events", ana, #"{"name": "form_clicked"}"#)
        #expect(bare.status == 201 && bare.body.contains(#""payload":{}"#))
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/chat_events", ana, #"{"name": ""}"#).status == 400)
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/chat_events", ana, #"{"payload": {}}"#).status == 400)
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/chat_events", ana, "not json").status == 400)
        let bob = try await SandboxHTTP.token(server, "event-bob")
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/chat_events", bob, #"{"name": "x"}"#).status == 404,
                "another user's chat is not found")
        _ = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/end", ana)
        let late = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/chat_events", ana, #"{"name": "form_clicked"}"#)
        #expect(late.status == 409 && late.body.contains("has ended"))
        await server.stop()
    }

    /// Polls `GET /chats/current` until `condition` holds (or 10 seconds pass).
    private func current(_ server: some SandboxEndpoint, _ token: String, until condition: (ChatResponse) -> Bool) async throws
        -> ChatResponse
    {
        var found: ChatResponse?
        _ = try await eventually {
            found = try chat(try await SandboxHTTP.call(server, "GET", "/chats/current", token))
            return found.map(condition) ?? false
        }
        return try #require(found)
    }

    /// The chat's messages once `condition` holds for them (or after 10 seconds).
    private func messages(_ server: some SandboxEndpoint, _ chat: Int, _ token: String, until condition: ([ChatMessage]) -> Bool)
        async throws -> [ChatMessage]
    {
        var messages: [ChatMessage] = []
        _ = try await eventually {
            messages = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/chats/\(chat)/messages", token),
                                              as: [ChatMessage].self)
            return condition(messages)
        }
        return messages
    }

    @Test func anAgentAtCapacityLeavesChatsQueuedUntilOneEnds() async throws {
        let (sandbox, server) = try SandboxHTTP.serve(configuration: try await LuaConfigurations.configuration("""
            menus = { { id = 1, name = "Help", channels = { chat = {} } } },
            agents = { { name = "Solo", menus = { 1 }, max_chats = 1 } }
            """))
        let (ana, bob) = (try await SandboxHTTP.token(server, "cap-ana"), try await SandboxHTTP.token(server, "cap-bob"))
        _ = try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1}"#)
        let first = try await current(server, ana) { $0.status == .active }
        #expect(first.status == .active && first.agent?.name == "Solo")
        let second = try chat(try await SandboxHTTP.call(server, "POST", "/chats", bob, #"{"menu_id": 1}"#))
        #expect(await sandbox.agentDesk.humanAgent(of: second.id) == nil, "Solo has no room")
        let waiting = try await current(server, bob) { _ in true }
        #expect(waiting.status == .queued && waiting.agent == nil)
        _ = try await SandboxHTTP.call(server, "POST", "/chats/\(first.id)/end", ana)
        let taken = try await current(server, bob) { $0.status == .active }
        #expect(taken.id == second.id && taken.agent?.name == "Solo", "the waiting chat is taken once Solo has room")
        await server.stop()
    }

    /// Between agents equally free, the one idle the longest takes the chat (then the
    /// first configured): work spreads over the team, and a replay chooses alike.
    @Test func theAgentIdleTheLongestTakesTheNextChat() async throws {
        let (sandbox, server) = try SandboxHTTP.serve(configuration: try await LuaConfigurations.configuration("""
            menus = { { id = 1, name = "Help", channels = { chat = {} } } },
            agents = { { name = "Ava", menus = { 1 }, max_chats = 1 }, { name = "Ben", menus = { 1 }, max_chats = 1 } }
            """))
        var takers: [String] = []
        for customer in 1...4 {
            let token = try await SandboxHTTP.token(server, "idle-longest-\(customer)")
            _ = try await SandboxHTTP.call(server, "POST", "/chats", token, #"{"menu_id": 1}"#)
            let taken = try await current(server, token) { $0.status == .active }
            takers.append(taken.agent?.name ?? "nobody")
            _ = try await SandboxHTTP.call(server, "POST", "/chats/\(taken.id)/end", token)
            // The agent is free again before the next customer comes.
            _ = try await eventually { await sandbox.agentDesk.humanAgent(of: taken.id) == nil }
        }
        #expect(takers == ["Ava", "Ben", "Ava", "Ben"])
        await server.stop()
    }

    @Test(.timeLimit(.minutes(1))) func chatsWhoseEndUserIsSilentTooLongTimeOut() async throws {
        let configuration = try await LuaConfigurations.configuration("""
            chat_timeout_seconds = 60, menus = { { id = 1, name = "Help", channels = { chat = {} } } }
            """)
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        let sandbox = try Sandbox(configuration: configuration, clock: clock)
        let server = try sandbox.serve()
        let (ana, bob) = (try await SandboxHTTP.token(server, "idle-ana"), try await SandboxHTTP.token(server, "idle-bob"))
        let talking = try chat(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1}"#))
        let silent = try chat(try await SandboxHTTP.call(server, "POST", "/chats", bob, #"{"menu_id": 1}"#))
        // The sandbox's own chore looks every 5 seconds of its clock; its other chore
        // prunes every minute. Each step waits for both to be asleep.
        await clock.advance(by: 30, stepWhenAsleep: 2)
        _ = try await SandboxHTTP.call(server, "POST", "/chats/\(talking.id)/messages", ana, #"{"text": "still here", "client_message_id": "m1"}"#)
        func status(_ id: Int, _ token: String) async throws -> ChatResponse {
            try chat(try await SandboxHTTP.call(server, "GET", "/chats/\(id)", token))
        }
        await clock.advance(by: 40, stepWhenAsleep: 2)
        let silentNow = try await status(silent.id, bob)
        #expect(silentNow.status == .ended && silentNow.endedBy == "timeout", "silent for 70 s")
        #expect(try await status(talking.id, ana).status == .queued, "the other wrote 40 s ago")
        await clock.advance(by: 30, stepWhenAsleep: 2)
        #expect(try await status(talking.id, ana).status == .ended)
        #expect(try await sandbox.endIdleChats().isEmpty, "an ended chat does not end twice")
        await server.stop()
    }

    @Test func messagesAreStoredOnceAndAnswered() async throws {
        let (_, server) = try SandboxHTTP.serve()
        let ana = try await SandboxHTTP.token(server, "msg-ana")
        let chat = try chat(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 8}"#))
        let first = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana, #"{"text": "hello", "client_message_id": "c-1"}"#)
        #expect(first.status == 201)
        let retried = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana, #"{"text": "hello", "client_message_id": "c-1"}"#)
        #expect(retried.status == 200, "a retried send is not stored twice")
        let message = try JSONDecoder().decode(ChatMessage.self, from: Data(first.body.utf8))
        #expect(try JSONDecoder().decode(ChatMessage.self, from: Data(retried.body.utf8)).id == message.id)
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana, #"{"text": "", "client_message_id": "c-2"}"#).status == 400)
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana, #"{"text": "x"}"#).status == 400)
        let transcript = try await messages(server, chat.id, ana) { messages in
            messages.contains { $0.sender.type == "agent" && $0.text?.contains("hello") == true }
        }
        #expect(transcript.map(\.sequence) == Array(1...transcript.count))
        #expect(transcript.filter { $0.sender.type == "end_user" }.count == 1)
        #expect(transcript.contains { $0.sender == ChatMessageSender(type: "agent", name: "Ben") })
        _ = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/end", ana)
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana, #"{"text": "late", "client_message_id": "c-3"}"#).status == 409)
        await server.stop()
    }

    @Test func agentsSeeRedactedText() async throws {
        let (_, server) = try SandboxHTTP.serve()
        let ana = try await SandboxHTTP.token(server, "redact-ana")
        let chat = try chat(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1}"#))
        #expect(chat.redactionEnabled, "Billing redacts")
        _ = try await messages(server, chat.id, ana) { $0.contains { $0.sender.type == "agent" } }
        let text = "I am at 415-555-3423, card 4111 1111 1111 1111"
        _ = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana, #"{"text": "\#(text)", "client_message_id": "r-1"}"#)
        func reply(_ messages: [ChatMessage]) -> String? {
            messages.last { $0.sender.type == "agent" && $0.text?.contains("You said") == true }?.text
        }
        let transcript = try await messages(server, chat.id, ana) { reply($0) != nil }
        let reply = reply(transcript)
        #expect(reply?.contains("I am at [phone], card [card]") == true, "\(reply ?? "no reply")")
        #expect(reply?.contains("4111") == false)
        #expect(transcript.first { $0.sender.type == "end_user" }?.text == text, "the end user keeps their own text")
        await server.stop()
    }

    @Test func previewsKeepTheNewestAndAreRedacted() async throws {
        let (_, server) = try SandboxHTTP.serve()
        let ana = try await SandboxHTTP.token(server, "preview-ana")
        let chat = try chat(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1}"#))
        let decoder = JSONDecoder()
        let newer = try decoder.decode(MessagePreview.self, from: Data(try await SandboxHTTP.call(
            server, "POST", "/chats/\(chat.id)/preview", ana, #"{"text": "my ssn is 123-45-6789", "timestamp": 20}"#).body.utf8))
        #expect(newer.accepted == true && newer.text == "my ssn is [ssn]")
        let older = try decoder.decode(MessagePreview.self, from: Data(try await SandboxHTTP.call(
            server, "POST", "/chats/\(chat.id)/preview", ana, #"{"text": "old", "timestamp": 10}"#).body.utf8))
        #expect(older.accepted == false && older.text == "my ssn is [ssn]", "an older preview is dropped")
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/typing", ana, #"{"typing": true}"#).status == 204)
        let seen = try decoder.decode(MessagePreview.self, from: Data(try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)/preview", ana).body.utf8))
        #expect(seen.typing && seen.timestamp == 20)
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/typing", ana, #"{"typing": "yes"}"#).status == 400)
        await server.stop()
    }

    @Test func chatsAreChecked() async throws {
        let (_, server) = try SandboxHTTP.serve()
        let bob = try await SandboxHTTP.token(server, "chat-bob")
        #expect(try await SandboxHTTP.call(server, "POST", "/chats", bob, #"{"menu_id": 404}"#).status == 404)
        let noChat = try await SandboxHTTP.call(server, "POST", "/chats", bob, #"{"menu_id": 3}"#)
        #expect(noChat.status == 400 && noChat.body.contains("no chat channel"))
        let badBody = try await SandboxHTTP.call(server, "POST", "/chats", bob, #"{"menu_id": "one"}"#)
        #expect(badBody.status == 400 && badBody.body.contains("menu_id"))
        let own = try chat(try await SandboxHTTP.call(server, "POST", "/chats", bob, #"{"menu_id": 8}"#))
        let eve = try await SandboxHTTP.token(server, "chat-eve")
        #expect(try await SandboxHTTP.call(server, "GET", "/chats/\(own.id)", eve).status == 404, "another user's chat is not found")
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(own.id)/end", eve).status == 404)
        #expect(try await SandboxHTTP.call(server, "GET", "/chats/x", eve).status == 400)
        await server.stop()
    }

    @Test func closedQueuesRefuseChats() async throws {
        let (_, server) = try SandboxHTTP.serve(at: QueueMenuTests.mondayEvening)
        let late = try await SandboxHTTP.token(server, "chat-late", at: QueueMenuTests.mondayEvening)
        let refused = try await SandboxHTTP.call(server, "POST", "/chats", late, #"{"menu_id": 1}"#)
        #expect(refused.status == 409 && refused.body.contains("after_hours"))
        #expect(try await SandboxHTTP.call(server, "POST", "/chats", late, #"{"menu_id": 7}"#).status == 201, "the night desk is open")
        await server.stop()
    }

    @Test func queuedChatsFillTheQueue() async throws {
        let configuration = try await LuaConfigurations.configuration("""
            menus = {
              { id = 1, name = "Small", capacity = { max_waiting = 1 }, deflection = { over_capacity = 2 }, channels = { chat = {} } },
              { id = 2, name = "Overflow", channels = { chat = {} } }
            }
            """)
        let (_, server) = try SandboxHTTP.serve(configuration: configuration)
        let first = try await SandboxHTTP.token(server, "cap-1")
        #expect(try await SandboxHTTP.call(server, "POST", "/chats", first, #"{"menu_id": 1}"#).status == 201)
        let second = try await SandboxHTTP.token(server, "cap-2")
        let full = try await SandboxHTTP.call(server, "POST", "/chats", second, #"{"menu_id": 1}"#)
        #expect(full.status == 409 && full.body.contains("over_capacity"))
        let menus = try JSONDecoder().decode(QueueMenusResponse.self,
                                             from: Data(try await SandboxHTTP.call(server, "GET", "/queue_menus", second).body.utf8))
        #expect(menus.menus[0].redirectionExtra?.menuId == 2)
        #expect(menus.menus[1].deflectionFrom == [QueueMenuDeflection(deflectionType: .overCapacityDeflection, menuId: 1)])
        let waits = try await SandboxHTTP.call(server, "GET", "/queue_menus/1/wait_times", second)
        #expect(waits.body == #"{"chat":310}"#, "one chat waiting, handle time 300 s, no agents (as one), and 10 s")
        await server.stop()
    }
}
