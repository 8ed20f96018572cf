import CLua
import CLuaShim

/// A source of named events that Lua subscribes to with `on` and `wait_for`.
///
/// Every event goes to every `on` handler (each run in its own coroutine, so it may call
/// async functions) and to the oldest `wait_for` whose `match` accepts it; an event no
/// waiter took is kept in a bounded buffer per name for a later `wait_for`.
///
/// ```swift
/// let emitter = context.makeEmitter(name: "chat", events: ["messages_received"])
/// var chat = LuaModule(name: "chat")
/// chat.events(emitter)                                      // chat.on, chat.wait_for
/// context.setGlobal("chat", module: chat)
/// emitter.emit("messages_received", [["text": "hi"]])       // one value per event
/// ```
///
/// ```lua
/// chat.on("messages_received", function(messages) print(messages[1].text) end)
/// local messages = chat.wait_for("messages_received", { timeout = 5 })
/// ```
public final class LuaEventEmitter {
    /// The qualified name of the module it belongs to (`"ccai.chat"`).
    public let name: String
    /// The event names it emits; `on` and `wait_for` reject others.
    public let events: Set<String>
    /// How many unclaimed events are kept per name; the oldest are dropped past it, and past
    /// the state's budget of unclaimed event bytes (``LuaLimits/unclaimedEventBytes``).
    public var bufferCapacity: Int
    /// Called once, when a script first subscribes (`on`) or waits (`wait_for`): a service
    /// whose events cost something to receive starts receiving them then.
    public var whenFirstListenedTo: (() -> Void)?
    /// Handler runs that failed.
    public private(set) var handlerErrorCount = 0
    /// Events dropped from a full buffer.
    public private(set) var droppedEventCount = 0

    /// Valid while `isDetached` is false: the state detaches its emitters when it closes.
    unowned(unsafe) let core: LuaCore
    unowned(unsafe) let scheduler: LuaScheduler
    var isDetached = false
    /// Per event name: its subscriptions, unclaimed events and waiting tasks.
    private var channels: [String: Channel] = [:]
    /// What feeds the emitter its events, kept as long as the emitter (``keep(_:)``).
    private var sources: [AnyObject] = []
    /// How many `match` functions of its waits are running: `wait_for` is refused meanwhile.
    private var matching = 0

    /// Keeps `source` as long as the emitter lives: a subscription that feeds it events
    /// and ends when it is freed.
    public func keep(_ source: AnyObject) {
        sources.append(source)
    }

    final class Channel {
        /// Cancelled subscriptions stay (marked) while a delivery runs, so that indices
        /// never shift under it; they are removed once no delivery is in progress.
        private(set) var subscriptions: [LuaEventSubscription] = []
        /// The handlers' registry slots and cancellation flags, parallel to
        /// `subscriptions`: plain values, so delivering touches no reference counts.
        private var handlerSlots: [Int32] = []
        private var cancelled: [Bool] = []
        private var deliveries = 0
        private var hasCancelled = false
        var buffer = LuaEventBuffer()
        /// The bytes of `buffer`'s events (``LuaKeptEvent/heldBytes``).
        var bufferedBytes = 0
        /// Events dropped from the buffer, unclaimed.
        var dropped = 0
        /// Drops are reported at the first, then every thousandth.
        var nextDropWarning = 1
        var waiters: [LuaTask] = []

        /// Runs every subscription that existed when the event arrived.
        func deliver(_ payload: LuaValue, scheduler: LuaScheduler) {
            let count = handlerSlots.count
            guard count > 0 else { return }
            deliveries += 1
            for index in 0..<count where !cancelled[index] {
                scheduler.runHandler(handlerSlots[index], payload: payload, channel: self, index: index)
            }
            deliveries -= 1
            compactIfIdle()
        }

        /// Whether a handler would run for an event now.
        var hasHandlers: Bool { !handlerSlots.isEmpty }

        func subscription(at index: Int) -> LuaEventSubscription { subscriptions[index] }

