@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Synchronization
import Testing

/// A queue's voice virtual agent: it answers calls first, and the caller, or its script,
/// escalates to a human agent (`POST /calls/{id}/escalate`, `agent.escalate()`).
@Suite struct VoiceVirtualAgentTests {
    /// Queue 1's calls go to virtual agent `va` first (its script when `script` is given),
    /// then to Ava; queue 2 has no virtual agent.
    private static func sandbox(script: String? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) async throws
        -> (Sandbox, URL)
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("voice-va-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let script { try script.write(to: folder.appendingPathComponent("va.lua"), atomically: true, encoding: .utf8) }
        try await LuaConfigurations.write(folder.appendingPathComponent("sandbox.lua"), """
            menus = { { id = 1, name = "Help", channels = { voice_call = { instant = true, virtual_agent = "va" } } },
                      { id = 2, name = "Plain", channels = { voice_call = { instant = true } } } },
            agents = { { name = "Ava", menus = { 1, 2 } } },
            virtual_agents = { va = { name = "Robo"\(script == nil ? "" : #", script = "va.lua""#) } }
            """)
        let sandbox = try Sandbox(configuration: try await SandboxConfiguration.load(file: folder.appendingPathComponent("sandbox.lua").path),
                                  log: log)
        return (sandbox, folder)
    }

