@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// Issue 35, item 3: every wait estimate follows the published estimated-wait-time
/// calculation (``WaitEstimator``), from the agents at work, their shares of their queues,
/// the sessions ahead and the handle times of the last hour.
@Suite struct WaitEstimatorTests {
    /// The formula worked by hand:
    ///
    ///     average duration in channel   240 s
    ///     active agents in channel        4   → 240 / 4 = 60 s
    ///     agents in common / in queue   4 / 4 → × 1
    ///     queued ahead − available      6 − (1 + 0.5) = 4.5 → 60 × 4.5 = 270 s
    ///     fixed addition                + 10 s                       → 280 s
    @Test func theFormulaWorkedByHand() {
        let estimate = WaitEstimator(averageHandleSeconds: 240, activeAgentsInChannel: 4, agentsInCommon: 4, activeAgentsInQueue: 4,
                                     queuedAhead: 6, availableAgents: 1 + 0.5)
        #expect(estimate.seconds == 280)
        var call = estimate
        call.additionalSeconds = 45
        #expect(call.seconds == 325, "a call's extra waits (callbacks, scheduled calls) add up: 280 + 45")
        var partial = estimate
        partial.agentsInCommon = 2
        #expect(partial.seconds == 145, "half the queue's agents shared with the channel: 60 × 2/4 × 4.5 + 10")
    }

    /// No agents: a divisor of none counts as one agent, so the wait grows with the line.
    /// No one waiting, or more agents free than sessions waiting: the fixed 10 s.
    @Test func theEdgesOfTheFormula() {
        let nobody = WaitEstimator(averageHandleSeconds: 300, activeAgentsInChannel: 0, agentsInCommon: 0, activeAgentsInQueue: 0,
                                   queuedAhead: 2, availableAgents: 0)
        #expect(nobody.seconds == 610, "300 / 1 × 1 × 2 + 10")
        let idle = WaitEstimator(averageHandleSeconds: 300, activeAgentsInChannel: 3, agentsInCommon: 3, activeAgentsInQueue: 3,
                                 queuedAhead: 1, availableAgents: 2.5)
        #expect(idle.seconds == 10, "1 − 2.5 is no one ahead")
        let huge = WaitEstimator(averageHandleSeconds: .greatestFiniteMagnitude, activeAgentsInChannel: 1, agentsInCommon: 1,
                                 activeAgentsInQueue: 1, queuedAhead: 9, availableAgents: 0)
        #expect(huge.seconds == Int.max, "an estimate past Int is the largest, not a trap")
    }

    /// The page's shares: 1, 0.5, 0.3 for one, two, three queues.
    @Test func sharedAgentsCountByTheirShare() {
        #expect([1, 2, 3, 4, 10, 11, 0].map(WaitEstimator.share(ofQueues:)) == [1, 0.5, 0.3, 0.2, 0.1, 0, 0])
    }

    /// The same case from a configuration: Ava (queue 1 only) and Ben (queues 1 and 2) have
    /// room, Cy and Dee are busy; six chats wait; the chats of queue 1 handled in the last
    /// hour took 180 s and 300 s (one older, and a call, do not count).
    @Test func aQueueEstimatesFromItsAgentsAndItsLastHour() async throws {
        let configuration = try await LuaConfigurations.configuration("""
            handle_time_seconds = 999,
            menus = { { id = 1, name = "Help", channels = { chat = {}, voice_call = { instant = true } } },
                      { id = 2, name = "Sales", channels = { chat = {} } }, { id = 3, name = "Care", channels = { chat = {} } } },
            agents = { { name = "Ava", menus = { 1 } }, { name = "Ben", menus = { 1, 2 } },
                       { name = "Cy", menus = { 1, 2, 3 }, max_chats = 1 }, { name = "Dee", menus = { 1 }, max_chats = 1 } }
            """)
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        let activity = AgentActivity(clock: clock)
        for (item, seconds) in [(WorkItem.chat(1), 900.0), (.chat(2), 180), (.chat(3), 300), (.call(4), 1_000)] {
            activity.take(item, agent: "Ava", menuID: 1)
            clock.advance(by: seconds)
            activity.release(item)
            if item == .chat(1) { clock.advance(by: 3_600) }   // an hour later: out of the window
        }
        activity.take(.chat(5), agent: "Cy", menuID: 2)
        activity.take(.chat(6), agent: "Dee", menuID: 1)
        let engine = QueueMenuEngine(configuration: configuration, now: QueueMenuTests.mondayMorning,
                                     waiting: WaitingSessions(chats: [1: 6]), activity: activity.snapshot())
        let menu = try #require(configuration.menus?.first)
        #expect(engine.wait(menu, .chat) == ChannelWait(seconds: 280, loggedInAgents: 4, availableAgents: 2))
        #expect(engine.wait(menu, .voiceCall)?.seconds == 10, "no call waits")
        #expect(engine.estimator(menuID: 1, .voiceCall, ahead: 3).seconds == 1_000 / 4 * 3 / 2 + 10, "(3 − 1.5) × 1000 / 4 + 10")
        #expect(engine.wait(try #require(configuration.menus?[1]), .voiceCall) == nil, "Sales has no voice channel")
        #expect(engine.waitTimes(menu) == WaitTimes(chat: 280, voiceCall: 10), "the SDK's wait_times are the same figures")
    }

    /// Without history in the last hour the configured handle time stands in; past the
    /// hour, the records are dropped.
    @Test func noHistoryFallsBackToTheConfiguredHandleTime() async throws {
        let configuration = try await LuaConfigurations.configuration("""
            handle_time_seconds = 120, menus = { { id = 1, name = "Help", channels = { chat = {} } } },
            agents = { { name = "Ava", menus = { 1 }, max_chats = 1 } }
            """)
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        let activity = AgentActivity(clock: clock)
        activity.take(.chat(1), agent: "Ava", menuID: 1)
        clock.advance(by: 30)
        activity.release(.chat(1))
        activity.take(.chat(2), agent: "Ava", menuID: 1)
        let menu = try #require(configuration.menus?.first)
        func wait() -> Int? {
            QueueMenuEngine(configuration: configuration, now: QueueMenuTests.mondayMorning, waiting: WaitingSessions(chats: [1: 2]),
                            activity: activity.snapshot()).wait(menu, .chat)?.seconds
        }
        #expect(wait() == 70, "the last hour's 30 s: 30 × 2 + 10")
        clock.advance(by: 3_600)
        #expect(wait() == 250, "an hour on, no history: the configured 120 s × 2 + 10")
        #expect(activity.snapshot().averageHandleSeconds.isEmpty, "the old record is gone")
    }

    /// A queue channel keeps at most ``AgentActivity/maximumRecords`` handle times.
    @Test func handleTimesAreBounded() {
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        let activity = AgentActivity(clock: clock)
        for id in 0..<(AgentActivity.maximumRecords + 5) {
            activity.take(.chat(id), agent: "Ava", menuID: 1)
            clock.advance(by: id < 5 ? 0 : 0.1)   // dates near 2026 hold a tenth to within 1e-6
            activity.release(.chat(id))
        }
        let average = activity.snapshot().averageHandleSeconds[AgentActivity.QueueChannel(menuID: 1, channel: .chat)]
        #expect(average.map { abs($0 - 0.1) < 1e-4 } == true, "the five zero-second records were the oldest, dropped")
    }
}
