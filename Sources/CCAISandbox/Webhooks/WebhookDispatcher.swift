import CCAIWire
import Foundation
import Timekeeping

/// Delivers the events of Apps API chats to the configured webhook URL, off the request
/// path: ``enqueue(_:chatID:data:)`` returns at once, and the deliveries go out from a
/// queue, each a JSON ``WebhookEnvelope`` POSTed with the signature headers
/// (``WebhookSignature``) through the ``WebhookTransport`` the program gave.
///
/// - Order: one delivery at a time per chat, in the order enqueued (a chat's retries hold
///   its later events back); at most ``Limits/maximumInFlight`` chats at once.
/// - Retries: a refused connection, a timeout, a 408, 429 or 5xx is tried again after
///   1, 2, 4, 8... seconds (doubling, at most ``Limits/maximumRetrySeconds``), up to
///   ``Limits/maximumAttempts`` attempts, each signed anew; a 2xx is delivered; any other
///   answer (a 4xx, a redirect: never followed) fails at once.
/// - Bounds: at most ``Limits/maximumQueued`` deliveries wait (the sandbox is one company);
///   past it the *new* delivery is dropped, logged and listed as `dropped`, so that what
///   is queued keeps its order.
/// - The SSRF guard runs again before each attempt (``WebhookAddressGuard``): a host that
///   now resolves beyond loopback fails the delivery.
///
/// Every delivery is listed by ``deliveries(before:limit:)`` (`GET /admin/webhook_deliveries`).
///
/// ```swift
/// let id = sandbox.webhooks?.enqueue(.chatCreated, chatID: chat.id, data: try JSONValue(encoding: chat))
/// ```
public final class WebhookDispatcher: Sendable {
    /// How much the dispatcher holds and how hard it tries (docs/webhooks.md).
    public struct Limits: Sendable {
        /// Deliveries waiting at most (1,000); past it a new one is dropped.
        public var maximumQueued = 1_000
        /// Deliveries under way at once, each of another chat (4).
        public var maximumInFlight = 4
        /// Attempts of one delivery at most (6: the first and five retries).
        public var maximumAttempts = 6
        /// The wait before the first retry (1 second); each next one doubles.
        public var firstRetrySeconds: Double = 1
        /// The longest wait between attempts (60 seconds).
        public var maximumRetrySeconds: Double = 60
        /// Seconds an attempt may take (10) before it counts as failed.
        public var timeoutSeconds: Double = 10
        /// Deliveries the log keeps, newest (2,000).
        public var logEntries = 2_000

        public init() {}
    }

    private struct Pending: Sendable {
        let id: Int
        let chatID: Int
        let event: WebhookEventName
        let body: Data
    }

    private struct State {
        var queue: [Pending] = []
        var chatsInFlight = Set<Int>()
        var nextID = 1
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var isIdle: Bool { queue.isEmpty && chatsInFlight.isEmpty }
    }

    /// What one attempt came to.
    private enum Outcome {
        case delivered(Int)
        case retry(status: Int?, String)
        case giveUp(status: Int?, String)
    }

    /// The URL every delivery goes to.
    public let url: String
    public let limits: Limits
    let signature: WebhookSignature
    let addressGuard: WebhookAddressGuard
    let transport: any WebhookTransport
    let clock: any TimeSource
    let log: @Sendable (String) -> Void
    let records: WebhookDeliveryLog
    private let state = LockedState(State())

    /// A dispatcher for `configuration`, sending through `transport`, its time (retries,
    /// timeouts, timestamps) from `clock`; `resolve` looks host names up (the system's
    /// resolver by default); `log` hears of deliveries dropped and given up.
    public init(configuration: WebhookConfiguration, transport: any WebhookTransport, clock: any TimeSource,
                limits: Limits = Limits(), resolve: @escaping WebhookAddressGuard.Resolver = WebhookAddressGuard.systemResolve,
                log: @escaping @Sendable (String) -> Void) {
        url = configuration.url
        signature = configuration.signature
        addressGuard = configuration.addressGuard(resolve: resolve)
        self.transport = transport
        self.clock = clock
        self.limits = limits
        self.log = log
        records = WebhookDeliveryLog(capacity: limits.logEntries)
    }

