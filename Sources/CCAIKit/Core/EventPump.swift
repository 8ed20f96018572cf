import CCAIWire
import Foundation
import Timekeeping

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
    /// The run reading the stream, while one is.
    private var run: EventStreamRun?
    /// The last run started, stopped or not: the next waits for it to end, so that two
    /// runs never overlap (one's late event or state cannot follow the next's).
    private var lastRun: EventStreamRun?
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

    deinit { run?.stop() }

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
            if run == nil, !suspended { startRunLocked() }
        }
        return ending
    }

    /// Starts a run once the previous one has ended. Called with the lock held.
    private func startRunLocked() {
        let next = EventStreamRun(pump: self)
        next.start(after: lastRun)
        run = next
        lastRun = next
    }

    /// Closes the stream while the app is in the background (`true`), keeping its
    /// subscribers; reopens it from the last event received when it comes back (`false`).
    /// Returns the run to stop, detached from the pump: the caller stops it, outside any
    /// lock of its own (stopping runs the transport's handlers), and waits for it to end.
    func setSuspended(_ isSuspended: Bool) -> EventStreamRun? {
        let stopping: EventStreamRun? = lock.withLock {
            suspended = isSuspended
            if isSuspended {
                // Not a network loss (none is told), but the stream is gone: back in the
                // foreground the provider is `connecting` again until it reconnects.
                connected = false
                defer { run = nil }
                return run
            }
            if run == nil, !subscribers.isEmpty { startRunLocked() }
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
        let idle: EventStreamRun? = lock.withLock {
            subscribers.removeValue(forKey: id)
            guard subscribers.isEmpty else { return nil }
            defer { run = nil }
            return run
        }
        idle?.stop()
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
    fileprivate func providerStateChanged(_ state: ChatProviderState) {
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

    /// The last event received, where a new run resumes (nil: at the sign-in's start).
    fileprivate var resumeID: String? { lock.withLock { lastEventID } }

    /// Announces `connecting` before an attempt, unless the last attempt failed: attempts
    /// after an error stay in that error until one connects, so that a failing sign-in
    /// does not alternate connecting/error twice a second.
    fileprivate func announceConnecting() {
        let announces = lock.withLock { () -> Bool in
            if case .error = providerState { return false }
            return !connected
        }
        if announces { providerStateChanged(.connecting) }
    }

    /// The stream's source: its request with `token`, read from after `lastID`, telling the
    /// pump when a connection starts or drops.
    fileprivate func eventSource(token: String, after lastID: String?) -> EventSource {
        var request = HTTPClientRequest(url: api.url(of: Endpoints.events), headers: ["Authorization": "Bearer \(token)"])
        request.maximumResponseBytes = Endpoints.events.maximumResponseBytes
        return EventSource(client: http, request: request, reconnectDelay: 0.5, lastEventID: lastID,
                           onConnectionChange: { [weak self] connected in self?.connectionChanged(connected) })
    }

    /// Tells an event of the stream to the observers and subscribers; the stream resumes
    /// after it.
    fileprivate func tell(_ event: ServerSentEvent) {
        if let id = event.id { lock.withLock { lastEventID = id } }
        deliver(PlatformEvent(id: event.id, name: event.event, text: event.data))
    }

    fileprivate var apiClient: APIClient { api }
    fileprivate var clock: any TimeSource { http.clock }
}

/// One run of an ``EventPump``: it signs in and reads the stream, reconnecting, until it is
/// stopped. Nothing waits while the stream is open, one for each VU of a run: a short task
/// signs in and opens a connection, the transport tells the run when the connection ends,
/// and a timer of the clock starts the next one. What arrived before a failure is told
/// before the next attempt; a stopped run tells nothing more after the event under way and
/// ends once what it told is told. A connection starting or dropping is told (as the
/// provider's state and `network_connectivity_changed`) on the transport's thread, as the
/// transport detects it. Retries follow ``RetryPolicy/streamDelay(afterFailures:jitter:)``:
/// a refused token is renewed at once the first time, then backing off, so that a platform
/// refusing every token cannot make the host sign in a loop.
final class EventStreamRun: @unchecked Sendable {
    private weak var pump: EventPump?
    private let lock = NSLock()
    /// Who moves the run on: one step at a time, so that stopping knows whether it must end
    /// the run itself.
    private enum Phase {
        /// A task or an open connection: it ends the run once it sees it stopped.
        case working
        /// Only the timer of wait number `id` (nil until it is scheduled), until it fires.
        case waiting(id: Int, timer: ClockTimer?)
        case ended
    }
    private var phase = Phase.working
    private var waits = 0
    private var isStopped = false
    /// The open connection, and the number of the last one opened and the last one ended.
    private var connection: (any OpenStream)?
    private var opened = 0
    private var closed = 0
    /// The current attempt's: the source (its token), what it reads into, and where it resumes.
    private var source: EventSource?
    private var intake: EventIntake?
    private var reconnection = EventSource.Reconnection(lastEventID: nil, delay: 0)
    /// The last event told, or the sign-in's start; failures since the last event (or the start).
    private var lastID: String?
    private var failures = 0
    private var ended = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    fileprivate init(pump: EventPump) {
        self.pump = pump
    }

    /// Starts once `previous` has ended.
    fileprivate func start(after previous: EventStreamRun?) {
        Task {
            await previous?.finished()
            lastID = pump?.resumeID
            await attempt()
        }
    }

    /// Stops the run: nothing more is told after the event being told, if one is, and the
    /// connection or the wait under way ends. ``finished()`` returns once it has.
    func stop() {
        let (intake, connection, waiting) = lock.withLock { () -> (EventIntake?, (any OpenStream)?, ClockTimer??) in
            isStopped = true
            guard case .waiting(_, let timer) = phase else { return (self.intake, self.connection, nil) }
            phase = .working
            return (self.intake, nil, .some(timer))
        }
        intake?.stop()
        connection?.cancel()
        if let waiting {
            // Only a timer was moving the run on: the run ends here.
            waiting?.cancel()
            finishLater()
        }
    }

    /// Returns once the run has ended.
    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = lock.withLock { () -> Bool in
                if !ended { waiters.append(continuation) }
                return ended
            }
            if done { continuation.resume() }
        }
    }

    private var stopped: Bool { lock.withLock { isStopped } }

    /// Signs in and opens the stream from after `lastID` (from the sign-in when nil).
    private func attempt() async {
        guard let pump, !stopped else { return finish() }
        pump.announceConnecting()
        let token: String
        do {
            token = try await pump.apiClient.validToken()
        } catch {
            // This attempt told nothing: the last one's intake does not reset the backoff.
            lock.withLock {
                self.source = nil
                self.intake = nil
            }
            return await failed(error)
        }
        // A new instance starts at its sign-in: earlier runs' events are theirs.
        if lastID == nil { lastID = pump.apiClient.streamStart }
        let source = pump.eventSource(token: token, after: lastID)
        let intake = EventIntake { [weak pump] event in pump?.tell(event) }
        lock.withLock {
            self.source = source
            self.intake = intake
            reconnection = EventSource.Reconnection(lastEventID: lastID, delay: source.reconnectDelay)
        }
        connect()
    }

    /// Opens a connection of the current attempt's source.
    private func connect() {
        let opening = lock.withLock { () -> (EventSource, EventIntake, String?)? in
            guard !isStopped, let source, let intake else { return nil }
            return (source, intake, reconnection.lastEventID)
        }
        guard let (source, intake, resumeID) = opening else { return finishLater() }
        let number = lock.withLock { () -> Int in
            opened += 1
            return opened
        }
        let stream = source.connect(after: resumeID, flow: intake.flow, handle: { intake.receive($0) }) { [self] end in
            connectionEnded(number, end)
        }
        // Kept unless it has already ended (a transport may tell the end before `connect` returns).
        let cancelNow = lock.withLock { () -> Bool in
            if closed != number { connection = stream }
            return isStopped
        }
        if cancelNow { stream.cancel() }
    }

    /// A connection ended (on the transport's thread): the next is opened after the wait a
    /// dropped one asks for; a failure is handled in a task, off the transport.
    private func connectionEnded(_ number: Int, _ end: EventSource.ConnectionEnd) {
        lock.withLock {
            closed = number
            connection = nil
        }
        switch end {
        case .dropped(let record):
            let wait = lock.withLock { reconnection.wait(after: record) }
            self.wait(wait) { [self] in connect() }
        case .cancelled:
            finishLater()
        case .failed(let error):
            Task { await failed(error) }
        }
    }

    /// What the attempt's source ended with: what arrived is told, then the next attempt is
    /// made, at once or after a wait.
    private func failed(_ error: any Error) async {
        let (intake, isStopped) = lock.withLock { (self.intake, self.isStopped) }
        if let intake {
            // What arrived before the stream ended is told before the next connection; a run
            // stopped meanwhile tells none of it.
            if isStopped { intake.stop() }
            intake.drain()
            if intake.hasTold { failures = 0 }
        }
        guard let pump else { return finish() }
        lastID = pump.resumeID ?? lastID
        let wait: TimeInterval
        switch error {
        case let error as CCAIError where error.status == 401:
            // The token expired or was revoked: renewed at once the first time.
            pump.apiClient.tokens.update(nil)
            failures += 1
            wait = failures > 1 ? pump.apiClient.retryPolicy.streamDelay(afterFailures: failures - 1) : 0
        case is CancellationError:
            return finish()
        default:
            // A run stopped while it signs in or connects ends quietly, not as an error.
            if stopped { return finish() }
            pump.providerStateChanged(.error(message: (error as? any SDKError)?.message ?? error.localizedDescription))
            failures += 1
            wait = pump.apiClient.retryPolicy.streamDelay(afterFailures: failures)
        }
        guard wait > 0 else { return await attempt() }
        self.wait(wait) { [self] in
            Task { await attempt() }
        }
    }

    /// Moves the run on with `next` after `seconds` of the pump's clock, unless it is
    /// stopped first (stopping ends it then). The clock is never called under the lock: a
    /// timer may fire before `schedule` returns.
    private func wait(_ seconds: TimeInterval, then next: @escaping @Sendable () -> Void) {
        let number = lock.withLock { () -> Int? in
            guard !isStopped, pump != nil else { return nil }
            waits += 1
            phase = .waiting(id: waits, timer: nil)
            return waits
        }
        guard let number, let clock = pump?.clock else { return finishLater() }
        let timer = clock.schedule(after: seconds) { [self] in
            let goes = lock.withLock { () -> Bool in
                guard case .waiting(let id, _) = phase, id == number, !isStopped else { return false }
                phase = .working
                return true
            }
            if goes { next() }
        }
        // Kept while the wait is on. Once it has fired, or the run was stopped meanwhile, the
        // timer is released here, which cancels it if it has not fired.
        lock.withLock {
            guard case .waiting(let id, let held) = phase, id == number, held == nil else { return }
            phase = .waiting(id: number, timer: timer)
        }
    }

    /// Ends the run in a task, off the transport's thread.
    private func finishLater() {
        Task { finish() }
    }

    /// Ends the run once: what was told is told, the provider is `disconnected`, and those
    /// waiting for the end go on.
    private func finish() {
        let finishing = lock.withLock { () -> EventIntake?? in
            if case .ended = phase { return nil }
            phase = .ended
            return .some(intake)
        }
        guard let finishing else { return }
        finishing?.stop()
        finishing?.drain()
        pump?.providerStateChanged(.disconnected)
        let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            ended = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume() }
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
