import CCAIWire
import Foundation

/// One event of the platform's real-time stream: its name and JSON data.
public struct PlatformEvent: Sendable, Equatable {
    public var id: String?
    public var name: String
    /// The event's data. For an event that arrived on the stream it is parsed from the text
    /// received each time it is read (text that is not JSON reads as a string): most events
    /// are only ever decoded into a model (``decoded(as:)``), straight from the text.
    public var data: JSONValue {
        get { text.map { (try? JSONValue(jsonText: $0)) ?? .string($0) } ?? madeData }
        set {
            madeData = newValue
            text = nil
        }
    }
    /// The data of an event the SDK made itself.
    private var madeData: JSONValue
    /// The data's JSON text as it arrived, so that typed readers decode it once.
    private(set) var text: String?
    /// The model the text was last decoded as, shared by every copy of the event: the
    /// services observing it and the subscribers after them decode a model once.
    private let decodedModel: DecodedModel?

    public init(id: String? = nil, name: String, data: JSONValue) {
        self.id = id
        self.name = name
        madeData = data
        decodedModel = nil
    }

    /// An event as it arrived on the stream, its data the JSON `text`.
    init(id: String?, name: String, text: String) {
        self.id = id
        self.name = name
        madeData = .null
        self.text = text
        decodedModel = DecodedModel()
    }

    /// Whether the data is JSON null, read without parsing the rest of it.
    var isNull: Bool {
        guard let text else { return madeData == .null }
        return text.trimmingCharacters(in: .whitespacesAndNewlines) == "null"
    }

    public static func == (lhs: PlatformEvent, rhs: PlatformEvent) -> Bool {
        lhs.id == rhs.id && lhs.name == rhs.name && lhs.data == rhs.data
    }

    /// The data decoded as `type`: from the text received when there is one, once for
    /// every reader of the event that asks for that type in turn.
    func decoded<Value: Decodable & Sendable>(as type: Value.Type) throws -> Value {
        guard let text, let decodedModel else { return try data.decoded(as: type) }
        if let model = decodedModel.model(as: type) { return model }
        let model = try PlatformEvent.decoder.decode(type, from: Data(text.utf8))
        decodedModel.keep(model)
        return model
    }

    private static let decoder = JSONDecoder()

    /// Drops the model decoded from the text, from every copy of the event.
    func forgetDecodedModel() {
        decodedModel?.forget()
    }

    /// About what it takes to hold: its text, name and id; for one the SDK made (rare: a
    /// call's line, an announcement played), its data's JSON text.
    var byteCount: Int {
        let data = text?.utf8.count ?? (try? madeData.jsonText().utf8.count) ?? 64
        return data + name.utf8.count + (id?.utf8.count ?? 0)
    }
}

/// The model an arrived event's text was last decoded as.
private final class DecodedModel: @unchecked Sendable {
    private let lock = NSLock()
    private var model: (any Sendable)?

    func model<Value>(as type: Value.Type) -> Value? {
        lock.withLock { model as? Value }
    }

    func keep(_ model: some Sendable) {
        lock.withLock { self.model = model }
    }

    func forget() {
        lock.withLock { model = nil }
    }
}

/// Reads the platform's `/events` stream for the authenticated end user and hands every
/// event to every subscriber. Reconnects with `Last-Event-ID` (nothing lost or repeated),
/// and re-authenticates through the delegate when the token is refused: at once the first
/// time, then backing off as ``RetryPolicy/streamDelay(afterFailures:jitter:)`` says, so
/// that a platform refusing every token cannot make the host sign in a loop.
final class EventPump: @unchecked Sendable {
    private let api: APIClient
    private let http: HTTPClient
    private let lock = NSLock()
    /// Subscribers by the order they came in, told in that order: each hands an event to
    /// its ``EventQueue``.
    private var subscribers: [Int: @Sendable (PlatformEvent) -> Void] = [:]
    /// The most bytes of events a subscriber may leave untaken (2 MiB, at least one event of
    /// the 1 MiB the stream allows); past it its oldest are dropped and counted.
    static let subscriberBytes = 2 << 20
    private let dropLock = NSLock()
    private var droppedCount = 0
    private var lastSubscriber = 0
    /// Called with every event before any subscriber gets it (services keeping state).
    private var observers: [@Sendable (PlatformEvent) -> Void] = []
    private var task: Task<Void, Never>?
    /// The last run started, cancelled or not: the next waits for it to end, so that two
    /// runs never overlap (one's late event or state cannot follow the next's).
    private var lastRun: Task<Void, Never>?
    /// Whether the stream is receiving, and whether it ever was (the first connection is
    /// not a recovery).
    private var connected = false
    private var everConnected = false
    /// The provider state last published (`state_changed`), so that each change is told once.
    private var providerState: ChatProviderState = .disconnected
    /// Whether the app is in the background: the stream stays closed, its subscribers kept.
    private var suspended = false
    /// The last event received, where the stream resumes (nil: at the sign-in's start).
    private var lastEventID: String?

