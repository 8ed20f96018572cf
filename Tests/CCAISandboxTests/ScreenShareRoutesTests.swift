import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// Screen share sessions: who may create them, the order of their states, the end user's
/// own initiative (the chat's agent joins), and the end of the chat.
@Suite struct ScreenShareRoutesTests {
    @Test(.timeLimit(.minutes(1))) func sessionsMoveThroughTheirStatesInOrder() async throws {
        let (_, server) = try SandboxHTTP.serve(configuration: try await LuaConfigurations.configuration("""
            menus = { { id = 1, name = "Help", channels = { chat = {} } } }, agents = { { name = "Ada", menus = { 1 } } }
            """))
        let ana = try await SandboxHTTP.token(server, "share-ana")
        let plain = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1}"#),
                                           as: ChatResponse.self)
        #expect(!plain.isSupportingScreenShare)
        let refused = try await SandboxHTTP.call(server, "POST", "/screen_shares", ana,
                                                 #"{"communication_id": \#(plain.id), "communication_type": "chat", "initiated_from": "end_user"}"#)
        #expect(refused.status == 409 && refused.body.contains("screen-shareable"))
        _ = try await SandboxHTTP.call(server, "POST", "/chats/\(plain.id)/end", ana)

        let chat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", ana,
                                                                    #"{"menu_id": 1, "is_screen_shareable": true}"#), as: ChatResponse.self)
        #expect(chat.isSupportingScreenShare)
        // Ada takes the chat on her own task; the share she joins is that of her chat.
        _ = try await eventually {
            try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)", ana), as: ChatResponse.self).agent != nil
        }
        let create = #"{"communication_id": \#(chat.id), "communication_type": "chat", "initiated_from": "end_user"}"#
        let created = try await SandboxHTTP.call(server, "POST", "/screen_shares", ana, create)
        #expect(created.status == 201)
        let session = try SandboxHTTP.decode(created, as: ScreenShareResponse.self)
        #expect(session.state == .pending && session.code.count == 6 && session.code.allSatisfy(\.isNumber))
        #expect(try await SandboxHTTP.call(server, "POST", "/screen_shares", ana, create).status == 409, "one session at a time")
        let early = try await SandboxHTTP.call(server, "POST", "/screen_shares/\(session.id)/activate", ana, #"{"accepted": true}"#)
        #expect(early.status == 409 && early.body.contains("no agent has joined"))
        #expect(try await SandboxHTTP.call(server, "POST", "/screen_shares/\(session.id)/remote_control", ana,
                                           #"{"enabled": true}"#).status == 409)
        let bob = try await SandboxHTTP.token(server, "share-bob")
        #expect(try await SandboxHTTP.call(server, "GET", "/screen_shares/\(session.id)", bob).status == 404)

        let codeMessage = #"{"event": "screen_share_code_generated", "response": \#(created.body)}"#
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/screen_share_events", ana, codeMessage).status == 201)
        let joined = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/screen_shares/\(session.id)", ana),
                                            as: ScreenShareResponse.self)
        #expect(joined.state == .authorizing && joined.agent == "Ada", "the chat's agent joins a share the end user started")
        let active = try await SandboxHTTP.call(server, "POST", "/screen_shares/\(session.id)/activate", ana, #"{"accepted": true}"#)
        #expect(try SandboxHTTP.decode(active, as: ScreenShareResponse.self).state == .active)
        let control = try await SandboxHTTP.call(server, "POST", "/screen_shares/\(session.id)/remote_control", ana, #"{"enabled": true}"#)
        #expect(try SandboxHTTP.decode(control, as: ScreenShareResponse.self).remoteControl)
        let wide = try await SandboxHTTP.call(server, "PUT", "/screen_shares/\(session.id)/options", ana, #"{"full_device": true}"#)
        #expect(try SandboxHTTP.decode(wide, as: ScreenShareResponse.self).fullDevice)

        _ = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/end", ana)
        let ended = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/screen_shares/\(session.id)", ana),
                                           as: ScreenShareResponse.self)
        #expect(ended.state == .ended, "the share ends with the chat")
        #expect(try await SandboxHTTP.call(server, "POST", "/screen_shares/\(session.id)/end", ana).status == 409)
        #expect(try await SandboxHTTP.call(server, "PUT", "/screen_shares/\(session.id)/options", ana, #"{"full_device": false}"#).status == 409)
        let events = try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)/messages", ana)
        #expect(events.body.contains("screen_share_code_generated"))
        await server.stop()
    }

    /// An agent asking for a screen share waits for the app's code; when the chat ends
    /// before any session was created, the wait ends with it (nil), not at its timeout.
    @Test(.timeLimit(.minutes(1))) func anAgentWaitingForACodeHearsTheChatEnd() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("share-wait-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
            return function(agent)
              local shared = agent.request_screen_share{ timeout = 3600 }
              print("request returned " .. tostring(shared))
            end
            """.write(to: folder.appendingPathComponent("agent.lua"), atomically: true, encoding: .utf8)
        try """
            return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Help", channels = { chat = {} } } },
                     agents = { { name = "Ada", menus = { 1 }, script = "agent.lua" } } }
            """.write(to: folder.appendingPathComponent("sandbox.lua"), atomically: true, encoding: .utf8)
        let configuration = try await SandboxConfiguration.load(file: folder.appendingPathComponent("sandbox.lua").path)
        let lines = LogLines()
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        let server = try Sandbox(configuration: configuration, clock: clock, log: { lines.append($0) }).serve()
        let ana = try await SandboxHTTP.token(server, "share-wait-ana")
        let chat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", ana,
                                                                    #"{"menu_id": 1, "is_screen_shareable": true}"#), as: ChatResponse.self)
        let asked = try #require(try await SandboxHTTP.agentMessages(server, chat.id, ana, count: 1).first)
        #expect(asked.type == "screen_share" && asked.event == "screen_share_requested_from_agent")
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/end", ana).status == 200)
        #expect(await eventually { lines.all.contains { $0.contains("request returned nil") } }, "\(lines.all)")
        #expect(clock.now() == QueueMenuTests.mondayMorning, "no virtual time passed: the wait ended with the chat")
        await server.stop()
    }
}