        func add(_ subscription: LuaEventSubscription) {
            subscriptions.append(subscription)
            handlerSlots.append(subscription.handlerSlot)
            cancelled.append(false)
        }

        /// Drops the kept events, and cancels the subscriptions made in round `first` or later.
        func beginRound(cancellingFrom first: Int, core: LuaCore) {
            buffer.removeAll()
            core.releaseEventBytes(bufferedBytes)
            bufferedBytes = 0
            for subscription in subscriptions where subscription.round >= first && !subscription.isCancelled { cancel(subscription) }
        }

        func cancel(_ subscription: LuaEventSubscription) {
            subscription.isCancelled = true
            if let index = subscriptions.firstIndex(where: { $0 === subscription }) { cancelled[index] = true }
            hasCancelled = true
            compactIfIdle()
        }

        private func compactIfIdle() {
            guard hasCancelled, deliveries == 0 else { return }
            subscriptions.removeAll { $0.isCancelled }
            handlerSlots = subscriptions.map(\.handlerSlot)
            cancelled = Array(repeating: false, count: subscriptions.count)
            hasCancelled = false
        }
    }

    init(name: String, events: Set<String>, bufferCapacity: Int, core: LuaCore) {
        self.name = name
        self.events = events
        self.bufferCapacity = bufferCapacity
        self.core = core
        self.scheduler = core.scheduler
        core.emitters.append(self)
    }

    /// The channel emitted last, to skip hashing the name on a stream of one event.
    private var lastEvent = ""
    private unowned(unsafe) var lastChannel: Channel?

    @inline(__always)
    private func channel(_ event: String) -> Channel {
        if lastEvent == event, let last = lastChannel { return last }
        let channel = channels[event] ?? Channel()
        channels[event] = channel
        lastEvent = event
        lastChannel = channel
        return channel
    }

    /// Delivers an event (one value, as a publisher's output). Call it on the state's
    /// executor (inside ``LuaState/withContext(_:)`` or a binding); handlers run before it
    /// returns unless the state is already running its tasks, in which case they run
    /// right after.
    public func emit(_ event: String, _ payload: LuaValue = .nil) {
        guard !isDetached else { return }
        deliver(payload, to: event, channel(event))
    }

    /// Delivers an event whose value `make` makes when one is needed: at once when a
    /// handler or a `wait_for` is there to take it; else the event is kept as `make`, and
    /// made only if a later `wait_for` looks at it (in that script's time). Most events of a
    /// state nobody listens to, and those never become tables. `bytes` is the size the
    /// event arrived as; kept unmade, it is counted at ``deferredCharge`` times that, about
    /// what its table would hold (and more than the model `make` keeps), then at its
    /// table's size once made.
    public func emit(_ event: String, bytes: Int, making make: @escaping () -> LuaValue) {
        guard !isDetached else { return }
        let channel = channel(event)
        guard !channel.hasHandlers, channel.waiters.isEmpty else { return deliver(make(), to: event, channel) }
        keep(.deferred(make, bytes: min(max(bytes, 0), Int.max / Self.deferredCharge) * Self.deferredCharge), of: event, in: channel)
        scheduler.drain()
    }

    /// How many times the bytes it arrived as an event kept unmade counts for.
    public static let deferredCharge = 4

    private func deliver(_ payload: LuaValue, to event: String, _ channel: Channel) {
        channel.deliver(payload, scheduler: scheduler)
        if channel.waiters.isEmpty || !offerToWaiters(channel, payload, core: core) {
            keep(.made(payload, bytes: payload.heldBytes), of: event, in: channel)
        }
        scheduler.drain()
    }

    /// Keeps an event no one took for a later `wait_for`, its bytes counted against the
    /// state's memory; past the channel's capacity or the state's budget of unclaimed
    /// bytes, the oldest are dropped.
    private func keep(_ kept: LuaKeptEvent, of event: String, in channel: Channel) {
        let size = kept.heldBytes
        channel.buffer.append(kept)
        channel.bufferedBytes += size
        core.holdEventBytes(size)
        if channel.buffer.count > bufferCapacity {
            dropOldest(event, channel, because: "more than \(bufferCapacity) events nobody waited for")
        }
        keepWithinBudget()
    }