    init(api: APIClient, http: HTTPClient, suspended: Bool = false) {
        self.api = api
        self.http = http
        self.suspended = suspended
    }

    deinit { task?.cancel() }

    /// A new subscriber; the pump starts with the first one. With `currentState`, its first
    /// event is the provider's state as it is (`state_changed` is a current-value
    /// publisher): each later change follows it once, none is missed or told twice.
    func subscribe(currentState: Bool = false) -> AsyncStream<PlatformEvent> {
        subscribe(currentState: currentState) { $0 }
    }

    /// Events dropped because a subscriber was more than ``subscriberBytes`` behind.
    var droppedEvents: Int { dropLock.withLock { droppedCount } }

    /// A new subscriber that gets what `transform` makes of each event (nil skips it),
    /// through a queue of its own bounded in bytes (``EventQueue``). It ends when its
    /// stream is dropped or its task cancelled.
    func subscribe<Value: Sendable>(currentState: Bool = false,
                                    _ transform: @escaping @Sendable (PlatformEvent) -> Value?) -> AsyncStream<Value> {
        let queue = EventQueue<Value>(limit: Self.subscriberBytes)
        let ending = subscribe(queue, currentState: currentState, transform)
        return AsyncStream(unfolding: { [ending] in
            withExtendedLifetime(ending) {}
            return await queue.next()
        }, onCancel: { ending.end() })
    }

    /// A new subscriber as ``subscribe(currentState:_:)`` makes one, taking its values from
    /// an inbox when `wake` tells it they arrived, without a task (``EventInbox``). `wake`
    /// is called on the thread that hands the pump its events: it should only schedule the
    /// taking.
    func inbox<Value: Sendable>(currentState: Bool = false, wake: @escaping @Sendable (EventInbox<Value>) -> Void,
                                _ transform: @escaping @Sendable (PlatformEvent) -> Value?) -> EventInbox<Value> {
        let queue = EventQueue<Value>(limit: Self.subscriberBytes)
        let inbox = EventInbox(queue: queue)
        queue.wake = { [weak inbox] in if let inbox { wake(inbox) } }
        inbox.attach(subscribe(queue, currentState: currentState, transform))
        return inbox
    }

    /// Hands `queue` what `transform` makes of every event from now on, and starts the pump
    /// with its first subscriber; the subscription ends with the end returned.
    private func subscribe<Value: Sendable>(_ queue: EventQueue<Value>, currentState: Bool,
                                            _ transform: @escaping @Sendable (PlatformEvent) -> Value?) -> SubscriptionEnd {
        let push: @Sendable (PlatformEvent) -> Void = { [weak self] event in
            guard let value = transform(event) else { return }
            let dropped = queue.push(value, bytes: event.byteCount)
            if dropped > 0, let self { self.dropLock.withLock { self.droppedCount += dropped } }
        }
        let id = lock.withLock { () -> Int in
            lastSubscriber += 1
            return lastSubscriber
        }
        let ending = SubscriptionEnd { [weak self] in
            queue.finish()
            self?.unsubscribe(id)
        }
        lock.withLock {
            subscribers[id] = push
            if currentState { push(Self.stateEvent(providerState)) }
            if task == nil, !suspended { startRunLocked() }
        }
        return ending
    }

    /// Starts a run once the previous one has ended. Called with the lock held.
    private func startRunLocked() {
        let previous = lastRun
        let run = Task { [weak self] in
            await previous?.value
            guard !Task.isCancelled else { return }
            await self?.run()
        }
        task = run
        lastRun = run
    }

    /// Closes the stream while the app is in the background (`true`), keeping its
    /// subscribers; reopens it from the last event received when it comes back (`false`).
    /// Returns the run to stop, detached from the pump: the caller cancels it, outside any
    /// lock of its own (cancelling runs the transport's handlers), and waits for it.
    func setSuspended(_ isSuspended: Bool) -> Task<Void, Never>? {
        let stopping: Task<Void, Never>? = lock.withLock {
            suspended = isSuspended
            if isSuspended {
                // Not a network loss (none is told), but the stream is gone: back in the
                // foreground the provider is `connecting` again until it reconnects.
                connected = false
                defer { task = nil }
                return task
            }
            if task == nil, !subscribers.isEmpty { startRunLocked() }
            return nil
        }
        return stopping
    }

