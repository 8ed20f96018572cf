import Foundation
import Timekeeping

/// When the human agents work (their `shifts`), read on the business clock in the company's
/// time zone: the agent desk offers work only to agents on shift, and the roster wakes it at
/// each shift's start so that the agent takes what waits. An agent without shifts always
/// works.
///
/// ```swift
/// let roster = ShiftRoster(configuration: configuration, clock: businessClock)
/// roster.isOnShift("Ana")                                   // false at 07:59, true at 08:00
/// let timers = roster.watch { name in await desk.shiftStarted(name) }
/// ```
struct ShiftRoster: Sendable {
    /// The agents with shifts, by name.
    private let agents: [String: AgentConfiguration]
    private let timeZone: TimeZone
    /// The business clock (`clock_start`, virtual time).
    private let clock: any TimeSource

    init(configuration: SandboxConfiguration, clock: any TimeSource) {
        let scheduled = (configuration.agents ?? []).filter { $0.shifts != nil }
        agents = Dictionary(scheduled.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        timeZone = TimeZone(identifier: configuration.company.timeZone) ?? .gmt
        self.clock = clock
    }

    /// Whether the agent `name` works now.
    func isOnShift(_ name: String) -> Bool {
        agents[name]?.isOnShift(at: clock.now(), in: timeZone) ?? true
    }

    /// Calls `started` with an agent's name at each start of one of its shifts, until the
    /// returned timers are cancelled or released. A timer that fires early (the agent is
    /// not yet on shift) is followed by another at the start.
    func watch(_ started: @escaping @Sendable (String) async -> Void) -> [ClockTimer] {
        agents.values.map { agent in
            let (clock, timeZone) = (self.clock, self.timeZone)
            let task = Task {
                while let next = agent.nextShiftStart(after: clock.now(), in: timeZone) {
                    do { try await clock.sleep(until: next) } catch { return }
                    await started(agent.name)
                }
            }
            return ClockTimer { task.cancel() }
        }
    }
}
