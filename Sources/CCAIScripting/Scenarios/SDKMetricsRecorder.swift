import CCAIKit
import CCAIWire
import Foundation
import Timekeeping

/// What one VU's SDK calls and chat events add to the run's built-in metrics (LUA-API
/// section 6): every call's duration (`sdk_call_seconds`, tagged `service`, `method` and
/// `status`: `ok` or the error code), and of its chats the start, the wait until an agent
/// or a virtual agent takes the chat, the first response, each customer message's round
/// trip to the next agent message, how long an agent had the chat (`chat_handle_seconds`),
/// whether it ended before anyone took it (`abandoned`), the ratings it gave, and its voice
/// calls' (``CallMetricsRecorder``). Attached to the VU's state, where every binding that
/// calls the SDK finds it.
///
/// ```swift
/// lua.attach(SDKMetricsRecorder(metrics: metrics, clock: clock))
/// let began = recorder.begin()
/// recorder.end(service: "chat", method: "start", began: began, status: "ok", result: chat)
/// ```
final class SDKMetricsRecorder: @unchecked Sendable {
    let metrics: ScenarioMetrics
    let clock: any TimeSource
    /// The VU's voice calls.
    let calls: CallMetricsRecorder
    private let lock = NSLock()
    /// What is known of each recent chat, by id (events may come before the call that
    /// started the chat or sent its message returns).
    private var chats = RecentSessions<ChatTimes>(capacity: maximumChats)
    /// The most chats followed at once (older ones are forgotten).
    static let maximumChats = 16
    /// The most unanswered messages and recent answers kept per chat.
    static let maximumKept = 64

    private struct ChatTimes {
        /// When `ccai.chat.start` was called, once it has returned.
        var began: Date?
        /// When an agent or virtual agent was first seen on the chat, and its first message.
        var taken: Date?
        var firstAnswer: Date?
        var waitRecorded = false
        var firstAnswerRecorded = false
        /// Customer messages the platform has placed (their sequence) and when each was sent.
        var unanswered: [(sequence: Int, sent: Date)] = []
        /// Agent messages seen, by sequence, and when.
        var answers: [(sequence: Int, seen: Date)] = []
    }

    init(metrics: ScenarioMetrics, clock: any TimeSource) {
        self.metrics = metrics
        self.clock = clock
        calls = CallMetricsRecorder(metrics: metrics)
    }

    /// A call is about to be made: returns when.
    func begin() -> Date { clock.now() }

    /// A call begun at `began` ended with `status`; `result` is what it returned. A
    /// customer message's round trip ends at the first agent message placed after it in
    /// the chat (by the platform's sequence), whichever of the two arrives first.
    func end(service: String, method: String, began: Date, status: String, result: Any?) {
        let now = clock.now()
        let seconds = now.timeIntervalSince(began)
        metrics.record(.sdkCall, seconds, tags: ["service": service, "method": method, "status": status])
        if service == "call", status == "ok", CallMetricsRecorder.placingMethods.contains(method), let call = result as? CallResponse {
            calls.placed(call, began: began, at: now)
        }
        guard service == "chat", status == "ok" else { return }
        switch method {
        case "start":
            metrics.record(.chatStart, seconds)
            guard let chat = result as? ChatResponse else { return }
            update(chat.id) { times in
                times.began = began
                if chat.agent != nil || chat.virtualAgent != nil, times.taken == nil { times.taken = now }
            }
        case "send_message":
            guard let placed = (result as? [ChatMessage])?.max(by: { $0.sequence < $1.sequence }) else { return }
            update(placed.chatId) { times in
                if let answer = times.answers.first(where: { $0.sequence > placed.sequence }) {
                    self.metrics.record(.messageRoundTrip, max(0, answer.seen.timeIntervalSince(began)))
                } else {
                    if times.unanswered.count >= Self.maximumKept { times.unanswered.removeFirst() }
                    times.unanswered.append((placed.sequence, began))
                }
            }
        default:
            break
        }
    }

    /// The customer rated the session (`ccai.rate.rate`).
    func rated(_ rating: Int) {
        metrics.record(.csatRating, Double(rating))
    }

    /// The VU's iteration was cut off by the end of the run: the chats it started and left
    /// open are abandoned (their ends, if they come, are not counted again).
    func abandonOpenChats() {
        let open = lock.withLock { chats.forgetAll().filter { $0.began != nil } }
        for _ in open { metrics.record(.abandoned, 1) }
    }

    /// Records what the chat's events say, until the stream ends.
    func observe(_ events: AsyncStream<ChatServiceEvent>) {
        Task { [weak self] in
            for await event in events {
                guard let self else { return }
                self.observe(event, at: self.clock.now())
            }
        }
    }

    /// Records what a call event says, as the event reaches the VU's script: a script that
    /// saw a call end finds it counted.
    func observe(_ event: CallServiceEvent) {
        if case .callReceived(let call) = event { calls.observe(call, at: clock.now()) }
    }

    func observe(_ event: ChatServiceEvent, at now: Date) {
        switch event {
        case .chatReceived(let chat?) where chat.status == .ended:
            let times: ChatTimes? = lock.withLock { chats.forget(chat.id) }
            // Only the chats this VU started, seen from their start: an abandoned one ended
            // while it waited.
            guard let times, times.began != nil else { return }
            if let taken = times.taken {
                metrics.record(.chatHandle, max(0, now.timeIntervalSince(taken)))
            }
            metrics.record(.abandoned, times.taken == nil ? 1 : 0)
        case .chatReceived(let chat?) where chat.agent != nil || chat.virtualAgent != nil:
            update(chat.id) { times in
                if times.taken == nil { times.taken = now }
            }
        case .messagesReceived(let messages):
            for (chatID, batch) in Dictionary(grouping: messages.filter { Self.answers($0.sender.type) }, by: \.chatId) {
                let latest = batch.map(\.sequence).max() ?? 0
                update(chatID) { times in
                    if times.firstAnswer == nil { times.firstAnswer = now }
                    if times.taken == nil { times.taken = now }
                    for message in batch {
                        if times.answers.count >= Self.maximumKept { times.answers.removeFirst() }
                        times.answers.append((message.sequence, now))
                    }
                    for question in times.unanswered where question.sequence < latest {
                        self.metrics.record(.messageRoundTrip, max(0, now.timeIntervalSince(question.sent)))
                    }
                    times.unanswered.removeAll { $0.sequence < latest }
                }
            }
        default:
            break
        }
    }

    /// Changes what is known of chat `id`, then records its wait and first response once
    /// both their ends are known.
    private func update(_ id: Int, _ change: (inout ChatTimes) -> Void) {
        lock.withLock {
            chats.update(id, new: ChatTimes()) { times in
                change(&times)
                guard let began = times.began else { return }
                if let taken = times.taken, !times.waitRecorded {
                    times.waitRecorded = true
                    metrics.record(.chatWait, max(0, taken.timeIntervalSince(began)))
                }
                if let answer = times.firstAnswer, !times.firstAnswerRecorded {
                    times.firstAnswerRecorded = true
                    metrics.record(.chatFirstResponse, max(0, answer.timeIntervalSince(began)))
                }
            }
        }
    }

    /// Whether a message from `sender` answers the customer: an agent's or a virtual agent's.
    private static func answers(_ sender: ChatSenderType) -> Bool { sender == .agent || sender == .virtualAgent }
}
