@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Synchronization
import Testing

/// Smart actions during a call: an agent's script asks, the caller's app answers under
/// `/calls/{id}/smart_actions`, and a data folder from before calls had them keeps its
/// chats' actions.
@Suite struct CallSmartActionTests {
    /// Queue 1's calls go to Cal, whose script is `script`.
    private static func sandbox(script: String, log: @escaping @Sendable (String) -> Void) async throws -> (Sandbox, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("call-actions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try script.write(to: folder.appendingPathComponent("cal.lua"), atomically: true, encoding: .utf8)
        try await LuaConfigurations.write(folder.appendingPathComponent("sandbox.lua"), """
            menus = { { id = 1, name = "Phone", channels = { voice_call = { instant = true } } } },
            agents = { { name = "Cal", menus = { 1 }, script = "cal.lua" } }
            """)
        let sandbox = try Sandbox(configuration: try await SandboxConfiguration.load(file: folder.appendingPathComponent("sandbox.lua").path),
                                  log: log)
        return (sandbox, folder)
    }

    @Test func theCallersAppAnswersAnAgentsRequestDuringTheCall() async throws {
        let lines = Mutex<[String]>([])
        let (sandbox, folder) = try await Self.sandbox(script: """
            return function(agent, session)
              local ok, err = pcall(agent.request_smart_action, { type = "video" })
              assert(not ok and err.code == "invalid_argument", tostring(err))
              local check = agent.request_smart_action{ type = "verification", timeout = 60 }
              print("verification " .. check.status .. " " .. tostring(check.result.verified) .. " " .. tostring(check.call_id))
              agent.end_session()
            end
            """, log: { line in lines.withLock { $0.append(line) } })
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = InProcessClient(sandbox)
        let ana = try await CallingEndUser(client, "call-actions-ana")
        let call = try await ana.start(#"{"menu_id": 1}"#)
        var asked: [SmartAction] = []
        #expect(try await eventually(timeout: 120) {
            asked = try await ana.call("GET", "/calls/\(call.id)/smart_actions").decode(as: [SmartAction].self)
            return !asked.isEmpty
        })
        let action = try #require(asked.first)
        #expect(action.type == .verification && action.callId == call.id && action.chatId == nil && action.requestedBy == "Cal")
        let published = try await ana.events(.smartActionRequested)
        #expect(published.first?["call_id"] == .integer(Int64(call.id)) && published.first?["chat_id"] == nil, "\(published)")

        let base = "/calls/\(call.id)/smart_actions/\(action.id)"
        #expect(await ana.call("GET", "/chats/\(call.id)/smart_actions").status == 404, "a call's actions are not a chat's")
        let bo = try await CallingEndUser(client, "call-actions-bo")
        #expect(await bo.call("POST", "\(base)/received").status == 404, "another end user's call is never found")
        #expect(await ana.call("POST", "/calls/\(call.id)/smart_actions/\(action.id + 99)/received").status == 404)
        #expect(try await ana.call("POST", "\(base)/received").decode(as: SmartAction.self).status == .received)
        let wrongField = await ana.call("POST", "\(base)/result", #"{"text": "1234"}"#)
        #expect(wrongField.status == 400 && wrongField.text.contains("verification"), "\(wrongField.text)")
        let early = await ana.call("PUT", "\(base)/status", #"{"status": "finished"}"#)
        #expect(early.status == 409, "finished without its outcome: \(early.text)")
        #expect(try await ana.call("POST", "\(base)/result", #"{"verified": true}"#).decode(as: SmartAction.self).result?.verified == true)
        #expect(try await ana.call("PUT", "\(base)/status", #"{"status": "finished"}"#).decode(as: SmartAction.self).status == .finished)

        _ = try await ana.call(call.id) { $0.status == .ended }
        #expect(await eventually(timeout: 120) { lines.withLock { $0 }.contains { $0.hasSuffix("] verification finished true \(call.id)") } },
                "\(lines.withLock { $0 })")
        #expect(!lines.withLock { $0 }.contains { $0.contains("failed") }, "\(lines.withLock { $0 })")
    }

    @Test func anAgentWaitingForAnAnswerGetsNilWhenTheCallEnds() async throws {
        let lines = Mutex<[String]>([])
        let (sandbox, folder) = try await Self.sandbox(script: """
            return function(agent, session)
              print("asked: " .. tostring(agent.request_smart_action{ type = "text", timeout = 600 }))
            end
            """, log: { line in lines.withLock { $0.append(line) } })
        defer { try? FileManager.default.removeItem(at: folder) }
        let cy = try await CallingEndUser(InProcessClient(sandbox), "call-actions-cy")
        let call = try await cy.start(#"{"menu_id": 1}"#)
        #expect(try await eventually(timeout: 120) {
            !(try await cy.call("GET", "/calls/\(call.id)/smart_actions").decode(as: [SmartAction].self)).isEmpty
        })
        _ = await cy.call("POST", "/calls/\(call.id)/end")
        #expect(await eventually(timeout: 120) { lines.withLock { $0 }.contains { $0.hasSuffix("] asked: nil") } }, "\(lines.withLock { $0 })")
    }

    /// A data folder written before calls had smart actions: its table, whose `chat_id`
    /// could not be null, is rebuilt; the chats' actions keep their ids and results, and
    /// new ids come after them.
    @Test func aDataFolderFromBeforeCallSmartActionsKeepsItsChatsActions() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("call-actions-old-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var first: SandboxStore? = try SandboxStore(directory: folder, companyKey: "dev-key", now: now)
        let user = try #require(try await first?.endUser(identifier: "old-user", name: nil, email: nil, phone: nil, now: now).id)
        guard case .created(let chat) = try #require(try await first?.createChat(endUserID: user, menuID: 1, lang: "en", redaction: false, now: now))
        else { Issue.record("no chat"); return }
        first = nil
        let old = try SQLiteDatabase(path: URL(fileURLWithPath: folder).appendingPathComponent("sandbox.sqlite").path)
        try old.execute("""
            DROP TABLE smart_actions;
            CREATE TABLE smart_actions (
              id INTEGER PRIMARY KEY AUTOINCREMENT, chat_id INTEGER NOT NULL REFERENCES chats(id), type TEXT NOT NULL,
              status TEXT NOT NULL, pre_session INTEGER NOT NULL, requested_by TEXT, result TEXT,
              created_at REAL NOT NULL, updated_at REAL NOT NULL);
            CREATE INDEX smart_actions_by_chat ON smart_actions (chat_id, id);
            INSERT INTO smart_actions VALUES (41, \(chat.id), 'text', 'finished', 0, 'Ada', '{"text":"ACME-1"}', 1, 2);
            """)

        let store = try SandboxStore(directory: folder, companyKey: "dev-key", now: now)
        let kept = try await store.smartActions(session: CommunicationRouter(id: chat.id, type: .chat))
        #expect(kept.map(\.id) == [41] && kept.first?.result?.text == "ACME-1" && kept.first?.requestedBy == "Ada")
        guard case .created(let call) = try await store.createCall(endUserID: user, menuID: 1,
                                                                   .instant(recordingPermission: nil, recorded: false, estimatedWait: 0),
                                                                   customData: [:], now: now)
        else { Issue.record("no call"); return }
        let asked = try await store.addSmartAction(session: CommunicationRouter(id: call.id, type: .call), type: .text, preSession: false,
                                                   requestedBy: "Cal", now: now)
        #expect(asked.id > 41 && asked.callId == call.id)
        #expect(try await store.smartActions(session: CommunicationRouter(id: chat.id, type: .chat)).map(\.id) == [41],
                "a call's actions are not its owner's chat's")
    }
}
