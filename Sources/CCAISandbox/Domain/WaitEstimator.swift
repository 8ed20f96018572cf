import CCAIWire
import Foundation
import Timekeeping

/// The platform's published estimated wait time (the public page "Estimated wait time
/// prediction calculation"), one implementation for every estimate of the sandbox: the
/// menus' and the SDK's wait times, `GET /apps/api/v1/wait_times`, capacity and each
/// waiting call's `estimated_wait`.
///
///     EWT = (average duration in channel / active agents in channel)
///           × (agents in common / active agents in current queue)
///           × (queued sessions − available agents)  + 10 seconds
///
/// As the sandbox reads it (docs/sdk-and-sandbox.md, wait estimates):
/// - the average duration is the mean handle time of the channel's sessions human agents
///   ended in the previous hour (``HandleTimes``), else `handle_time_seconds` (300);
/// - the active agents in the channel, the agents in common and the active agents in the
///   current queue are all the queue's agents on shift (offline agents excluded), so the
///   middle factor is 1: the sandbox has one channel per queue and no agent outside it;
/// - the available agents, counted by their share of the queue (1 for an agent of one
///   queue, 0.5 of two, 0.3 of three, as published), are none while any session waits: the
///   desk hands a waiting session to an agent with room at once. So the last factor is the
///   number of sessions ahead;
/// - a queue with no agent on shift is estimated as if it had one;
/// - 10 seconds are added for every session, as published.
struct WaitEstimator: Sendable {
    static let fixedAdditionSeconds = 10.0

    let configuration: SandboxConfiguration
    let handleTimes: HandleTimes
    /// The time shifts are read in (the business clock).
    let businessClock: any TimeSource
    /// The time handle times are recorded in.
    let clock: any TimeSource

    /// Seconds before a session of `channel` with `ahead` sessions before it on queue
    /// `menuID` is answered.
    func seconds(_ channel: SessionChannel, menuID: Int, ahead: Int) -> Int {
        let timeZone = TimeZone(identifier: configuration.company.timeZone) ?? .gmt
        let now = businessClock.now()
        let agents = (configuration.agents ?? []).filter { $0.menus.contains(menuID) && $0.isOnShift(at: now, in: timeZone) }
        let average = handleTimes.average(channel, now: clock.now()) ?? configuration.handleTimeSeconds ?? 300
        let activeInChannel = Double(max(1, agents.count))
        let (agentsInCommon, activeInQueue) = (activeInChannel, activeInChannel)
        let available = 0.0   // while sessions wait, the desk has given each agent with room one
        let estimate = (average / activeInChannel) * (agentsInCommon / activeInQueue) * max(0, Double(ahead) - available)
            + Self.fixedAdditionSeconds
        return Checked.truncated(estimate.rounded()) ?? Int.max
    }
}
