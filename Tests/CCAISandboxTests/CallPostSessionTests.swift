@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Synchronization
import Testing

/// The post-session phase of an ended call: the same hierarchy and steps as a chat's,
/// under `/calls/{id}`, with `communication_type = "calls"` in the ratings.
@Suite struct CallPostSessionTests {
    /// Queue 1 has the company's CSAT, queue 2 a survey, queue 3 a post-session virtual
    /// agent (`script` when given); Ava answers them all. Queue 4 takes voicemails.
    private static func sandbox(script: String? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) async throws
        -> (Sandbox, URL)
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("call-post-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let script { try script.write(to: folder.appendingPathComponent("after.lua"), atomically: true, encoding: .utf8) }
        let closed = "{ mon = false, tue = false, wed = false, thu = false, fri = false, sat = false, sun = false }"
        try await LuaConfigurations.write(folder.appendingPathComponent("sandbox.lua"), """
            company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret",
                        post_session = { csat = true } },
            admin_token = "operator-token",
            menus = { { id = 1, name = "Rated", channels = { voice_call = { instant = true } } },
                      { id = 2, name = "Surveyed", post_session = { survey = "calls" }, channels = { voice_call = { instant = true } } },
                      { id = 3, name = "Followed up", post_session = { virtual_agent = "after", opt_in = true },
                        channels = { voice_call = { instant = true } } },
                      { id = 4, name = "Closed", hours = \(closed), channels = { voice_call = { instant = true, phone_number = "+15550100" } } } },
            agents = { { name = "Ava", menus = { 1, 2, 3 } } },
            virtual_agents = { after = { name = "Afterbot"\(script == nil ? "" : #", script = "after.lua""#) } },
            surveys = { calls = { sign_off_display_text = "Thanks!", questions = {
              { id = 1, type = "csat", text = "How was the call?", required = true },
              { id = 2, type = "free_text", text = "Anything else?" } } } }
            """)
        let sandbox = try Sandbox(configuration: try await SandboxConfiguration.load(file: folder.appendingPathComponent("sandbox.lua").path),
                                  log: log)
        return (sandbox, folder)
    }

