@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Synchronization
import Testing

/// Voice calls through the sandbox's router: their life, the queue's rules and the agents.
@Suite struct CallRoutesTests {
    /// Queues open all day: one asks about recording, one always records, one never does;
    /// one has no voice channel and one takes scheduled calls only.
    private static func sandbox(dataDirectory: String? = nil) async throws -> Sandbox {
        let configuration = try await LuaConfigurations.configuration("""
            menus = { { id = 1, name = "Consent", channels = { voice_call = { instant = true, recording = "ask_user" } } },
                      { id = 21, name = "Recorded", channels = { voice_call = { instant = true, recording = "always" } } },
                      { id = 22, name = "Unrecorded", channels = { voice_call = { instant = true, recording = "never" } } },
                      { id = 3, name = "Sales", channels = { email = { email = "sales@acme.test" } } },
                      { id = 4, name = "Later", channels = { voice_call = { instant = false, schedule = true } } } },
            agents = { { name = "Ava", menus = { 1, 21, 22 } } }
            """)
        return try Sandbox(configuration: configuration, dataDirectory: dataDirectory, log: { _ in })
    }

    @Test func anInstantCallWaitsConnectsHoldsIsInterruptedResumesAndEnds() async throws {
        let ana = try await CallingEndUser(InProcessClient(try await Self.sandbox()), "call-ana")
        let started = try await ana.start(#"{"menu_id": 21}"#)
        #expect(started.status == .waiting && started.recorded, "menu 21 always records")
        let connected = try await ana.call(started.id) { $0.status == .connected }
        #expect(connected.agent?.name == "Ava" && connected.connectedAt != nil && connected.estimatedWait == nil)
        #expect(try await ana.call("GET", "/calls/current").decode(as: CallResponse.self).id == started.id)

        let held = try await ana.call("PUT", "/calls/\(started.id)/hold", #"{"on_hold": true}"#).decode(as: CallResponse.self)
        #expect(held.status == .onHold)
        #expect(try await ana.call("PUT", "/calls/\(started.id)/hold", #"{"on_hold": true}"#).decode(as: CallResponse.self).status == .onHold,
                "holding a held call changes nothing")
        let interrupted = try await ana.call("POST", "/calls/\(started.id)/interruption", #"{"seconds": 5}"#)
        #expect(try interrupted.decode(as: CallResponse.self).status == .interrupted, "\(interrupted.text)")
        #expect(await ana.call("PUT", "/calls/\(started.id)/hold", #"{"on_hold": false}"#).status == 409,
                "an interrupted call is resumed, not taken off hold")
        #expect(try await ana.call("POST", "/calls/\(started.id)/resume").decode(as: CallResponse.self).status == .connected)
        #expect(try await ana.call("POST", "/calls/\(started.id)/resume").decode(as: CallResponse.self).status == .connected,
                "resuming a call that goes on answers it as it is")

        let ended = try await ana.call("POST", "/calls/\(started.id)/end").decode(as: CallResponse.self)
        #expect(ended.status == .ended && ended.endReason == .endUser && ended.endedAt != nil)
        #expect(await ana.call("POST", "/calls/\(started.id)/end").status == 409)
        let late = await ana.call("POST", "/calls/\(started.id)/resume")
        #expect(late.status == 409 && late.text.contains("has ended"), "\(late.text)")
        #expect(await ana.call("GET", "/calls/current").status == 404)

        let statuses = try await ana.events(.callReceived).compactMap { $0["status"]?.stringValue }
        #expect(statuses == ["waiting", "connecting", "connected", "on_hold", "interrupted", "connected", "ended"], "\(statuses)")
        let participants = try await ana.events(.participantUpdated)
        #expect(participants.map { $0["change"] } == ["joined"] && participants.first?["participant"]?["name"] == "Ava")
    }