    /// Queues `event` of chat `chatID` carrying `data` and returns at once with the
    /// delivery's id (listed as `dropped` when the queue is full).
    @discardableResult
    public func enqueue(_ event: WebhookEventName, chatID: Int, data: JSONValue) -> Int {
        let now = clock.now()
        let (id, refusal) = state.withLock { state -> (Int, String?) in
            let id = state.nextID
            state.nextID += 1
            var record = WebhookDeliveryRecord(id: id, event: event.rawValue, chatId: chatID, url: url, state: .pending,
                                               createdAt: now.timeIntervalSince1970, updatedAt: now.timeIntervalSince1970)
            var refusal: String?
            if state.queue.count >= max(0, limits.maximumQueued) {
                record.state = .dropped
                refusal = "webhook queue full (\(limits.maximumQueued) waiting): dropped"
            } else if let body = Self.body(id: id, event: event, chatID: chatID, data: data, at: now) {
                state.queue.append(Pending(id: id, chatID: chatID, event: event, body: body))
            } else {
                (record.state, record.lastError) = (.failed, "the data cannot be written as JSON")
                refusal = "webhook data cannot be written as JSON (a number that is not finite?): failed"
            }
            // Appended under the state's lock, so that the log stays in id order.
            records.append(record)
            return (id, refusal)
        }
        if let refusal { log("sandbox: \(refusal) delivery \(id), \(event.rawValue) of chat \(chatID)") }
        startDeliveries()
        return id
    }