    @Test func theVirtualAgentAnswersFirstAndTheCallerEscalatesToAHuman() async throws {
        let (sandbox, folder) = try await Self.sandbox()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ana = try await CallingEndUser(InProcessClient(sandbox), "voice-va-ana")
        let started = try await ana.start(#"{"menu_id": 1}"#)
        let answered = try await ana.call(started.id) { $0.status == .connected }
        #expect(answered.virtualAgent?.name == "Robo" && answered.agent == nil)
        #expect(answered.canEscalate(allowSkipVirtualAgent: false), "the Talk to a person button shows while the virtual agent has it")

        let escalated = await ana.call("POST", "/calls/\(started.id)/escalate")
        #expect(escalated.status == 200, "\(escalated.text)")
        let waiting = try escalated.decode(as: CallResponse.self)
        #expect(waiting.status == .waiting && waiting.virtualAgent == nil)
        let human = try await ana.call(started.id) { $0.agent?.name == "Ava" && $0.status == .connected }
        #expect(!human.canEscalate(allowSkipVirtualAgent: true), "a human has the call")

        let again = await ana.call("POST", "/calls/\(started.id)/escalate")
        #expect(again.status == 409 && again.text.contains("no virtual agent"), "\(again.text)")
        let statuses = try await ana.callStatuses(endingWith: "connected")
        #expect(statuses == ["waiting", "connected", "waiting", "connecting", "connected"], "\(statuses)")
        let participants = try await ana.events(.participantUpdated).map {
            "\($0["change"]?.stringValue ?? "") \($0["participant"]?["type"]?.stringValue ?? "") \($0["participant"]?["name"]?.stringValue ?? "")"
        }
        #expect(participants == ["joined virtual_agent Robo", "left virtual_agent Robo", "joined agent Ava"], "\(participants)")

        _ = await ana.call("POST", "/calls/\(started.id)/end")
        let ended = await ana.call("POST", "/calls/\(started.id)/escalate")
        #expect(ended.status == 409 && ended.text.contains("has ended"), "\(ended.text)")
    }

    @Test func aCallNoVirtualAgentHasCannotBeEscalated() async throws {
        let (sandbox, folder) = try await Self.sandbox()
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = InProcessClient(sandbox)
        let bo = try await CallingEndUser(client, "voice-va-bo")
        let call = try await bo.start(#"{"menu_id": 2}"#)
        _ = try await bo.call(call.id) { $0.agent?.name == "Ava" }
        let refused = await bo.call("POST", "/calls/\(call.id)/escalate")
        #expect(refused.status == 409 && refused.text.contains("no virtual agent has it"), "\(refused.text)")
        let cy = try await CallingEndUser(client, "voice-va-cy")
        #expect(await cy.call("POST", "/calls/\(call.id)/escalate").status == 404, "another end user's call is never found")
    }

    @Test func aScriptedVirtualAgentEscalatesTheCallItself() async throws {
        let lines = Mutex<[String]>([])
        let (sandbox, folder) = try await Self.sandbox(script: """
            return function(agent, session)
              assert(session.channel == "voice_call" and session.virtual_agent.name == "Robo")
              assert(agent.wait{ seconds = 0.01 })
              local call = agent.escalate()
              assert(call.status == "waiting" and call.virtual_agent == nil, tostring(call.status))
              local ok, err = pcall(agent.escalate)
              assert(not ok and err.code == "conflict", tostring(err))
              print("escalated")
            end
            """, log: { line in lines.withLock { $0.append(line) } })
        defer { try? FileManager.default.removeItem(at: folder) }
        let di = try await CallingEndUser(InProcessClient(sandbox), "voice-va-di")
        let call = try await di.start(#"{"menu_id": 1}"#)
        _ = try await di.call(call.id) { $0.agent?.name == "Ava" && $0.status == .connected }
        #expect(await eventually(timeout: 120) { lines.withLock { $0 }.contains { $0.hasSuffix("] escalated") } }, "\(lines.withLock { $0 })")
        #expect(!lines.withLock { $0 }.contains { $0.contains("failed") }, "\(lines.withLock { $0 })")
    }

    /// While a call waits on a queue whose virtual agent callers may skip, the caller may
    /// ask for a human; without the setting, or on a queue without a virtual agent, not.
    @Test func waitingCallsMayEscalateOnlyWhereTheQueueLetsCallersSkip() async throws {
        let configuration = try await LuaConfigurations.configuration("""
            menus = { { id = 1, name = "Skip", channels = { voice_call = { instant = true, virtual_agent = "va", allow_skip_virtual_agent = true } } },
                      { id = 2, name = "Stay", channels = { voice_call = { instant = true, virtual_agent = "va" } } },
                      { id = 3, name = "Plain", channels = { voice_call = { instant = true } } } },
            virtual_agents = { va = { } }
            """)
        let sandbox = try Sandbox(configuration: configuration, log: { _ in })
        func waiting(on menu: Int) -> CallResponse { CallResponse(id: 7, menuId: menu, status: .waiting, createdAt: 0) }
        #expect(try sandbox.calls.escalationRefusal(waiting(on: 1)) == nil)
        #expect(try sandbox.calls.escalationRefusal(waiting(on: 2))?.message.contains("allow_skip_virtual_agent") == true)
        #expect(try sandbox.calls.escalationRefusal(waiting(on: 3)) != nil)
        #expect(waiting(on: 1).canEscalate(allowSkipVirtualAgent: true) && !waiting(on: 1).canEscalate(allowSkipVirtualAgent: false))

        // A waiting call escalated before its virtual agent answers is marked so: the
        // virtual agent no longer takes it, and a second escalation is refused.
        let user = try #require(try await sandbox.store.endUser(identifier: "voice-va-skip", name: nil, email: nil, phone: nil,
                                                                now: Date()).id)
        guard case .created(let waitingCall) = try await sandbox.store.createCall(
            endUserID: user, menuID: 1, .instant(recordingPermission: nil, recorded: false, estimatedWait: 0), customData: [:], now: Date())
        else { Issue.record("no call"); return }
        let marked = try await sandbox.store.escalateCall(id: waitingCall.id)
        #expect(marked?.status == .waiting && marked?.virtualAgent == nil)
        #expect(try await sandbox.store.answerCall(id: waitingCall.id, virtualAgent: "Robo", now: Date()) == nil)
        #expect(try await sandbox.store.escalateCall(id: waitingCall.id) == nil, "escalated once")

        let menus = try await CallingEndUser(InProcessClient(sandbox), "voice-va-eve").call("GET", "/queue_menus").decode(as: QueueMenusResponse.self)
        let voice = menus.menus.first { $0.id == 1 }?.channels?.voiceCall
        #expect(voice?.virtualAgent == true && voice?.allowSkipVirtualAgent == true, "the app reads the setting from the menu")
    }
}
