@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// Issue 34, item 9: a staffing study without editing files. A configuration reads the
/// run's `--env` values as `env`, and agents work in shifts, on the sandbox's clock (a
/// manual one here: hours pass in steps, never in sleeps).
@Suite struct StaffingTests {
    /// Writes a configuration file (the UTC company of ``LuaConfigurations`` with `fields`).
    private func file(_ fields: String) async throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("staffing-\(UUID().uuidString).lua")
        try await LuaConfigurations.write(path, fields)
        return path.path
    }

    /// One file serves several plans: `env` holds the `--env` values, a missing one is nil.
    @Test func aConfigurationReadsTheRunsEnvironment() async throws {
        let path = try await file("""
            menus = { { id = 1, name = env.QUEUE or "Help", channels = { chat = {} } } },
            agents = (function()
              local agents = {}
              for number = 1, tonumber(env.AGENTS) or 5 do agents[number] = { name = "Agent " .. number, menus = { 1 } } end
              return agents
            end)()
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let eight = try await SandboxConfiguration.load(file: path, environment: ["AGENTS": "8", "QUEUE": "Claims"])
        #expect(eight.agents?.count == 8)
        #expect(eight.menus?.first?.name.text("en", fallback: "") == "Claims")
        let defaults = try await SandboxConfiguration.load(file: path)
        #expect(defaults.agents?.count == 5 && defaults.menus?.first?.name.text("en", fallback: "") == "Help")
    }

    /// `env` is the run's, not the file's: a write is an error that says it is read-only.
    @Test func aConfigurationCannotWriteTheEnvironment() async throws {
        let path = try await file("""
            menus = (function() env.AGENTS = "9"; return {} end)()
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = await #expect(throws: ConfigurationError.self) {
            try await SandboxConfiguration.load(file: path, environment: ["AGENTS": "8"])
        }
        #expect(error?.message.contains("attempt to modify read-only env (key 'AGENTS')") == true, "\(String(describing: error))")
    }

    /// A served sandbox on `clock`: its prune chore and each agent's shift watch are its
    /// sleepers (`stepWhenAsleep: 2` with one agent).
    private func serve(_ fields: String, clock: ManualClock) async throws -> (Sandbox, ServedSandbox) {
        let configuration = try await LuaConfigurations.configuration(fields)
        let sandbox = try Sandbox(configuration: configuration, clock: clock)
        return (sandbox, ServedSandbox(http: try sandbox.serve(), client: InProcessClient(sandbox)))
    }

    /// A chat on queue 1 by a new end user, signed in at the clock's time.
    private func startChat(_ server: ServedSandbox, _ identifier: String, clock: ManualClock) async throws -> (id: Int, token: String) {
        let token = try await SandboxHTTP.token(server, identifier, at: clock.now())
        let chat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", token, #"{"menu_id": 1}"#),
                                          as: ChatResponse.self)
        return (chat.id, token)
    }

    private func status(_ server: ServedSandbox, _ chat: (id: Int, token: String)) async throws -> ChatStatus {
        try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)", chat.token), as: ChatResponse.self).status
    }

    /// Outside her shifts Eve takes nothing; at a shift's start she takes what waits; at
    /// its end she keeps her chat until it ends (no session is cut), then logs out: the
    /// chat waiting stays queued until her next shift.
    @Test(.timeLimit(.minutes(1))) func anAgentWorksInsideItsShiftsAndLogsOutAfterItsLastSession() async throws {
        let clock = ManualClock(QueueMenuTests.mondayMorning)   // Monday 18:00 UTC
        let (sandbox, server) = try await serve("""
            menus = { { id = 1, name = "Help", channels = { chat = {} } } },
            agents = { { name = "Eve", menus = { 1 }, max_chats = 1,
                         shifts = { { from = "18:30", to = "19:00" }, { from = "19:30", to = "20:00" } } } }
            """, clock: clock)
        let desk = sandbox.agentDesk
        let first = try await startChat(server, "shift-ana", clock: clock)
        #expect(await desk.humanAgent(of: first.id) == nil, "18:00 is before Eve's shift")
        await clock.advance(by: 30 * 60, stepWhenAsleep: 2)
        #expect(await eventually { await desk.humanAgent(of: first.id) == "Eve" }, "her shift starts at 18:30: she takes the chat waiting")
        let second = try await startChat(server, "shift-bob", clock: clock)
        #expect(await desk.humanAgent(of: second.id) == nil, "Eve has no room")
        await clock.advance(by: 40 * 60, stepWhenAsleep: 2)   // 19:10, past the shift's end
        let kept = try await status(server, first)
        #expect(await desk.humanAgent(of: first.id) == "Eve" && kept == .active, "the shift's end does not cut her chat")
        _ = try await SandboxHTTP.call(server, "POST", "/chats/\(first.id)/end", first.token)
        _ = try await eventually { await desk.humanAgent(of: first.id) == nil }
        await clock.advance(by: 10 * 60, stepWhenAsleep: 2)   // 19:20
        let waiting = try await status(server, second)
        #expect(await desk.humanAgent(of: second.id) == nil && waiting == .queued,
                "once her last chat ended she logged out: the waiting chat stays queued")
        #expect(await desk.busyAgents() == 0)
        await clock.advance(by: 10 * 60, stepWhenAsleep: 2)   // 19:30
        #expect(await eventually { await desk.humanAgent(of: second.id) == "Eve" }, "her next shift takes it")
        await server.stop()
    }

    /// Calls wait for a shift as chats do: the caller of 18:00 is connected at 18:30.
    @Test(.timeLimit(.minutes(1))) func aCallWaitsForTheShiftToStart() async throws {
        let clock = ManualClock(QueueMenuTests.mondayMorning)   // Monday 18:00 UTC
        let configuration = try await LuaConfigurations.configuration("""
            menus = { { id = 1, name = "Help", channels = { voice_call = { instant = true } } } },
            agents = { { name = "Eve", menus = { 1 }, shifts = { { from = "18:30", to = "19:00" } } } }
            """)
        let client = InProcessClient(try Sandbox(configuration: configuration, clock: clock))
        let caller = try await CallingEndUser(client, "shift-caller")
        let call = try await caller.start(#"{"menu_id": 1}"#)
        #expect(call.status == .waiting && call.agent == nil, "18:00 is before Eve's shift")
        await clock.advance(by: 30 * 60, stepWhenAsleep: 2)
        _ = try await caller.call(call.id) { $0.status == .connected && $0.agent?.name == "Eve" }
    }

    /// A shift from 22:00 to 00:30 runs past midnight: Eve works at 00:15, not at 00:30.
    @Test(.timeLimit(.minutes(1))) func anOvernightShiftRunsPastMidnight() async throws {
        let clock = ManualClock(QueueMenuTests.mondayMorning.addingTimeInterval(3.5 * 3_600))   // Monday 21:30 UTC
        let (sandbox, server) = try await serve("""
            menus = { { id = 1, name = "Help", channels = { chat = {} } } },
            agents = { { name = "Eve", menus = { 1 }, shifts = { { from = "22:00", to = "00:30" } } } }
            """, clock: clock)
        let desk = sandbox.agentDesk
        let evening = try await startChat(server, "night-ana", clock: clock)
        #expect(await desk.humanAgent(of: evening.id) == nil)
        await clock.advance(by: 30 * 60, stepWhenAsleep: 2)   // 22:00
        #expect(await eventually { await desk.humanAgent(of: evening.id) == "Eve" })
        await clock.advance(by: 135 * 60, stepWhenAsleep: 2)   // Tuesday 00:15
        let pastMidnight = try await startChat(server, "night-bob", clock: clock)
        #expect(await desk.humanAgent(of: pastMidnight.id) == "Eve", "00:15 is in the shift")
        await clock.advance(by: 15 * 60, stepWhenAsleep: 2)   // 00:30
        let late = try await startChat(server, "night-cy", clock: clock)
        #expect(await desk.humanAgent(of: late.id) == nil, "the shift ended at 00:30")
        await server.stop()
    }

    /// Wait estimates count the agents at work: off shift, an agent shortens no wait.
    @Test func waitEstimatesCountTheAgentsOnShift() async throws {
        let configuration = try await LuaConfigurations.configuration("""
            handle_time_seconds = 60, menus = { { id = 1, name = "Help", channels = { chat = {} } } },
            agents = { { name = "Ava", menus = { 1 } }, { name = "Eve", menus = { 1 }, shifts = { { from = "08:00", to = "09:00" } } } }
            """)
        let menu = try #require(configuration.menus?.first)
        func engine(at moment: Date) -> QueueMenuEngine {
            let clock = ManualClock(moment)
            let estimator = WaitEstimator(configuration: configuration, handleTimes: HandleTimes(), businessClock: clock, clock: clock)
            return QueueMenuEngine(configuration: configuration, now: moment, waiting: [1: 2], waitingByChannel: [.chat: [1: 2]],
                                   estimator: estimator)
        }
        // (60 s / agents) × 1 × 2 waiting + 10 s.
        #expect(engine(at: QueueMenuTests.mondayMorning).estimatedWait(menu) == 130, "18:00 UTC: Ava alone")
        #expect(engine(at: QueueMenuTests.mondayMorning.addingTimeInterval(-9.5 * 3_600)).estimatedWait(menu) == 70,
                "08:30 UTC: Ava and Eve")
    }

    /// Shifts are read in the company's time zone, whatever the machine's.
    @Test(arguments: [("07:59", false), ("08:00", true), ("15:59", true), ("16:00", false), ("23:30", true), ("05:59", true),
                      ("06:00", false)])
    func shiftsAreInTheCompanysTimeZone(_ time: String, _ working: Bool) throws {
        let agent = AgentConfiguration(name: "Eve", menus: [1], shifts: [AgentShift(from: "08:00", to: "16:00"),
                                                                         AgentShift(from: "22:00", to: "06:00")])
        let losAngeles = try #require(TimeZone(identifier: "America/Los_Angeles"))
        let local = try #require(ISO8601DateFormatter().date(from: "2026-12-01T\(time):00-08:00"))
        #expect(agent.isOnShift(at: local, in: losAngeles) == working)
    }

    @Test func theSameInstantIsAnotherTimeOfDayElsewhere() throws {
        let agent = AgentConfiguration(name: "Eve", menus: [1], shifts: [AgentShift(from: "08:00", to: "16:00")])
        let eightInLosAngeles = try #require(ISO8601DateFormatter().date(from: "2026-12-01T08:00:00-08:00"))
        #expect(agent.isOnShift(at: eightInLosAngeles, in: try #require(TimeZone(identifier: "America/Los_Angeles"))))
        #expect(!agent.isOnShift(at: eightInLosAngeles, in: .gmt), "16:00 in UTC: the shift has ended")
    }

    /// Every bad shift is one problem naming the agent and the field.
    @Test func badShiftsAreConfigurationErrors() async throws {
        let path = try await file("""
            menus = { { id = 1, name = "Help", channels = { chat = {} } } },
            agents = {
              { name = "Ann", menus = { 1 }, shifts = { { from = "8am", to = "16:00" }, { from = "09:00", to = "25:00" } } },
              { name = "Bo", menus = { 1 }, shifts = { { from = "08:00", to = "08:00" } } },
              { name = "Cy", menus = { 1 }, shifts = { { from = "08:00", to = "16:00" }, { from = "22:00", to = "09:00" } } },
              { name = "Di", menus = { 1 }, shifts = {} },
              { name = "Ed", menus = { 1 }, shifts = { { from = "22:00", to = "06:00" }, { from = "06:00", to = "22:00" } } },
              { name = "Fy", menus = { 1 }, shifts = { { from = "00:00", to = "24:00" } } },
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = await #expect(throws: ConfigurationError.self) { try await SandboxConfiguration.load(file: path) }
        let problems = error?.problems ?? []
        #expect(problems == [
            "agents[Ann].shifts[1].from: '8am' is not a time of day like 08:00 (00:00 to 24:00)",
            "agents[Ann].shifts[2].to: '25:00' is not a time of day like 08:00 (00:00 to 24:00)",
            "agents[Bo].shifts[1]: from and to are the same time (08:00-08:00): a shift needs a length",
            "agents[Cy].shifts[2]: 22:00-09:00 overlaps shifts[1] (08:00-16:00)",
            "agents[Di].shifts: an empty list leaves the agent no time to work (without shifts it always works)",
        ], "Ed's two shifts cover the day without overlapping, and Fy's is the whole day: \(problems)")
    }
}
