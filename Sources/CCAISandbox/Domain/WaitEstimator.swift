import CCAIWire
import Foundation

/// The channel of a queue a wait is estimated for.
enum WaitChannel: String, Sendable, Hashable, CaseIterable {
    case chat
    case voiceCall = "voice_call"
}

/// The platform's published estimated-wait-time calculation (CCAI Platform, "Estimated
/// wait time prediction calculation"), the one formula behind every estimate the sandbox
/// gives: the SDK's `wait_times`, a waiting call's `estimated_wait`, the capacity
/// threshold and the Apps API's `/wait_times`. Pure: the figures in, seconds out.
///
///     EWT = (average duration in channel / active agents in channel)
///         × (agents in common / active agents in current queue)
///         × (queued items ahead − available agents)
///         + additional seconds (calls: callbacks, campaign and scheduled calls)
///         + 10 s
///
/// Available agents are counted by their share of their queues (``share(ofQueues:)``:
/// 1, 0.5, 0.3...); offline agents are neither active nor available. Where the page is
/// silent the sandbox chooses (docs/sdk-and-sandbox.md, "Wait estimates"): a negative
/// "queued − available" counts as none, a divisor of no agents as one agent, and the
/// result is rounded to the nearest whole second.
///
/// ```swift
/// let seconds = WaitEstimator(averageHandleSeconds: 120, activeAgentsInChannel: 2, agentsInCommon: 2,
///                             activeAgentsInQueue: 2, queuedAhead: 5, availableAgents: 0.5).seconds   // 280
/// ```
struct WaitEstimator: Sendable, Hashable {
    /// The seconds the page adds to every estimate (the channel's messages to the end user).
    static let fixedAdditionSeconds = 10.0

    /// The mean handle time of the channel's sessions that ended in the last hour (the
    /// configured `handle_time_seconds` when none did).
    var averageHandleSeconds: Double
    /// Agents at work (on shift) who take the channel.
    var activeAgentsInChannel: Int
    /// Agents at work the channel and the current queue have in common.
    var agentsInCommon: Int
    /// Agents at work on the current queue, in any channel.
    var activeAgentsInQueue: Int
    /// Sessions of the channel waiting ahead of the one estimated (all of them for a new one).
    var queuedAhead: Int
    /// Agents at work with room for another session, each counted by ``share(ofQueues:)``.
    var availableAgents: Double
    /// What the page adds for calls: the waits of callbacks, campaign and scheduled calls.
    var additionalSeconds: Double = 0

    /// The estimate, in whole seconds (`Int.max` when it does not fit).
    var seconds: Int {
        let perAgent = averageHandleSeconds / Double(max(1, activeAgentsInChannel))
        let commonShare = activeAgentsInQueue == 0 ? 1 : Double(agentsInCommon) / Double(activeAgentsInQueue)
        let line = max(0, Double(queuedAhead) - availableAgents)
        let total = perAgent * commonShare * line + additionalSeconds + Self.fixedAdditionSeconds
        return Checked.truncated(total.rounded()) ?? Int.max
    }

    /// What an agent assigned to `queues` queues counts for in each: the page's 1, 0.5 and
    /// 0.3 for one, two and three queues, that is 1/n cut to one decimal (our choice beyond
    /// three: 0.2 for four and five, 0.1 up to ten, 0 past ten).
    static func share(ofQueues queues: Int) -> Double {
        guard queues > 0 else { return 0 }
        return Double(10 / queues) / 10
    }
}

/// A queue channel's wait as the Apps API's `/wait_times` reports it: the estimate, and the
/// agents of the queue logged in (on shift) and available (with room for another session).
struct ChannelWait: Sendable, Hashable {
    /// The estimated wait in seconds (``WaitEstimator/seconds``).
    var seconds: Int
    /// The queue's agents at work, whatever they are doing (`logged_in_agents`).
    var loggedInAgents: Int
    /// The queue's agents at work with room for another session, each counted once
    /// (`available_agents`; the estimate counts them by their share of their queues).
    var availableAgents: Int
}
