import CCAIKit
import CCAIWire
import Foundation
import Timekeeping

/// What one VU's SDK calls and chat events add to the run's built-in metrics (LUA-API
/// section 6): every call's duration (`sdk_call_seconds`, tagged `service`, `method` and
/// `status`: `ok` or the error code), and of its chats the start, the wait until an agent
/// or a virtual agent takes the chat, the first response, each customer message's round
/// trip to the next agent message, and the ratings it gave. Attached to the VU's state,
/// where every binding that calls the SDK finds it.
///
/// ```swift
/// lua.attach(SDKMetricsRecorder(metrics: metrics, clock: clock))
/// let began = recorder.begin(service: "chat", method: "start")
/// recorder.end(service: "chat", method: "start", began: began, status: "ok", result: chat)
/// ```
final class SDKMetricsRecorder: @unchecked Sendable {
    let metrics: ScenarioMetrics
    let clock: any Clock
    private let lock = NSLock()
    /// When the chat under way was started; nil when there is none.
    private var chatBegan: Date?
    private var waitingForAgent = false
    private var waitingForFirstResponse = false
    /// Customer messages the platform has taken (their place in the chat) and when each
    /// was sent, not answered yet.
    private var unanswered: [(sequence: Int, sent: Date)] = []
    /// The latest agent and virtual agent messages seen, by place in the chat, and when:
    /// a reply may arrive on the event stream before the call that sent its question
    /// returns.
    private var answers: [(sequence: Int, seen: Date)] = []
    /// The most unanswered messages and recent answers kept (older ones are dropped).
    static let maximumKept = 64

    init(metrics: ScenarioMetrics, clock: any Clock) {
        self.metrics = metrics
        self.clock = clock
    }

    /// A call is about to be made: returns when. Starting a chat starts its clocks.
    func begin(service: String, method: String) -> Date {
        let now = clock.now()
        guard service == "chat", method == "start" else { return now }
        lock.withLock {
            chatBegan = now
            waitingForAgent = true
            waitingForFirstResponse = true
            unanswered = []
            answers = []
        }
        return now
    }

    /// A call begun at `began` ended with `status`; `result` is what it returned. A
    /// customer message's round trip ends at the first agent message placed after it in
    /// the chat (by the platform's sequence), whichever of the two arrives first.
    func end(service: String, method: String, began: Date, status: String, result: Any?) {
        let now = clock.now()
        let seconds = now.timeIntervalSince(began)
        metrics.record(.sdkCall, seconds, tags: ["service": service, "method": method, "status": status])
        guard service == "chat" else { return }
        switch method {
        case "start" where status == "ok":
            metrics.record(.chatStart, seconds)
            if let chat = result as? ChatResponse { observe(chat, at: now) }
        case "start":
            lock.withLock { chatBegan = nil }
        case "send_message" where status == "ok":
            guard let sequence = (result as? [ChatMessage])?.map(\.sequence).max() else { return }
            let answered: Date? = lock.withLock {
                if let answer = answers.first(where: { $0.sequence > sequence }) { return answer.seen }
                if unanswered.count >= Self.maximumKept { unanswered.removeFirst() }
                unanswered.append((sequence, began))
                return nil
            }
            if let answered { metrics.record(.messageRoundTrip, max(0, answered.timeIntervalSince(began))) }
        default:
            break
        }
    }

    /// The customer rated the session (`ccai.rate.rate`).
    func rated(_ rating: Int) {
        metrics.record(.csatRating, Double(rating))
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

    func observe(_ event: ChatServiceEvent, at now: Date) {
        switch event {
        case .chatReceived(let chat?):
            observe(chat, at: now)
        case .messagesReceived(let messages):
            let replies = messages.filter { Self.answers($0.sender.type) }.map(\.sequence)
            guard let latest = replies.max() else { return }
            let (began, firstResponse, answered): (Date?, Bool, [Date]) = lock.withLock {
                let first = waitingForFirstResponse
                waitingForFirstResponse = false
                for sequence in replies {
                    if answers.count >= Self.maximumKept { answers.removeFirst() }
                    answers.append((sequence, now))
                }
                let closed = unanswered.filter { $0.sequence < latest }.map(\.sent)
                unanswered.removeAll { $0.sequence < latest }
                return (chatBegan, first, closed)
            }
            if firstResponse, let began { metrics.record(.chatFirstResponse, now.timeIntervalSince(began)) }
            for sent in answered { metrics.record(.messageRoundTrip, now.timeIntervalSince(sent)) }
        default:
            break
        }
    }

    private func observe(_ chat: ChatResponse, at now: Date) {
        if chat.status == .ended {
            lock.withLock {
                chatBegan = nil
                waitingForAgent = false
                waitingForFirstResponse = false
                unanswered = []
                answers = []
            }
            return
        }
        guard chat.agent != nil || chat.virtualAgent != nil else { return }
        let began: Date? = lock.withLock {
            guard waitingForAgent else { return nil }
            waitingForAgent = false
            return chatBegan
        }
        if let began { metrics.record(.chatWait, now.timeIntervalSince(began)) }
    }

    /// Whether a message from `sender` answers the customer: an agent's or a virtual agent's.
    private static func answers(_ sender: String) -> Bool { sender == "agent" || sender == "virtual_agent" }
}
