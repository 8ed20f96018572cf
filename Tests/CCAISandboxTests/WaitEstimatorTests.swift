@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// The published estimated wait time ("Estimated wait time prediction calculation"),
/// worked by hand.
@Suite struct WaitEstimatorTests {
    @Test func aCaseWorkedByHandFromThePublishedFormula() async throws {
        let configuration = try await LuaConfigurations.configuration("""
            handle_time_seconds = 300,
            menus = { { id = 1, name = "Help", channels = { chat = {}, voice_call = { instant = true } } },
                      { id = 2, name = "Sales", channels = { chat = {} } }, { id = 3, name = "VIP", channels = { chat = {} } },
                      { id = 9, name = "Empty", channels = { chat = {} } } },
            agents = { { name = "Ava", menus = { 1 } }, { name = "Ben", menus = { 1, 2 } }, { name = "Cy", menus = { 1, 2, 3 } } }
            """)
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        let handleTimes = HandleTimes()
        handleTimes.record(.chat, seconds: 1_000, endedAt: clock.now().addingTimeInterval(-3_700))   // over an hour ago: not counted
        handleTimes.record(.chat, seconds: 120, endedAt: clock.now().addingTimeInterval(-600))
        handleTimes.record(.chat, seconds: 240, endedAt: clock.now().addingTimeInterval(-60))
        let estimator = WaitEstimator(configuration: configuration, handleTimes: handleTimes, businessClock: clock, clock: clock)

        // Chats on Help, 4 ahead: the average duration of the last hour is (120 + 240) / 2 = 180 s;
        // 3 active agents in the channel, 3 in common, 3 in the queue; none available while chats wait.
        // (180 / 3) × (3 / 3) × (4 - 0) + 10 = 60 × 1 × 4 + 10 = 250.
        #expect(estimator.seconds(.chat, menuID: 1, ahead: 4) == 250)
        // Calls have no history: handle_time_seconds. (300 / 3) × 1 × 4 + 10 = 410.
        #expect(estimator.seconds(.voiceCall, menuID: 1, ahead: 4) == 410)
        // Nobody ahead: the fixed 10 s.
        #expect(estimator.seconds(.chat, menuID: 1, ahead: 0) == 10)
        // No agent on the queue: as if one. (180 / 1) × 1 × 4 + 10 = 730.
        #expect(estimator.seconds(.chat, menuID: 9, ahead: 4) == 730)
        // An hour later the history is gone: handle_time_seconds again. (300 / 3) × 1 × 1 + 10 = 110.
        clock.advance(by: 3_600)
        #expect(estimator.seconds(.chat, menuID: 1, ahead: 1) == 110)
    }

    /// Ben serves Help and Sales, one session at a time. While he has Ana's chat, Bo's
    /// chat waits on Sales and Ben is not available there (a shared agent with room would
    /// have taken it: the desk hands a waiting session on at once, which is why available
    /// agents, whatever their share, are none while anyone waits). A new Sales chat would
    /// have Bo's ahead: (60 / 1) × 1 × (1 − 0) + 10 = 70 s (no session ended yet, so
    /// `handle_time_seconds`); Help has nobody waiting: 10 s. Once Ana's chat ends, Ben
    /// takes Bo's, and nobody waits anywhere.
    @Test func aSharedAgentIsNotAvailableWhileASessionWaits() async throws {
        let configuration = try await LuaConfigurations.configuration("""
            handle_time_seconds = 60,
            menus = { { id = 1, name = "Help", channels = { chat = {} } }, { id = 2, name = "Sales", channels = { chat = {} } } },
            agents = { { name = "Ben", menus = { 1, 2 }, max_chats = 1 } }
            """)
        let sandbox = try Sandbox(configuration: configuration)
        let client = InProcessClient(sandbox)
        let (ana, bo) = (try await CallingEndUser(client, "shared-ana"), try await CallingEndUser(client, "shared-bo"))
        let first = try await ana.call("POST", "/chats", #"{"menu_id": 1}"#).decode(as: ChatResponse.self)
        #expect(try await eventually(timeout: 120) {
            try await ana.call("GET", "/chats/\(first.id)").decode(as: ChatResponse.self).status == .active
        }, "Ben has taken Ana's chat: it no longer waits")
        let waiting = try await bo.call("POST", "/chats", #"{"menu_id": 2}"#).decode(as: ChatResponse.self)
        #expect(await sandbox.agentDesk.humanAgent(of: first.id) == "Ben" && waiting.status == .queued)
        #expect(await sandbox.agentDesk.staffing(ofMenu: 2) == (loggedIn: 1, available: 0))
        #expect(try await bo.call("GET", "/queue_menus/2/wait_times").decode(as: WaitTimes.self) == WaitTimes(chat: 70, voiceCall: nil))
        #expect(try await bo.call("GET", "/queue_menus/1/wait_times").decode(as: WaitTimes.self) == WaitTimes(chat: 10, voiceCall: nil))

        #expect(await ana.call("POST", "/chats/\(first.id)/end").status == 200)
        #expect(try await eventually(timeout: 120) {
            try await bo.call("GET", "/chats/\(waiting.id)").decode(as: ChatResponse.self).agent?.name == "Ben"
        }, "Ben has taken Bo's chat: it no longer waits")
        #expect(try await bo.call("GET", "/queue_menus/2/wait_times").decode(as: WaitTimes.self) == WaitTimes(chat: 10, voiceCall: nil))
    }

    @Test func theHandleTimeLogIsBounded() {
        let log = HandleTimes()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for index in 0..<(HandleTimes.maximumKept + 10) { log.record(.voiceCall, seconds: Double(index % 2 == 0 ? 100 : 200), endedAt: now) }
        log.record(.voiceCall, seconds: .nan, endedAt: now)
        log.record(.voiceCall, seconds: -5, endedAt: now)
        #expect(log.average(.voiceCall, now: now) == 150, "bounded, and what is not a duration is not kept")
        #expect(log.average(.chat, now: now) == nil)
    }
}