    /// Runs `observer` with every event, before subscribers see it, for as long as the pump
    /// lives. Observing does not start the pump.
    func observe(_ observer: @escaping @Sendable (PlatformEvent) -> Void) {
        lock.withLock { observers.append(observer) }
    }

    /// Hands an event the SDK makes itself (a call's provider state, an interruption the
    /// device detected) to every observer and subscriber, among the platform's.
    func emit(_ event: PlatformEvent) {
        deliver(event)
    }

    /// The pump stops with its last subscriber.
    private func unsubscribe(_ id: Int) {
        let idle: Task<Void, Never>? = lock.withLock {
            subscribers.removeValue(forKey: id)
            guard subscribers.isEmpty else { return nil }
            defer { task = nil }
            return task
        }
        idle?.cancel()
    }

    /// Publishes `network_connectivity_changed` (false on a loss, true on the recovery)
    /// and the provider state: `connected`, or `disconnected` then `connecting` again.
    private func connectionChanged(_ isConnected: Bool) {
        let changed: Bool = lock.withLock {
            defer {
                connected = isConnected
                everConnected = everConnected || isConnected
            }
            return isConnected ? everConnected && !connected : connected
        }
        if changed {
            deliver(PlatformEvent(name: ChatServiceEvent.Name.networkConnectivityChanged.rawValue, data: .bool(isConnected)))
        }
        if isConnected {
            providerStateChanged(.connected)
        } else {
            providerStateChanged(.disconnected)
            providerStateChanged(.connecting)
        }
    }

    /// Publishes `state_changed` with the provider's new state, unless it is the same. The
    /// state and the subscribers it goes to are read together: one that subscribes later
    /// gets it as its current state instead.
    private func providerStateChanged(_ state: ChatProviderState) {
        let listeners: Listeners? = lock.withLock {
            guard providerState != state else { return nil }
            providerState = state
            return (observers, subscribers.sorted { $0.key < $1.key }.map(\.value))
        }
        if let listeners { deliver(Self.stateEvent(state), to: listeners) }
    }

    private static func stateEvent(_ state: ChatProviderState) -> PlatformEvent {
        PlatformEvent(name: ChatServiceEvent.Name.stateChanged.rawValue, data: state.json)
    }

    private func deliver(_ event: PlatformEvent) {
        deliver(event, to: lock.withLock { (observers, Array(subscribers.values)) })
    }

    /// Who gets an event: the observers first, then the subscribers.
    private typealias Listeners = (observers: [@Sendable (PlatformEvent) -> Void], subscribers: [@Sendable (PlatformEvent) -> Void])

    private func deliver(_ event: PlatformEvent, to listeners: Listeners) {
        let (observers, subscribers) = listeners
        for observer in observers { observer(event) }
        for subscriber in subscribers { subscriber(event) }
        // Every reader that decodes on delivery has: a subscriber queueing the event itself
        // holds its text only, as its byte count says.
        event.forgetDecodedModel()
    }

    private func run() async {
        var lastID = lock.withLock { lastEventID }
        /// Failures since the last event (or the start).
        var failures = 0
        defer { providerStateChanged(.disconnected) }
        while !Task.isCancelled {
            let intake = EventIntake { [weak self] event in self?.tell(event) }
            let failure = await read(from: &lastID, into: intake)
            // What arrived before the stream ended is told before the next connection; a run
            // stopped meanwhile tells none of it.
            if Task.isCancelled { intake.stop() }
            intake.drain()
            if intake.hasTold { failures = 0 }
            lastID = lock.withLock { lastEventID } ?? lastID
            switch failure {
            case nil:
                continue
            case let error as CCAIError where error.status == 401:
                // The token expired or was revoked: renewed at once the first time.
                api.tokens.update(nil)
                failures += 1
                if failures > 1 { try? await http.clock.sleep(for: api.retryPolicy.streamDelay(afterFailures: failures - 1)) }
            case is CancellationError:
                return
            case let error?:
                // A run stopped while it signs in or connects ends quietly, not as an error.
                if Task.isCancelled { return }
                providerStateChanged(.error(message: (error as? any SDKError)?.message ?? error.localizedDescription))
                failures += 1
                try? await http.clock.sleep(for: api.retryPolicy.streamDelay(afterFailures: failures))
            }
        }
    }