    @Test func recordingFollowsTheQueueAndAskUserNeedsTheAnswer() async throws {
        let client = InProcessClient(try await Self.sandbox())
        let bo = try await CallingEndUser(client, "call-bo")
        let missing = await bo.call("POST", "/calls", #"{"menu_id": 1}"#)
        #expect(missing.status == 400 && missing.text.contains("recording_permission") && missing.text.contains("ask_user"), "\(missing.text)")
        let notAsked = await bo.call("POST", "/calls", #"{"menu_id": 1, "recording_permission": "not_asked"}"#)
        #expect(notAsked.status == 400 && notAsked.text.contains("'not_asked'"), "\(notAsked.text)")
        #expect(await bo.call("POST", "/calls", #"{"menu_id": 1, "recording_permission": "maybe"}"#).status == 400)
        let denied = try await bo.start(#"{"menu_id": 1, "recording_permission": "denied"}"#)
        #expect(!denied.recorded && denied.recordingPermission == .denied)

        let cy = try await CallingEndUser(client, "call-cy")
        let never = try await cy.start(#"{"menu_id": 22, "recording_permission": "granted"}"#)
        #expect(!never.recorded, "a queue that never records ignores the answer")
    }

    @Test func callsThatCannotStartSayWhy() async throws {
        let client = InProcessClient(try await Self.sandbox())
        let di = try await CallingEndUser(client, "call-di")
        let noVoice = await di.call("POST", "/calls", #"{"menu_id": 3}"#)
        #expect(noVoice.status == 400 && noVoice.text.contains("no voice channel"), "\(noVoice.text)")
        let scheduledOnly = await di.call("POST", "/calls", #"{"menu_id": 4}"#)
        #expect(scheduledOnly.status == 400 && scheduledOnly.text.contains("instant"), "\(scheduledOnly.text)")
        #expect(await di.call("POST", "/calls", #"{"menu_id": 999}"#).status == 404)
        #expect(await di.call("POST", "/calls", #"{"menu": 21}"#).status == 400)
        let first = try await di.start(#"{"menu_id": 21}"#)
        let second = await di.call("POST", "/calls", #"{"menu_id": 22}"#)
        #expect(second.status == 409 && second.text.contains("already in progress (call \(first.id))"), "\(second.text)")
        #expect(await di.call("POST", "/calls/\(first.id)/interruption", #"{"seconds": -1}"#).status == 400)

        let ed = try await CallingEndUser(client, "call-ed")
        #expect(await ed.call("GET", "/calls/\(first.id)").status == 404, "another user's call is not found")
        #expect(await ed.call("POST", "/calls/\(first.id)/end").status == 404)
        #expect(await ed.call("GET", "/calls/current").status == 404)
        #expect(await client.call("GET", "/calls/current").status == 401)
    }

    /// One agent with room for one session: calls wait in order, hear their estimates
    /// change as the line moves, count in the queue's capacity with chats, and the agent
    /// takes the oldest session waiting, chat or call, when one ends.
    @Test func callsWaitInLineForAnAgentWithRoomAndHearTheirEstimates() async throws {
        let configuration = try await LuaConfigurations.configuration("""
            handle_time_seconds = 60,
            menus = { { id = 1, name = "Help", capacity = { max_waiting = 3 },
                        channels = { chat = {}, voice_call = { instant = true } } } },
            agents = { { name = "Solo", menus = { 1 }, max_chats = 1 } }
            """)
        let client = InProcessClient(try Sandbox(configuration: configuration))
        let first = try await CallingEndUser(client, "line-1")
        let taken = try await first.start(#"{"menu_id": 1}"#)
        _ = try await first.call(taken.id) { $0.status == .connected }

        let chatter = try await CallingEndUser(client, "line-chat")
        let chat = try await chatter.call("POST", "/chats", #"{"menu_id": 1}"#).decode(as: ChatResponse.self)
        let second = try await CallingEndUser(client, "line-2")
        let secondCall = try await second.start(#"{"menu_id": 1}"#)
        #expect(secondCall.status == .waiting && secondCall.estimatedWait == 10, "no call ahead of it: the published 10 s")
        let third = try await CallingEndUser(client, "line-3")
        let thirdCall = try await third.start(#"{"menu_id": 1}"#)
        #expect(thirdCall.estimatedWait == 70, "one call ahead, one agent, 60 s each, and 10 s")
        let full = await (try await CallingEndUser(client, "line-4")).call("POST", "/calls", #"{"menu_id": 1}"#)
        #expect(full.status == 409 && full.text.contains("over_capacity"), "a chat and two calls wait: \(full.text)")

        _ = await first.call("POST", "/calls/\(taken.id)/end")
        #expect(await eventually {
            (try? await chatter.call("GET", "/chats/\(chat.id)").decode(as: ChatResponse.self).agent?.name) == "Solo"
        }, "the oldest session waiting, the chat, is taken first")
        #expect(try await second.call("GET", "/calls/\(secondCall.id)").decode(as: CallResponse.self).status == .waiting)

        _ = await chatter.call("POST", "/chats/\(chat.id)/end")
        _ = try await second.call(secondCall.id) { $0.status == .connected && $0.agent?.name == "Solo" }
        let estimates = try await third.call(thirdCall.id) { $0.estimatedWait == 10 }
        #expect(estimates.status == .waiting)
        // The estimate follows the handle time the first call took (the real time here):
        // what it was told last is the line's front, 10 s.
        let told = try await third.events(.waitTimeUpdated).map { $0["estimated_wait"] }
        #expect(told.last == 10, "told when the line moved: \(told)")
    }

    @Test func anAgentScriptHoldsResumesAndEndsTheCall() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("call-script-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
            return function(agent, session)
              if session.channel ~= "voice_call" then return end
              assert(session.status == "connected" and session.custom_data.unsigned.plan.value == "gold")
              assert(agent.send == nil, "a call has no messages")
              assert(agent.escalate == nil, "a human agent has no virtual agent to leave")
              agent.hold()
              assert(agent.wait{ seconds = 0.01 })
              agent.resume()
              agent.end_session()
              assert(agent.end_session() == false)
              print("done")
            end
            """.write(to: folder.appendingPathComponent("caller.lua"), atomically: true, encoding: .utf8)
        try await LuaConfigurations.write(folder.appendingPathComponent("sandbox.lua"), """
            menus = { { id = 1, name = "Help", channels = { voice_call = { instant = true } } } },
            agents = { { name = "Cal", menus = { 1 }, script = "caller.lua" } }
            """)
        let logged = Mutex<[String]>([])
        let sandbox = try Sandbox(configuration: try await SandboxConfiguration.load(file: folder.appendingPathComponent("sandbox.lua").path),
                                  log: { line in logged.withLock { $0.append(line) } })
        let fay = try await CallingEndUser(InProcessClient(sandbox), "call-fay")
        let call = try await fay.start(#"{"menu_id": 1, "custom_data": {"unsigned": {"plan": {"label": "Plan", "value": "gold"}}}}"#)
        let ended = try await fay.call(call.id) { $0.status == .ended }
        #expect(ended.endReason == .agent, "\(logged.withLock { $0 })")
        let statuses = try await fay.callStatuses(endingWith: "ended")
        #expect(statuses == ["waiting", "connecting", "connected", "on_hold", "connected", "ended"], "\(statuses)")
        #expect(await eventually(timeout: 120) { logged.withLock { $0.count == 1 && $0[0].hasSuffix("] done") } },
                "the script ran to its end, and nothing failed: \(logged.withLock { $0 })")
    }

    @Test func anAgentScriptTransfersTheCallToAnotherQueue() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("call-transfer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
            return function(agent, session)
              local ok, err = pcall(agent.transfer, { menu_id = 99 })
              assert(not ok and err.code == "not_found", tostring(err))
              agent.transfer{ menu_id = 2 }
              assert(agent.wait{ seconds = 0.01 } == true, "the call goes on, with another agent")
              print("transferred")
            end
            """.write(to: folder.appendingPathComponent("front.lua"), atomically: true, encoding: .utf8)
        try await LuaConfigurations.write(folder.appendingPathComponent("sandbox.lua"), """
            menus = { { id = 1, name = "Front", channels = { voice_call = { instant = true } } },
                      { id = 2, name = "Back", channels = { voice_call = { instant = true } } } },
            agents = { { name = "Tom", menus = { 1 }, script = "front.lua" }, { name = "Dee", menus = { 2 } } }
            """)
        let lines = Mutex<[String]>([])
        let sandbox = try Sandbox(configuration: try await SandboxConfiguration.load(file: folder.appendingPathComponent("sandbox.lua").path),
                                  log: { line in lines.withLock { $0.append(line) } })
        let hal = try await CallingEndUser(InProcessClient(sandbox), "call-hal")
        let call = try await hal.start(#"{"menu_id": 1}"#)
        let moved = try await hal.call(call.id) { $0.agent?.name == "Dee" && $0.status == .connected }
        #expect(moved.menuId == 2, "\(lines.withLock { $0 })")
        let statuses = try await hal.callStatuses(endingWith: "connected")
        #expect(statuses == ["waiting", "connecting", "connected", "waiting", "connecting", "connected"], "\(statuses)")
        let participants = try await hal.events(.participantUpdated).map { "\($0["change"]?.stringValue ?? "") \($0["participant"]?["name"]?.stringValue ?? "")" }
        #expect(participants == ["joined Tom", "left Tom", "joined Dee"], "\(participants)")
        #expect(await eventually { lines.withLock { $0 }.contains { $0.hasSuffix("] transferred") } }, "\(lines.withLock { $0 })")
        #expect(!lines.withLock { $0 }.contains { $0.contains("failed") }, "\(lines.withLock { $0 })")
    }

    @Test func callsLeftOpenByARestartFail() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("call-restart-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try await CallingEndUser(InProcessClient(try await Self.sandbox(dataDirectory: folder)), "call-gus")
        let call = try await first.start(#"{"menu_id": 21}"#)
        let restarted = try await Self.sandbox(dataDirectory: folder)
        let failed = try await restarted.failCallsLeftOpen()
        #expect(failed.map(\.id) == [call.id] && failed.first?.status == .failed && failed.first?.endReason == .restart)
        let again = try await CallingEndUser(InProcessClient(restarted), "call-gus")
        #expect(await again.call("GET", "/calls/current").status == 404)
        #expect(try await again.start(#"{"menu_id": 21}"#).id != call.id, "a new call can start")
    }
}