    /// A call on `menu` that an agent took, then hung up by the caller.
    private static func endedCall(_ caller: CallingEndUser, menu: Int) async throws -> CallResponse {
        let call = try await caller.start(#"{"menu_id": \#(menu)}"#)
        _ = try await caller.call(call.id) { $0.status == .connected }
        let early = await caller.call("POST", "/calls/\(call.id)/post_session/start")
        #expect(early.status == 409 && early.text.contains("still in progress"), "\(early.text)")
        return try await caller.call("POST", "/calls/\(call.id)/end").decode(as: CallResponse.self)
    }

    @Test func aCallIsRatedOnceItsPhaseIsReadyAndTheOperatorSeesIt() async throws {
        let (sandbox, folder) = try await Self.sandbox()
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = InProcessClient(sandbox)
        let ana = try await CallingEndUser(client, "call-post-ana")
        let ended = try await Self.endedCall(ana, menu: 1)
        #expect(ended.postSessionRequired && ended.postSessionOptInRequired == false && ended.postSessionTransferStatus == nil)
        let settings = try await ana.call("GET", "/calls/\(ended.id)/post_session").decode(as: PostSessionSettings.self)
        #expect(settings == PostSessionSettings(csat: true), "the company's CSAT")
        #expect(await ana.call("POST", "/calls/\(ended.id)/rating", #"{"rating": 5}"#).status == 409, "not before the phase is ready")
        #expect(await ana.call("POST", "/calls/\(ended.id)/post_session/ready").status == 409, "start comes first")
        let started = try await ana.call("POST", "/calls/\(ended.id)/post_session/start").decode(as: CallResponse.self)
        #expect(started.postSessionTransferStatus == .inProgress)
        #expect(try await ana.call("POST", "/calls/\(ended.id)/post_session/ready").decode(as: CallResponse.self).postSessionTransferStatus == .ready)
        #expect(await ana.call("POST", "/calls/\(ended.id)/rating", #"{"rating": 6}"#).status == 400)
        #expect(await ana.call("POST", "/calls/\(ended.id)/rating", #"{"rating": 4, "feedback": "clear line"}"#).status == 204)
        let twice = await ana.call("POST", "/calls/\(ended.id)/rating", #"{"rating": 5}"#)
        #expect(twice.status == 409 && twice.text.contains("already has a rating"), "\(twice.text)")
        let statuses = try await ana.events(.callReceived).compactMap { $0["post_session_transfer_status"]?.stringValue }
        #expect(statuses == ["in_progress", "ready", "completed"], "each step is a call_received: \(statuses)")

        let report = try await client.call("GET", "/admin/ratings", query: ["communication_type": "calls"], token: "operator-token")
            .decode(as: RatingsReport.self)
        #expect(report.ratings.map(\.communicationId) == [ended.id] && report.ratings.first?.communicationType == .calls)
        #expect(report.ratings.first?.rating == 4 && report.ratings.first?.feedback == "clear line")
        let chats = try await client.call("GET", "/admin/ratings", token: "operator-token").decode(as: RatingsReport.self)
        #expect(chats.ratings.isEmpty, "the report lists chats unless asked for calls")
        #expect(try await client.sandbox.postSessions.latestRatings(.calls, limit: 20) == report.ratings, "the console's latest")
        #expect(try await client.sandbox.postSessions.latestRatings(.chats, limit: 20).isEmpty)
        #expect(await client.call("GET", "/admin/ratings", query: ["communication_type": "emails"], token: "operator-token").status == 400)
        let bo = try await CallingEndUser(client, "call-post-bo")
        #expect(await bo.call("GET", "/calls/\(ended.id)/post_session").status == 404, "another end user's call is never found")
    }

    @Test func aCallsSurveyIsAnsweredOnce() async throws {
        let (sandbox, folder) = try await Self.sandbox()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cy = try await CallingEndUser(InProcessClient(sandbox), "call-post-cy")
        let ended = try await Self.endedCall(cy, menu: 2)
        let survey = try await cy.call("GET", "/calls/\(ended.id)/survey").decode(as: Survey.self)
        #expect(survey.questions.map(\.text) == ["How was the call?", "Anything else?"] && survey.lang == "en")
        _ = await cy.call("POST", "/calls/\(ended.id)/post_session/start")
        _ = await cy.call("POST", "/calls/\(ended.id)/post_session/ready")
        let missing = await cy.call("POST", "/calls/\(ended.id)/survey", #"{"answers": {"2": "no"}}"#)
        #expect(missing.status == 400 && missing.text.contains("1"), "the required question is named: \(missing.text)")
        #expect(await cy.call("POST", "/calls/\(ended.id)/survey", #"{"answers": {"1": "5", "2": "no"}}"#).status == 204)
        #expect(await cy.call("POST", "/calls/\(ended.id)/survey", #"{"answers": {"1": "4"}}"#).status == 409)
        let done = try await cy.call("GET", "/calls/\(ended.id)").decode(as: CallResponse.self)
        #expect(done.postSessionTransferStatus == .completed)
    }

    @Test func onlyACallSomeoneTalkedOnHasAPostSessionPhase() async throws {
        let (sandbox, folder) = try await Self.sandbox()
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = InProcessClient(sandbox)
        let di = try await CallingEndUser(client, "call-post-di")
        let voicemail = try await di.call("POST", "/calls/voicemail", #"{"menu_id": 4}"#).decode(as: CallResponse.self)
        let left = try await di.call("POST", "/calls/\(voicemail.id)/end").decode(as: CallResponse.self)
        #expect(!left.postSessionRequired && left.postSessionOptInRequired == nil, "a voicemail has no one to rate")
        let refused = await di.call("POST", "/calls/\(voicemail.id)/post_session/start")
        #expect(refused.status == 409 && refused.text.contains("no post-session flow"), "\(refused.text)")
        let rated = await di.call("POST", "/calls/\(voicemail.id)/rating", #"{"rating": 5}"#)
        #expect(rated.status == 409 && rated.text.contains("takes no feedback"), "\(rated.text)")
    }

    @Test func aPostSessionVirtualAgentsScriptRunsOnTheEndedCallAndCompletesThePhase() async throws {
        let lines = Mutex<[String]>([])
        let (sandbox, folder) = try await Self.sandbox(script: """
            return function(agent, session)
              assert(session.post_session == true and session.channel == "voice_call" and session.status == "ended")
              print("following up call " .. session.id)
            end
            """, log: { line in lines.withLock { $0.append(line) } })
        defer { try? FileManager.default.removeItem(at: folder) }
        let eve = try await CallingEndUser(InProcessClient(sandbox), "call-post-eve")
        let ended = try await Self.endedCall(eve, menu: 3)
        #expect(ended.postSessionRequired && ended.postSessionOptInRequired == true)
        _ = await eve.call("POST", "/calls/\(ended.id)/post_session/start")
        _ = await eve.call("POST", "/calls/\(ended.id)/post_session/ready")
        let completed = try await eve.call(ended.id) { $0.postSessionTransferStatus == .completed }
        #expect(completed.status == .ended)
        #expect(lines.withLock { $0 }.contains { $0.hasSuffix("] following up call \(ended.id)") }, "\(lines.withLock { $0 })")
    }

    @Test func aPostSessionVirtualAgentWithoutAScriptCompletesThePhaseAtOnce() async throws {
        let (sandbox, folder) = try await Self.sandbox()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fay = try await CallingEndUser(InProcessClient(sandbox), "call-post-fay")
        let ended = try await Self.endedCall(fay, menu: 3)
        _ = await fay.call("POST", "/calls/\(ended.id)/post_session/start")
        _ = await fay.call("POST", "/calls/\(ended.id)/post_session/ready")
        _ = try await fay.call(ended.id) { $0.postSessionTransferStatus == .completed }
    }
}
