import CCAISandbox
import CCAIWire
import Foundation
import Testing

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
}