    /// The body of a delivery: the envelope's JSON, keys sorted; nil when `data` cannot
    /// be written (a number that is not finite).
    private static func body(id: Int, event: WebhookEventName, chatID: Int, data: JSONValue, at date: Date) -> Data? {
        let envelope = WebhookEnvelope(id: id, event: event.rawValue, chatId: chatID,
                                       timestamp: ISO8601DateFormatter().string(from: date), data: data)
        return try? encoder.encode(envelope)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// At most `limit` deliveries, newest first, older than the delivery `before` (0: from
    /// the newest).
    public func deliveries(before: Int = 0, limit: Int = Paging.webhookDeliveries.defaultLimit) -> [WebhookDeliveryRecord] {
        records.page(before: before, limit: limit)
    }

    /// The delivery `id`, while the log keeps it.
    public func delivery(_ id: Int) -> WebhookDeliveryRecord? {
        records.record(id)
    }

    /// Returns once nothing waits or is under way (at once when nothing is): for tests and
    /// for a program that wants its last events out before it stops.
    public func idle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                if state.isIdle { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Starts the oldest waiting delivery of every chat with none under way, while fewer
    /// than `maximumInFlight` are.
    private func startDeliveries() {
        let started = state.withLock { state -> [Pending] in
            var started: [Pending] = []
            var index = 0
            while state.chatsInFlight.count < max(1, limits.maximumInFlight), index < state.queue.count {
                let pending = state.queue[index]
                guard !state.chatsInFlight.contains(pending.chatID) else {
                    index += 1
                    continue
                }
                state.queue.remove(at: index)
                state.chatsInFlight.insert(pending.chatID)
                started.append(pending)
            }
            return started
        }
        for pending in started {
            Task {
                await self.deliver(pending)
                self.finished(pending)
            }
        }
    }

    private func finished(_ pending: Pending) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.chatsInFlight.remove(pending.chatID)
            guard state.isIdle else { return [] }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        waiters.forEach { $0.resume() }
        startDeliveries()
    }

    /// Attempts a delivery until it is delivered, fails for good, or runs out of attempts.
    private func deliver(_ pending: Pending) async {
        let attempts = max(1, limits.maximumAttempts)
        for attempt in 1...attempts {
            let outcome = await self.attempt(pending)
            let now = clock.now().timeIntervalSince1970
            switch outcome {
            case .delivered(let status):
                records.update(pending.id) { $0.settle(.delivered, attempts: attempt, status: status, error: nil, at: now) }
                return
            case .retry(let status, let why) where attempt < attempts:
                let wait = retryDelay(after: attempt)
                records.update(pending.id) {
                    $0.settle(.retrying, attempts: attempt, status: status, error: why, at: now)
                    $0.nextAttemptAt = now + wait
                }
                do { try await clock.sleep(for: wait) } catch {
                    return giveUp(pending, attempts: attempt, status: status, why: "stopped while waiting to retry: \(why)")
                }
            case .retry(let status, let why):
                return giveUp(pending, attempts: attempt, status: status, why: "gave up after \(attempt) attempts: \(why)")
            case .giveUp(let status, let why):
                return giveUp(pending, attempts: attempt, status: status, why: why)
            }
        }
    }

    private func giveUp(_ pending: Pending, attempts: Int, status: Int?, why: String) {
        let now = clock.now().timeIntervalSince1970
        records.update(pending.id) { $0.settle(.failed, attempts: attempts, status: status, error: why, at: now) }
        log("sandbox: webhook delivery \(pending.id) (\(pending.event.rawValue) of chat \(pending.chatID)) to \(url) failed: \(why)")
    }

    /// The wait after the `attempt`th attempt failed: the first retry's, doubled each time,
    /// at most the longest.
    public func retryDelay(after attempt: Int) -> Double {
        let doubled = limits.firstRetrySeconds * pow(2, Double(min(max(0, attempt - 1), 60)))
        return min(max(0, doubled), max(0, limits.maximumRetrySeconds))
    }

    /// One attempt: the guard, then the signed POST within the timeout.
    private func attempt(_ pending: Pending) async -> Outcome {
        let pinned: [String]
        do {
            pinned = try await checkedAddresses()
        } catch let error as WebhookAddressError {
            if case .unresolvable = error { return .retry(status: nil, error.description) }
            return .giveUp(status: nil, "refused by the SSRF guard: \(error)")
        } catch {
            return .retry(status: nil, String(describing: error))
        }
        var headers = signature.headers(body: pending.body, at: clock.now())
        headers["Content-Type"] = "application/json"
        let request = WebhookRequest(url: url, pinnedAddresses: pinned, headers: headers, body: pending.body,
                                     timeout: limits.timeoutSeconds)
        let status: Int
        do {
            status = try await withTimeout(limits.timeoutSeconds) { [transport] in try await transport.post(request) }
        } catch {
            return .retry(status: nil, String(describing: error))
        }
        switch status {
        case 200..<300: return .delivered(status)
        case 408, 429, 500..<600: return .retry(status: status, "the receiver answered \(status)")
        case 300..<400: return .giveUp(status: status, "the receiver answered \(status): redirects are not followed")
        default: return .giveUp(status: status, "the receiver answered \(status)")
        }
    }

    /// The addresses to connect to, checked now: none to pin for an IP literal (checked
    /// itself), else what the name resolves to, looked up away from the cooperative pool
    /// (the system's resolver blocks).
    private func checkedAddresses() async throws -> [String] {
        let addressGuard = self.addressGuard, url = self.url
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let target = try addressGuard.target(url)
                    let addresses = try addressGuard.addresses(of: target)
                    return target.isLiteral ? [] : addresses
                })
            }
        }
    }

    /// `operation`'s status, or ``WebhookTimeout`` when `clock` passes `seconds` first
    /// (the operation is then cancelled).
    private func withTimeout(_ seconds: Double, _ operation: @escaping @Sendable () async throws -> Int) async throws -> Int {
        let clock = self.clock
        return try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await clock.sleep(for: seconds)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let status = first else { throw WebhookTimeout(seconds: seconds) }
            return status
        }
    }
}

/// An attempt that got no answer in time.
struct WebhookTimeout: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "no answer within \(seconds) seconds" }
}

extension WebhookDeliveryRecord {
    /// Records how an attempt ended.
    mutating func settle(_ state: WebhookDeliveryState, attempts: Int, status: Int?, error: String?, at time: Double) {
        self.state = state
        self.attempts = attempts
        lastStatus = status
        lastError = error
        updatedAt = time
        nextAttemptAt = nil
    }
}