    /// Signs in and reads the stream from after `lastID` (from the sign-in when nil, which
    /// it sets), handing its events to `intake`, until it ends; the error it ended with.
    /// Out of line, so that the run's own frame, which every instance keeps on its task
    /// for as long as it reads, is small.
    @inline(never)
    private func read(from lastID: inout String?, into intake: EventIntake) async -> (any Error)? {
        do {
            // Attempts after an error stay in that error until one connects: a failing
            // sign-in does not alternate connecting/error twice a second.
            let announcesConnecting = lock.withLock { () -> Bool in
                if case .error = providerState { return false }
                return !connected
            }
            if announcesConnecting { providerStateChanged(.connecting) }
            let token = try await api.validToken()
            // A new instance starts at its sign-in: earlier runs' events are theirs.
            if lastID == nil { lastID = api.streamStart }
            let source = eventSource(token: token, after: lastID)
            // A stream closed for the background hands on nothing more: the one that
            // reopens it starts after the last event told.
            try await withTaskCancellationHandler {
                try await source.read(flow: intake.flow) { intake.receive($0) }
            } onCancel: {
                intake.stop()
            }
            return nil
        } catch {
            return error
        }
    }

    /// The stream's source: its request with `token`, read from after `lastID`, telling the
    /// pump when a connection starts or drops.
    private func eventSource(token: String, after lastID: String?) -> EventSource {
        var request = HTTPClientRequest(url: api.url(of: Endpoints.events), headers: ["Authorization": "Bearer \(token)"])
        request.maximumResponseBytes = Endpoints.events.maximumResponseBytes
        return EventSource(client: http, request: request, reconnectDelay: 0.5, lastEventID: lastID,
                           onConnectionChange: { [weak self] connected in self?.connectionChanged(connected) })
    }

    /// Tells an event of the stream to the observers and subscribers; the stream resumes
    /// after it.
    private func tell(_ event: ServerSentEvent) {
        if let id = event.id { lock.withLock { lastEventID = id } }
        deliver(PlatformEvent(id: event.id, name: event.event, text: event.data))
    }
}

/// What one run of the pump reads from its stream, told in order off the transport's
/// thread (where the stream is read, for every stream of the process), by a short task
/// for what arrived together: observers and subscribers never hold the transport up. Once
/// the run is stopped nothing is told after the event under way, and a run ends only when
/// what it told is told.
private final class EventIntake: @unchecked Sendable {
    /// The stream's back-pressure: the connection is not read while more than its high
    /// water has arrived and is not yet told.
    let flow = StreamFlow(highWater: EventSource.flowHighWater, lowWater: EventSource.flowLowWater)
    /// What arrived, bounded by `flow` rather than by dropping.
    private let arrived = EventQueue<ServerSentEvent>(limit: .max)
    private let tell: @Sendable (ServerSentEvent) -> Void
    /// Held while events are told, so that two tellings never interleave: the run's last
    /// one waits for the one under way.
    private let telling = NSLock()
    private var toldAny = false
    /// Apart from `telling`, so that stopping (in a task's cancellation, whoever cancels)
    /// never waits for what is being told.
    private let stopping = NSLock()
    private var isStopped = false

    init(tell: @escaping @Sendable (ServerSentEvent) -> Void) {
        self.tell = tell
        arrived.wake = { [weak self] in
            guard let self else { return }
            Task { self.drain() }
        }
    }

    /// Whether an event was told.
    var hasTold: Bool { telling.withLock { toldAny } }

    /// An event the stream brought (on the transport's thread).
    func receive(_ event: ServerSentEvent) {
        arrived.push(event, bytes: event.byteCount)
    }

    /// Tells what arrived, in order, until nothing is left, unless the run was stopped.
    /// Events that arrive meanwhile are told by the same telling: no other task is started
    /// for them until it is over.
    func drain() {
        telling.withLock {
            while case let events = arrived.takeAll(), !events.isEmpty {
                for event in events {
                    flow.consumed(event.byteCount)
                    guard !stopping.withLock({ isStopped }) else { continue }
                    toldAny = true
                    tell(event)
                }
            }
        }
    }

    /// Tells nothing more after the event being told, if one is.
    func stop() {
        stopping.withLock { isStopped = true }
    }
}

/// Ends a subscription once: when its stream or inbox is dropped (deinit), its task
/// cancelled or its inbox closed.
final class SubscriptionEnd: @unchecked Sendable {
    private let lock = NSLock()
    private var action: (@Sendable () -> Void)?

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    deinit { action?() }

    func end() {
        let action = lock.withLock { () -> (@Sendable () -> Void)? in
            defer { self.action = nil }
            return self.action
        }
        action?()
    }
}
