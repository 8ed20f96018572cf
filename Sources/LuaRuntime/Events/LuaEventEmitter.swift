import CLua
import CLuaShim

/// A source of named events that Lua subscribes to with `on` and `wait_for`.
///
/// Every event goes to every `on` handler (each run in its own coroutine, so it may call
/// async functions) and to the oldest `wait_for` whose `match` accepts it; an event no
/// waiter took is kept in a bounded buffer per name for a later `wait_for`.
///
/// ```swift
/// let chat = context.makeEmitter(name: "ccai.chat", events: ["messages_received"])
/// context.setGlobal("chat", module: LuaModule(name: "chat").adding(chat))
/// chat.emit("messages_received", [["text": "hi"]])
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
    /// How many unclaimed events are kept per name; the oldest are dropped past it.
    public var bufferCapacity: Int
    /// Handler runs that failed.
    public private(set) var handlerErrorCount = 0
    /// Events dropped from a full buffer.
    public private(set) var droppedEventCount = 0

    weak var core: LuaCore?
    private var subscriptions: [String: [LuaEventSubscription]] = [:]
    private var buffers: [String: [[LuaValue]]] = [:]
    private var waiters: [String: [LuaTask]] = [:]

    init(name: String, events: Set<String>, bufferCapacity: Int, core: LuaCore) {
        self.name = name
        self.events = events
        self.bufferCapacity = bufferCapacity
        self.core = core
    }

    /// Delivers an event. Call it on the state's executor (inside
    /// ``LuaState/withContext(_:)`` or a binding); handlers run before it returns unless
    /// the state is already running Lua, in which case they run right after.
    public func emit(_ event: String, _ payload: [LuaValue] = []) {
        guard let core, !core.isClosed else { return }
        for subscription in subscriptions[event] ?? [] where !subscription.isCancelled {
            core.scheduler.enqueueHandler(subscription, payload: payload)
        }
        if !offerToWaiters(event, payload, core: core) {
            var buffer = buffers[event] ?? []
            buffer.append(payload)
            if buffer.count > bufferCapacity {
                buffer.removeFirst(buffer.count - bufferCapacity)
                droppedEventCount += 1
                core.diagnostics.warning(
                    "\(name): dropped the oldest '\(event)' event: more than \(bufferCapacity) unclaimed")
            }
            buffers[event] = buffer
        }
        core.scheduler.drain()
    }

    /// Gives the event to the oldest waiter that accepts it.
    private func offerToWaiters(_ event: String, _ payload: [LuaValue], core: LuaCore) -> Bool {
        for task in waiters[event] ?? [] {
            guard case .event(_, _, let match, _)? = task.suspension else { continue }
            switch accepts(match, payload, on: core.L) {
            case .success(true):
                core.scheduler.wake(task, .values(payload))
                return true
            case .success(false):
                continue
            case .failure(let error):
                core.scheduler.wake(task, .failure(error))
            }
        }
        return false
    }

    /// Runs a `match` function on the payload (it must not suspend).
    private func accepts(_ match: LuaReference?, _ payload: [LuaValue], on L: OpaquePointer)
        -> Result<Bool, LuaErrorValue>
    {
        guard let match else { return .success(true) }
        lua_checkstack(L, Int32(payload.count) + 2)
        match.push(on: L)
        let stack = LuaStack(L)
        for value in payload { stack.push(value) }
        guard lrt_pcall(L, Int32(payload.count), 1) == LUA_OK else {
            let message = stack.describe(at: -1)
            lrt_pop(L, 1)
            return .failure(.invalidArgument("the 'match' function of wait_for failed: \(message)"))
        }
        let accepted = lua_toboolean(L, -1) != 0
        lrt_pop(L, 1)
        return .success(accepted)
    }

    func addWaiter(_ task: LuaTask, for event: String) {
        waiters[event, default: []].append(task)
    }

    func removeWaiter(_ task: LuaTask, for event: String) {
        waiters[event]?.removeAll { $0 === task }
    }

    func handlerFailed(_ event: String, _ error: LuaScriptError) {
        handlerErrorCount += 1
        core?.diagnostics.handlerError("\(name).\(event)", error)
    }

    /// Cancels every subscription (the script that made them unloads).
    public func cancelAllSubscriptions() {
        for list in subscriptions.values { for subscription in list { subscription.isCancelled = true } }
        subscriptions = [:]
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

    /// `on(event, handler)`: subscribes; returns a subscription with `cancel()`.
    func on(_ call: LuaCall) throws -> LuaReturn {
        let event = try checkEventName(call)
        let handler = try call.function(2, "handler")
        let subscription = LuaEventSubscription(eventName: event, handler: handler, emitter: self)
        subscriptions[event, default: []].append(subscription)
        return call.returning { $0.push(subscription, as: LuaEventSubscription.luaType) }
    }

    /// `wait_for(event, { timeout = 30, match = fn })`: the oldest matching event.
    func waitFor(_ call: LuaCall) throws -> LuaReturn {
        let event = try checkEventName(call)
        let options = try call.options(2, "options")
        let timeout = try options.number("timeout") ?? 30
        guard timeout >= 0, timeout.isFinite else {
            throw call.argumentError(2, "options", "field 'timeout': a number of seconds >= 0 expected")
        }
        let match = try options.function("match")
        if var buffer = buffers[event] {
            for (index, payload) in buffer.enumerated() {
                switch accepts(match, payload, on: call.L) {
                case .success(true):
                    buffer.remove(at: index)
                    buffers[event] = buffer
                    return call.returning { output in for value in payload { output.push(value) } }
                case .success(false):
                    continue
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
    weak var emitter: LuaEventEmitter?
    var isCancelled = false

    init(eventName: String, handler: LuaReference, emitter: LuaEventEmitter) {
        self.eventName = eventName
        self.handler = handler
        self.emitter = emitter
    }

    static let luaType = LuaUserdataType<LuaEventSubscription>(
        name: "subscription",
        methods: [
            "cancel": { subscription, call in
                let wasActive = !subscription.isCancelled
                subscription.emitter?.cancel(subscription)
                return call.returning(.boolean(wasActive))
            }
        ],
        describe: { "subscription: \($0.eventName)\($0.isCancelled ? " (cancelled)" : "")" })
}

extension LuaEventEmitter {
    func cancel(_ subscription: LuaEventSubscription) {
        subscription.isCancelled = true
        subscriptions[subscription.eventName]?.removeAll { $0 === subscription }
    }
}
