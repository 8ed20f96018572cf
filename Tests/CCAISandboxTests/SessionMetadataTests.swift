@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing

/// Issue 35, item 4: an ended chat or call gets its published session metadata record,
/// written to the data folder's `exports/` and offered on the admin routes.
@Suite struct SessionMetadataTests {
    /// Devices (1) is under Support (10) and asks for a text and a verification before
    /// the chat; Phone (2) takes calls; Ava takes both; the company asks for CSAT.
    private static func sandbox(dataDirectory: String?) async throws -> Sandbox {
        let configuration = try await LuaConfigurations.configuration("""
            company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret",
                        post_session = { csat = true } },
            admin_token = "operator-token",
            menus = { { id = 10, name = "Support", children = {
                        { id = 1, name = "Devices", position = 2, pre_session_smart_action = true,
                          pre_session_smart_action_types = { "text", "verification" }, channels = { chat = {} } },
                        { id = 2, name = "Phone", channels = { voice_call = { instant = true } } } } } },
            agents = { { name = "Ava", menus = { 1, 2 } } }
            """)
        return try Sandbox(configuration: configuration, dataDirectory: dataDirectory)
    }

    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("metadata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A record's JSON object.
    private static func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Answers a smart action of `path` (`/chats/1/smart_actions/7`) with `result`, finished.
    private static func answer(_ user: CallingEndUser, _ path: String, _ result: String) async {
        #expect(await user.call("POST", "\(path)/received").status == 200)
        #expect(await user.call("POST", "\(path)/result", result).status == 200)
        #expect(await user.call("PUT", "\(path)/status", #"{"status": "finished"}"#).status == 200)
    }

    /// Rates ended session `base` (`/chats/3`) through its post-session phase.
    private static func rate(_ user: CallingEndUser, _ base: String, _ json: String) async {
        #expect(await user.call("POST", "\(base)/post_session/start").status == 200)
        #expect(await user.call("POST", "\(base)/post_session/ready").status == 200)
        #expect(await user.call("POST", "\(base)/rating", json).status == 204)
    }

    @Test func anEndedChatsRecordIsExportedAndServed() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try await Self.sandbox(dataDirectory: folder.path)
        let client = InProcessClient(sandbox)
        let ana = try await CallingEndUser(client, "metadata-ana")
        let chat = try await ana.call("POST", "/chats", #"{"menu_id": 1}"#).decode(as: ChatResponse.self)
        let actions = try await ana.call("GET", "/chats/\(chat.id)/smart_actions").decode(as: [SmartAction].self)
        await Self.answer(ana, "/chats/\(chat.id)/smart_actions/\(actions[0].id)", #"{"text": "ACME-1"}"#)
        await Self.answer(ana, "/chats/\(chat.id)/smart_actions/\(actions[1].id)", #"{"verified": true}"#)
        #expect(await ana.call("POST", "/chats/\(chat.id)/enqueue").status == 200)
        #expect(try await eventually(timeout: 120) {
            try await ana.call("GET", "/chats/\(chat.id)").decode(as: ChatResponse.self).status == .active
        }, "Ava has taken the chat")
        #expect(await ana.call("POST", "/chats/\(chat.id)/messages", #"{"text": "my screen is cracked", "client_message_id": "m-1"}"#).status == 201)
        let open = await client.call("GET", "/admin/session_metadata/chat/\(chat.id)", token: "operator-token")
        #expect(open.status == 404 && open.text.contains("once it has ended"), "\(open.text)")
        #expect(await ana.call("POST", "/chats/\(chat.id)/end").status == 200)

        await sandbox.sessionMetadata.flush()
        let file = folder.appendingPathComponent("exports/chat-\(chat.id).json")
        let ended = try Self.object(try Data(contentsOf: file))
        #expect(ended["status"] as? String == "finished" && ended["rating"] is NSNull && ended["has_feedback"] as? Bool == false)

        await Self.rate(ana, "/chats/\(chat.id)", #"{"rating": 4, "feedback": "quick"}"#)
        await sandbox.sessionMetadata.flush()
        let served = await client.call("GET", "/admin/session_metadata/chat/\(chat.id)", token: "operator-token")
        #expect(served.status == 200)
        #expect(served.body == (try Data(contentsOf: file)), "the file is rewritten with the rating, as the route serves it")
        let record = try Self.object(served.body)
        #expect(record["id"] as? Int == chat.id && record["chat_type"] as? String == "Messaging Inbound (App Chat)")
        #expect(record["rating"] as? Int == 4 && record["feedback"] as? String == "quick" && record["has_feedback"] as? Bool == true)
        #expect(record["verified"] as? Bool == true && record["texts"] as? [String] == ["ACME-1"])
        #expect((record["smart_actions"] as? [[String: Any]])?.map { $0["type"] as? String } == ["text", "verification"])
        #expect((record["agent_info"] as? [String: Any])?["name"] as? String == "Ava")
        #expect((record["end_user"] as? [String: Any])?["identifier"] as? String == "metadata-ana")
        let menu = try #require(record["selected_menu"] as? [String: Any])
        #expect(menu["id"] as? Int == 1 && menu["parent_id"] as? Int == 10 && menu["position"] as? Int == 2 && menu["name"] as? String == "Devices")
        #expect((record["menu_path"] as? [String: Any])?["materialized_path"] as? String == "Support / Devices")
        try Self.expectTimesAgree(record, start: "created_at", assigned: "assigned_at", duration: "chat_duration")
        #expect(record["sub_status"] as? String == "finished_by_end_user", "the Apps API's status table")
        #expect(record["first_msg_sent_at"] is String && record["out_ticket_id"] is NSNull)
    }

    /// Times parse, come in order, and the durations are their differences (to the second:
    /// the record rounds the exact times, the text keeps milliseconds).
    private static func expectTimesAgree(_ record: [String: Any], start: String, assigned: String, duration: String) throws {
        let parse = { (key: String) in (record[key] as? String).flatMap { try? Date($0, strategy: .iso8601) } }
        let (created, taken, ended) = (try #require(parse(start)), try #require(parse(assigned)), try #require(parse("ends_at")))
        #expect(created <= taken && taken <= ended)
        let (wait, handled) = (try #require(record["wait_duration"] as? Int), try #require(record[duration] as? Int))
        #expect(abs(Double(wait) - taken.timeIntervalSince(created)) <= 1, "\(wait) s")
        #expect(abs(Double(handled) - ended.timeIntervalSince(taken)) <= 1, "\(handled) s")
    }

    @Test func anEndedCallsRecordIsExportedAndServed() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try await Self.sandbox(dataDirectory: folder.path)
        let client = InProcessClient(sandbox)
        let bo = try await CallingEndUser(client, "metadata-bo")
        let call = try await bo.start(#"{"menu_id": 2}"#)
        _ = try await bo.call(call.id) { $0.status == .connected }
        #expect(await bo.call("POST", "/calls/\(call.id)/end").status == 200)
        await Self.rate(bo, "/calls/\(call.id)", #"{"rating": 5}"#)
        await sandbox.sessionMetadata.flush()

        let record = try Self.object(try Data(contentsOf: folder.appendingPathComponent("exports/call-\(call.id).json")))
        #expect(record["call_type"] as? String == "Voice Inbound (App)" && record["status"] as? String == "finished")
        #expect(record["rating"] as? Int == 5 && record["has_feedback"] as? Bool == false && record["verified"] as? Bool == false)
        #expect(record["queued_at"] as? String == record["created_at"] as? String, "an instant call waits from its start")
        #expect(record["connected_at"] as? String == record["assigned_at"] as? String)
        #expect(record["disconnected_by"] as? String == "disconnected_by_end_user" && record["hold_duration"] is NSNull)
        #expect((record["menu_path"] as? [String: Any])?["materialized_path"] as? String == "Support / Phone")
        try Self.expectTimesAgree(record, start: "queued_at", assigned: "connected_at", duration: "call_duration")
        let page = try Self.object(await client.call("GET", "/admin/session_metadata/call", token: "operator-token").body)
        #expect((page["sessions"] as? [[String: Any]])?.map { $0["id"] as? Int } == [call.id])
    }

    /// Without a data folder nothing is written, and the routes still answer; a wrong type,
    /// id, page or token is a 4xx saying what was wrong.
    @Test func theRoutesAnswerWithoutADataFolderAndRefuseBadRequests() async throws {
        let sandbox = try await Self.sandbox(dataDirectory: nil)
        #expect(sandbox.sessionMetadata.directory == nil)
        let client = InProcessClient(sandbox)
        let cy = try await CallingEndUser(client, "metadata-cy")
        let call = try await cy.start(#"{"menu_id": 2}"#)
        _ = try await cy.call(call.id) { $0.status == .connected }
        #expect(await cy.call("POST", "/calls/\(call.id)/end").status == 200)
        let admin = { (path: String, query: [String: String]) in
            await client.call("GET", "/admin/session_metadata/\(path)", query: query, token: "operator-token")
        }
        #expect(await admin("call/\(call.id)", [:]).status == 200)
        #expect(try Self.object(await admin("call", ["after": String(call.id)]).body)["sessions"] as? [Any] != nil)
        let wrongType = await admin("email/\(call.id)", [:])
        #expect(wrongType.status == 400 && wrongType.text.contains("'chat' or 'call', got 'email'"), "\(wrongType.text)")
        let wrongID = await admin("chat/abc", [:])
        #expect(wrongID.status == 400 && wrongID.text.contains("chat id must be an integer"), "\(wrongID.text)")
        let unknown = await admin("chat/\(call.id)", [:])
        #expect(unknown.status == 404 && unknown.text.contains("no ended chat \(call.id)"), "a call's id is no chat: \(unknown.text)")
        #expect(await admin("call", ["limit": "0"]).status == 400)
        #expect(await admin("calls", [:]).status == 400)
        #expect(await client.call("GET", "/admin/session_metadata/call/\(call.id)").status == 401)
        #expect(await client.call("GET", "/admin/session_metadata/call/\(call.id)", token: cy.token).status == 403)
    }
}