    /// Drops the state's oldest unclaimed events, those of the name holding the most bytes
    /// first, until they are within the state's budget.
    private func keepWithinBudget() {
        while core.unclaimedEventBytes > core.unclaimedEventLimit, let (owner, name, fullest) = core.fullestEventChannel() {
            owner.dropOldest(name, fullest, because: "the state's unclaimed events are over "
                + "\(LuaLimits.formatBytes(core.unclaimedEventLimit))")
        }
    }

    /// Drops the oldest unclaimed event of `channel`, counted (``droppedEventCount``, the
    /// diagnostics' `eventDropped`) and reported at the first drop, then every thousandth.
    func dropOldest(_ event: String, _ channel: Channel, because reason: String) {
        guard let oldest = channel.buffer.removeFirst() else { return }
        let size = oldest.heldBytes
        channel.bufferedBytes -= size
        core.releaseEventBytes(size)
        droppedEventCount += 1
        channel.dropped += 1
        core.diagnostics.eventDropped("\(name).\(event)")
        if channel.dropped >= channel.nextDropWarning {
            channel.nextDropWarning = channel.dropped < 1_000 ? 1_000 : channel.dropped + 1_000
            core.diagnostics.warning("\(name): dropped the oldest '\(event)' event (\(channel.dropped) so far): \(reason)")
        }
    }

    /// The channel holding the most bytes of unclaimed events, with its event's name.
    func fullestChannel() -> (name: String, channel: Channel)? {
        channels.filter { $0.value.buffer.count > 0 }.max { $0.value.bufferedBytes < $1.value.bufferedBytes }
            .map { ($0.key, $0.value) }
    }

    /// Gives the event to the oldest waiter that accepts it.
    private func offerToWaiters(_ channel: Channel, _ payload: LuaValue, core: LuaCore) -> Bool {
        for task in channel.waiters {
            guard case .event(_, _, let match, _)? = task.suspension else { continue }
            switch accepts(match, payload, on: core.L) {
            case .success(true):
                core.scheduler.wake(task, .values([payload]))
                return true
            case .success(false):
                continue
            case .failure(let error):
                core.scheduler.wake(task, .failure(error))
            }
        }
        return false
    }

    /// The value of the kept event at `index`, made now if it was not yet, and kept made,
    /// counted at its table's size from then on. A table larger than the event was counted
    /// for may put the state's unclaimed events over their budget: the oldest are then
    /// dropped, as when an event arrives; `index` follows the event as older ones of its
    /// name go, and nil says it went itself (`index` is then the next event's).
    private func made(at index: inout Int, in channel: Channel) -> LuaValue? {
        let (make, bytes): (() -> LuaValue, Int)
        switch channel.buffer[index] {
        case .made(let value, _): return value
        case .deferred(let maker, let charged): (make, bytes) = (maker, charged)
        }
        let value = make()
        let size = value.heldBytes
        channel.buffer[index] = .made(value, bytes: size)
        channel.bufferedBytes += size - bytes
        guard size > bytes else {
            core.releaseEventBytes(bytes - size)
            return value
        }
        core.holdEventBytes(size - bytes)
        // Drops from a channel are always its oldest.
        let droppedBefore = channel.dropped
        keepWithinBudget()
        let gone = channel.dropped - droppedBefore
        guard gone <= index else {
            index = 0
            return nil
        }
        index -= gone
        return value
    }

    /// Runs a `match` function on the payload (it must not suspend).
    private func accepts(_ match: LuaReference?, _ payload: LuaValue, on L: OpaquePointer)
        -> Result<Bool, LuaErrorValue>
    {
        guard let match else { return .success(true) }
        lua_checkstack(L, 3)
        match.push(on: L)
        let stack = LuaStack(L)
        stack.push(payload)
        matching += 1
        let status = lrt_pcall(L, 1, 1)
        matching -= 1
        guard status == LUA_OK else {
            let message = stack.describe(at: -1)
            lrt_pop(L, 1)
            return .failure(.invalidArgument("the 'match' function of wait_for failed: \(message)"))
        }
        let accepted = lua_toboolean(L, -1) != 0
        lrt_pop(L, 1)
        return .success(accepted)
    }

