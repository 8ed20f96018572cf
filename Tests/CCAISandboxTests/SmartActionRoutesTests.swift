@testable import CCAISandbox
import CCAIWire
import Foundation
import Testing

/// Pre-session smart actions, the answers of the end user's app, and `enqueue`.
@Suite struct SmartActionRoutesTests {
    private func serve() async throws -> (Sandbox, ServedSandbox) {
        try SandboxHTTP.serve(configuration: try await LuaConfigurations.configuration("""
            menus = {
              { id = 1, name = "Devices", pre_session_smart_action = true,
                pre_session_smart_action_types = { "text", "photo", "verification" }, channels = { chat = {} } },
              { id = 2, name = "Chat first", channels = { chat = { pre_session_smart_action = true } } },
              { id = 3, name = "Plain", channels = { chat = {} } },
            },
            agents = { { name = "Ada", menus = { 1, 2, 3 } } }
            """))
    }

    @Test func aQueueWithPreSessionRequirementsStartsChatsPending() async throws {
        let (sandbox, server) = try await serve()
        let ana = try await SandboxHTTP.token(server, "pre-ana")
        let chat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1}"#),
                                          as: ChatResponse.self)
        #expect(chat.status == .pending)
        let actions = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)/smart_actions", ana),
                                             as: [SmartAction].self)
        #expect(actions.map(\.type) == [.text, .photo, .verification] && actions.allSatisfy { $0.preSession && $0.status == .requested })
        #expect(await sandbox.agentDesk.humanAgent(of: chat.id) == nil)
        let waiting = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)", ana), as: ChatResponse.self)
        #expect(waiting.status == .pending && waiting.agent == nil, "no agent takes a pending chat")
        let queued = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/enqueue", ana),
                                            as: ChatResponse.self)
        #expect(queued.status == .queued)
        let again = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/enqueue", ana)
        #expect(again.status == 200, "enqueueing a chat that is no longer pending changes nothing")
        _ = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/end", ana)
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/enqueue", ana).status == 409)

        let channelLevel = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 2}"#),
                                                  as: ChatResponse.self)
        #expect(channelLevel.status == .pending, "the chat channel's flag counts too")
        let defaults = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/chats/\(channelLevel.id)/smart_actions", ana),
                                              as: [SmartAction].self)
        #expect(defaults.map(\.type) == [.text], "a text by default")
        await server.stop()
    }

    @Test func answersMustFitTheActionAndFinalActionsStayFinal() async throws {
        let (_, server) = try await serve()
        let bob = try await SandboxHTTP.token(server, "pre-bob")
        let chat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", bob, #"{"menu_id": 1}"#),
                                          as: ChatResponse.self)
        let actions = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)/smart_actions", bob),
                                             as: [SmartAction].self)
        let (text, photo, verification) = (actions[0], actions[1], actions[2])
        let path = { (action: SmartAction, step: String) in "/chats/\(chat.id)/smart_actions/\(action.id)/\(step)" }
        let received = try await SandboxHTTP.call(server, "POST", path(text, "received"), bob)
        #expect(try SandboxHTTP.decode(received, as: SmartAction.self).status == .received)
        let early = try await SandboxHTTP.call(server, "PUT", path(text, "status"), bob, #"{"status": "finished"}"#)
        #expect(early.status == 409 && early.body.contains("cannot finish without its text"), "\(early.body)")
        let wrongKind = try await SandboxHTTP.call(server, "POST", path(photo, "result"), bob, #"{"text": "a photo?"}"#)
        #expect(wrongKind.status == 400 && wrongKind.body.contains("only a text smart action"), "\(wrongKind.body)")
        let mediaIDs = try await SandboxHTTP.call(server, "POST", path(photo, "result"), bob, #"{"media_ids": [1]}"#)
        #expect(mediaIDs.status == 400 && mediaIDs.body.contains("uploads"))
        let empty = try await SandboxHTTP.call(server, "POST", path(text, "result"), bob, "{}")
        #expect(empty.status == 400)
        let backwards = try await SandboxHTTP.call(server, "PUT", path(text, "status"), bob, #"{"status": "requested"}"#)
        #expect(backwards.status == 400)
        let unknownStatus = try await SandboxHTTP.call(server, "PUT", path(text, "status"), bob, #"{"status": "done"}"#)
        #expect(unknownStatus.status == 400)

        _ = try await SandboxHTTP.call(server, "POST", path(text, "result"), bob, #"{"text": "ACME-1"}"#)
        let finished = try await SandboxHTTP.call(server, "PUT", path(text, "status"), bob, #"{"status": "finished"}"#)
        #expect(try SandboxHTTP.decode(finished, as: SmartAction.self).result?.text == "ACME-1")
        #expect(try await SandboxHTTP.call(server, "PUT", path(text, "status"), bob, #"{"status": "failed"}"#).status == 409)
        #expect(try await SandboxHTTP.call(server, "POST", path(text, "result"), bob, #"{"text": "again"}"#).status == 409)

        _ = try await SandboxHTTP.call(server, "POST", path(verification, "result"), bob, #"{"verified": false}"#)
        let verified = try await SandboxHTTP.call(server, "PUT", path(verification, "status"), bob, #"{"status": "finished"}"#)
        #expect(try SandboxHTTP.decode(verified, as: SmartAction.self).result?.verified == false)
        let declined = try await SandboxHTTP.call(server, "POST", path(photo, "result"), bob, #"{"decline_reason": "no camera"}"#)
        #expect(declined.status == 200)
        #expect(try await SandboxHTTP.call(server, "PUT", path(photo, "status"), bob, #"{"status": "failed"}"#).status == 200)

        let carol = try await SandboxHTTP.token(server, "pre-carol")
        #expect(try await SandboxHTTP.call(server, "POST", path(photo, "received"), carol).status == 404,
                "another end user's chat is not found")
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/smart_actions/999/received", bob).status == 404)
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/smart_actions/x/received", bob).status == 400)
        await server.stop()
    }

    @Test func unknownPreSessionTypesAreConfigurationErrors() async throws {
        await #expect(throws: ConfigurationError.self) {
            try await LuaConfigurations.configuration("""
                menus = { { id = 1, name = "x", pre_session_smart_action = true, pre_session_smart_action_types = { "selfie" },
                            channels = { chat = {} } } }
                """).validate()
        }
    }
}
