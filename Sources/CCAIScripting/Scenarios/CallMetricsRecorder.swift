import CCAIWire
import Foundation

/// What one VU's voice calls add to the run's built-in metrics (LUA-API sections 6 and
/// 15), read from the calls' server-side status (seed 002: "drive the Connected flip and
/// the call-timer start from `callReceived.status`", not from the provider's line):
///
/// - `call_wait_seconds`: from placing the call until an agent or virtual agent takes it
///   (the record names its agent: `connecting` as a human agent takes it, `connected`
///   when a virtual agent answers);
/// - `call_setup_seconds`: from placing it until it is `connected`;
/// - `call_handle_seconds`: from `connected` until it is `ended` or `failed`;
/// - `call_abandoned`: each call, once, as soon as its fate is known: 0 when it is taken,
///   1 when it ends before anyone took it or the iteration that placed it ends with it
///   still waiting.
///
/// A call is placed by `ccai.call.start_instant_call`, or by `accept_incoming_call` for
/// the callback of a scheduled call (which then waits for an agent as an instant call
/// does); every sample is tagged with the call's `type`: `instant` or `scheduled`.
/// Voicemails (no agent takes them) and callbacks never accepted are not calls that waited.
///
/// ```swift
/// let calls = CallMetricsRecorder(metrics: metrics)
/// calls.placed(started, began: began, at: now)   // what start_instant_call returned
/// calls.observe(connected, at: later)             // a call_received event
/// ```
final class CallMetricsRecorder: @unchecked Sendable {
    private let metrics: ScenarioMetrics
    private let lock = NSLock()
    /// What is known of each recent call, by id (events may come before the call that
    /// placed it returns).
    private var calls = RecentSessions<CallTimes>(capacity: maximumCalls)
    /// The most calls followed at once (older ones are forgotten).
    static let maximumCalls = 16

    /// The SDK calls that place a call on the line for an agent to take, by binding name.
    static let placingMethods: Set<String> = ["start_instant_call", "accept_incoming_call"]

    private struct CallTimes {
        /// When the VU asked for the call, once that request has returned.
        var began: Date?
        var type: CallType?
        var taken: Date?
        var connected: Date?
        var ended: Date?
        var waitRecorded = false
        var setupRecorded = false
    }

    init(metrics: ScenarioMetrics) {
        self.metrics = metrics
    }

    /// The VU's request begun at `began` placed `call` (it returned at `now`).
    func placed(_ call: CallResponse, began: Date, at now: Date) {
        update(call.id) { times in
            times.began = began
            times.type = call.type
            Self.note(call, at: now, in: &times)
        }
    }

    /// The platform's record of a call changed (`call_received`), seen at `now`.
    func observe(_ call: CallResponse, at now: Date) {
        update(call.id) { times in Self.note(call, at: now, in: &times) }
    }

    /// The VU's iteration ended with `current` as the SDK's current call: a call it placed
    /// that is still waiting for its first agent was abandoned by the customer who left.
    /// The SDK's record is read, not this recorder's, which its event stream may not have
    /// caught up with: a call already taken or ended is left to its events.
    func iterationEnded(leaving current: CallResponse?) {
        guard let current, current.status == .waiting else { return }
        let left: CallTimes? = lock.withLock {
            guard let times = calls[current.id], times.began != nil, times.taken == nil, times.ended == nil else { return nil }
            return calls.forget(current.id)
        }
        if let left { metrics.record(.callAbandoned, 1, tags: Self.tags(left)) }
    }

    /// What `call`'s record says of when it was taken, connected and ended. Taken: the
    /// record names the agent or virtual agent who has it (`connecting` with its agent, as
    /// an agent takes it), or the call is connected, held or interrupted.
    private static func note(_ call: CallResponse, at now: Date, in times: inout CallTimes) {
        switch call.status {
        case .ended, .failed:
            times.ended = times.ended ?? now
        case .connected:
            times.connected = times.connected ?? now
            times.taken = times.taken ?? now
        case .onHold, .interrupted:
            times.taken = times.taken ?? now
        case .connecting, .waiting, .ringing, .scheduled:
            if call.agent != nil || call.virtualAgent != nil { times.taken = times.taken ?? now }
        }
    }

    /// Changes what is known of call `id`, then records what became known; a call that
    /// ended is no longer followed.
    private func update(_ id: Int, _ change: (inout CallTimes) -> Void) {
        lock.withLock {
            let times = calls.update(id, new: CallTimes()) { times in
                change(&times)
                record(&times)
            }
            if times.began != nil, times.ended != nil { calls.forget(id) }
        }
    }

    /// Records what both ends are known of: once taken, the call's wait and that it was not
    /// abandoned; once connected, its setup; at its end, how long it was handled, or that
    /// it was abandoned.
    private func record(_ times: inout CallTimes) {
        guard let began = times.began else { return }
        let tags = Self.tags(times)
        if let taken = times.taken, !times.waitRecorded {
            times.waitRecorded = true
            metrics.record(.callWait, max(0, taken.timeIntervalSince(began)), tags: tags)
            metrics.record(.callAbandoned, 0, tags: tags)
        }
        if let connected = times.connected, !times.setupRecorded {
            times.setupRecorded = true
            metrics.record(.callSetup, max(0, connected.timeIntervalSince(began)), tags: tags)
        }
        guard let ended = times.ended else { return }
        if let connected = times.connected {
            metrics.record(.callHandle, max(0, ended.timeIntervalSince(connected)), tags: tags)
        }
        if times.taken == nil { metrics.record(.callAbandoned, 1, tags: tags) }
    }

    /// A call's samples are tagged with its type: `instant` or `scheduled`.
    private static func tags(_ times: CallTimes) -> [String: String] {
        ["type": (times.type ?? .instant).rawValue]
    }
}