    /// A new round of events begins (``LuaContext/beginEventRound()``).
    func beginRound(cancellingFrom first: Int) {
        for channel in channels.values { channel.beginRound(cancellingFrom: first, core: core) }
    }

    func addWaiter(_ task: LuaTask, for event: String) {
        channel(event).waiters.append(task)
    }

    func removeWaiter(_ task: LuaTask, for event: String) {
        channels[event]?.waiters.removeAll { $0 === task }
    }

    func handlerFailed(_ event: String, _ error: LuaScriptError) {
        handlerErrorCount += 1
        core.diagnostics.handlerError("\(name).\(event)", error)
    }

    // MARK: - The Lua side

    private func checkEventName(_ call: LuaCall) throws -> String {
        let event = try call.string(1, "event")
        guard events.contains(event) else {
            throw call.argumentError(1, "event", "unknown event '\(event)' of \(name); expected one of: "
                + events.sorted().joined(separator: ", "))
        }
        return event
    }

    /// Runs ``whenFirstListenedTo`` the first time.
    private func listened() {
        guard let first = whenFirstListenedTo else { return }
        whenFirstListenedTo = nil
        first()
    }

    /// `on(event, handler)`: subscribes; returns a subscription with `cancel()`.
    func on(_ call: LuaCall) throws -> LuaReturn {
        let event = try checkEventName(call)
        listened()
        let handler = try call.function(2, "handler")
        let subscription = LuaEventSubscription(eventName: event, handler: handler, emitter: self, round: core.eventRound)
        channel(event).add(subscription)
        return call.returning { $0.push(subscription, as: LuaEventSubscription.luaType) }
    }

    /// `wait_for(event, { timeout = 30, match = fn })`: the oldest matching event.
    func waitFor(_ call: LuaCall) throws -> LuaReturn {
        // It would take kept events from under the search that runs the match.
        guard matching == 0 else { throw LuaErrorValue.invalidArgument("wait_for cannot be called from a match function") }
        let event = try checkEventName(call)
        listened()
        let options = try call.options(2, "options")
        let timeout = try options.number("timeout") ?? 30
        guard timeout >= 0, timeout.isFinite else {
            throw call.argumentError(2, "options", "field 'timeout': a number of seconds >= 0 expected")
        }
        let match = try options.function("match")
        if let channel = channels[event] {
            // By index, each made as it is looked at. Nothing else changes the buffer
            // meanwhile: events reach a state by posted work, never during a call, and a
            // `match` cannot call `wait_for` (``matching``).
            var index = 0
            while index < channel.buffer.count {
                guard let payload = made(at: &index, in: channel) else { continue }
                switch accepts(match, payload, on: call.L) {
                case .success(true):
                    if index < channel.buffer.count {
                        let size = channel.buffer.remove(at: index).heldBytes
                        channel.bufferedBytes -= size
                        core.releaseEventBytes(size)
                    }
                    return call.returning(payload)
                case .success(false):
                    index += 1
                case .failure(let error):
                    throw error
                }
            }
        }
        return try call.suspend(.event(self, name: event, match: match, timeout: timeout))
    }
}

/// One `on` subscription. It lives until cancelled, never collected while its script lives.
final class LuaEventSubscription {
    let eventName: String
    let handler: LuaReference
    /// The handler's registry slot, read on every event without touching `handler`.
    let handlerSlot: Int32
    /// Unowned: the state keeps its emitters alive until it closes, and Lua code (the
    /// only caller of `cancel`) cannot run after that.
    unowned(unsafe) let emitter: LuaEventEmitter
    /// The round of events it was made in (``LuaContext/beginEventRound()``).
    let round: Int
    var isCancelled = false

    init(eventName: String, handler: LuaReference, emitter: LuaEventEmitter, round: Int) {
        self.round = round
        self.eventName = eventName
        self.handler = handler
        self.handlerSlot = handler.id
        self.emitter = emitter
    }

    static let luaType = LuaUserdataType<LuaEventSubscription>(
        name: "subscription",
        methods: [
            "cancel": { subscription, call in
                let wasActive = !subscription.isCancelled
                subscription.emitter.cancel(subscription)
                return call.returning(.boolean(wasActive))
            }
        ],
        describe: { "subscription: \($0.eventName)\($0.isCancelled ? " (cancelled)" : "")" })
}

extension LuaEventEmitter {
    func cancel(_ subscription: LuaEventSubscription) {
        channels[subscription.eventName]?.cancel(subscription)
    }
}

/// An event kept for `wait_for`: its value, or what makes it (``LuaEventEmitter/emit(_:bytes:making:)``).
enum LuaKeptEvent {
    /// A value, with its size (``LuaValue/heldBytes``, a walk of the whole value: once).
    case made(LuaValue, bytes: Int)
    /// What makes it, with what it is counted as until then.
    case deferred(() -> LuaValue, bytes: Int)

    /// What it is counted as among the state's unclaimed events.
    var heldBytes: Int {
        switch self {
        case .made(_, let bytes), .deferred(_, let bytes): bytes
        }
    }
}

/// Events kept for `wait_for`, oldest first, in a ring. (Raw storage: this sits on the
/// path of every event.)
struct LuaEventBuffer: ~Copyable {
    private var storage: UnsafeMutablePointer<LuaKeptEvent>
    private var allocated: Int
    private var start = 0
    private(set) var count = 0

    /// Empty: room is made with the first event (most channels of a state keep none), for
    /// two, then doubled (those that keep some mostly keep one or two a round).
    init() {
        allocated = 0
        storage = .allocate(capacity: 0)
    }

    deinit {
        elementsInPlace { $0.deinitialize(count: 1) }
        storage.deallocate()
    }

    private func elementsInPlace(_ body: (UnsafeMutablePointer<LuaKeptEvent>) -> Void) {
        for offset in 0..<count { body(storage + slot(offset)) }
    }

    /// Where the element `offset` from the oldest is.
    private func slot(_ offset: Int) -> Int {
        let index = start + offset
        return index >= allocated ? index - allocated : index
    }

    /// The event `index` from the oldest (below ``count``).
    subscript(index: Int) -> LuaKeptEvent {
        get { storage[slot(index)] }
        set { storage[slot(index)] = newValue }
    }

    /// Appends `event` (the caller keeps the count within its capacity).
    @inline(__always)
    mutating func append(_ event: LuaKeptEvent) {
        if count == allocated { grow() }
        (storage + slot(count)).initialize(to: event)
        count += 1
    }

    /// Removes and returns the oldest event.
    mutating func removeFirst() -> LuaKeptEvent? {
        guard count > 0 else { return nil }
        let oldest = (storage + start).move()
        start += 1
        if start == allocated { start = 0 }
        count -= 1
        return oldest
    }

    private mutating func grow() {
        let size = max(allocated * 2, 2)
        let bigger = UnsafeMutablePointer<LuaKeptEvent>.allocate(capacity: size)
        var moved = 0
        elementsInPlace { element in
            (bigger + moved).moveInitialize(from: element, count: 1)
            moved += 1
        }
        storage.deallocate()
        storage = bigger
        allocated = size
        start = 0
    }

    /// Drops every event.
    mutating func removeAll() {
        elementsInPlace { $0.deinitialize(count: 1) }
        count = 0
        start = 0
    }

    /// Removes and returns the element at `index` counted from the oldest (below
    /// ``count``); the newer ones move up.
    mutating func remove(at index: Int) -> LuaKeptEvent {
        let removed = (storage + slot(index)).move()
        for offset in index..<(count - 1) {
            (storage + slot(offset)).moveInitialize(from: storage + slot(offset + 1), count: 1)
        }
        count -= 1
        return removed
    }
}
