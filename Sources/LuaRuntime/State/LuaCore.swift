import CLua
import CLuaShim
import Foundation
import Timekeeping

/// Installs the one C-to-Swift dispatcher the trampolines call (once per process).
private let dispatchInstalled: Void = {
    lrt_set_dispatch { state, box in
        Unmanaged<LuaFunctionBox>.fromOpaque(box!)._withUnsafeGuaranteedRef { $0.invoke(state!) }
    }
}()

/// The owner of one `lua_State`. Only its ``LuaState`` actor touches it, and the C
/// callbacks it runs synchronously on that actor's executor.
final class LuaCore {
    let L: OpaquePointer
    let context: UnsafeMutablePointer<lrt_context>
    private(set) var limits: LuaLimits
    weak var owner: LuaState?
    var diagnostics: LuaDiagnostics
    /// The time of `sleep`, of timeouts, of `os.time()` and `os.date()`.
    let clock: any TimeSource
    /// The time of the wall-clock budget: `clock` unless the host gave another (the real
    /// time, under a simulation whose clock stands still while a script spins).
    let budgetClock: any TimeSource

    /// Function boxes stay alive as long as the state: Lua holds unretained pointers.
    private var boxes: [LuaFunctionBox] = []
    private var metatables: [String: Int32] = [:]
    private(set) var errorMetatable: Int32 = LUA_NOREF
    let scheduler = LuaScheduler()
    /// The suspension requested by the binding that just asked its coroutine to yield.
    var pendingSuspension: LuaSuspension?
    /// Modules `require` returns by name, before it searches files.
    var hostModules: [String: LuaReference] = [:]
    /// Values the host keeps by name (a plugin's spec, say), to call into later.
    var keptValues: [String: LuaReference] = [:]
    /// Host objects kept with the state, one per type (``LuaContext/attach(_:)``).
    var attachments: [ObjectIdentifier: Any] = [:]
    /// What the state's lazy tables not filled yet become, by id (``LuaModuleTables``);
    /// the registry references of the table from each lazy table to its id and of their
    /// shared metatable.
    var lazyTables: [Int: LuaLazyTable] = [:]
    private var lastLazyTable = 0
    var lazyIndex: Int32?
    var lazyMetatable: Int32?

    /// Keeps what the lazy table about to be made becomes; returns its id.
    func addLazyTable(_ lazy: LuaLazyTable) -> Int {
        lastLazyTable += 1
        lazyTables[lastLazyTable] = lazy
        return lastLazyTable
    }
    /// Emitters made for this state; detached when it closes.
    var emitters: [LuaEventEmitter] = []
    /// Bytes of events kept for a later `wait_for` (``LuaKeptEvent/heldBytes``), over every
    /// emitter: counted in the state's memory, and at most ``unclaimedEventLimit``.
    private(set) var unclaimedEventBytes = 0
    var unclaimedEventLimit: Int { limits.unclaimedEventBytes }

    /// Counts `bytes` of kept events in the state's memory (so Lua has that much less).
    func holdEventBytes(_ bytes: Int) {
        unclaimedEventBytes += bytes
        context.pointee.memory_used &+= size_t(bytes)
    }

    func releaseEventBytes(_ bytes: Int) {
        unclaimedEventBytes -= bytes
        context.pointee.memory_used &-= size_t(bytes)
    }

    /// The emitter's channel holding the most bytes of kept events.
    func fullestEventChannel() -> (LuaEventEmitter, String, LuaEventEmitter.Channel)? {
        var fullest: (LuaEventEmitter, String, LuaEventEmitter.Channel)?
        for emitter in emitters where !emitter.isDetached {
            guard let (name, channel) = emitter.fullestChannel() else { continue }
            if fullest == nil || channel.bufferedBytes > fullest!.2.bufferedBytes { fullest = (emitter, name, channel) }
        }
        return fullest
    }
    /// The round of events `on` subscriptions are made in (``LuaContext/beginEventRound()``).
    var eventRound = 0
    /// The confinement's function making read-only views of tables.
    var readOnlyProxy: LuaReference?
    let lifetime: LuaLifetime
    var isClosed: Bool { lifetime.isClosed }
    /// The shared budget the state counts its bytes in, kept alive as long as the state.
    private let pool: LuaMemoryPool?

    init(limits: LuaLimits, diagnostics: LuaDiagnostics, clock: any TimeSource = SystemClock(),
         budgetClock: (any TimeSource)? = nil) throws {
        _ = dispatchInstalled
        context = .allocate(capacity: 1)
        context.initialize(to: lrt_context())
        LuaCore.configure(context, limits)
        // The pool is joined once, for the state's life: its bytes are counted against it
        // until the state is closed (the pool outlives it: `pool` keeps it).
        pool = limits.pool
        context.pointee.pool = limits.pool?.pointer
        guard let state = lrt_newstate(context) else {
            context.deallocate()
            throw LuaScriptError(kind: .memory, message: "cannot create a Lua state")
        }
        L = state
        lifetime = LuaLifetime(state)
        self.limits = limits
        self.diagnostics = diagnostics
        self.clock = clock
        self.budgetClock = budgetClock ?? clock
        context.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
        if !(self.budgetClock is SystemClock) {
            // The budget's hook reads this clock; the system clock's monotonic time is read in C.
            context.pointee.clock = { owner in
                Unmanaged<LuaCore>.fromOpaque(owner!).takeUnretainedValue().budgetClock.now().timeIntervalSinceReferenceDate
            }
        }
        if !(clock is SystemClock) {
            context.pointee.now = { owner in
                Unmanaged<LuaCore>.fromOpaque(owner!).takeUnretainedValue().clock.now().timeIntervalSince1970
            }
        }
        errorMetatable = makeErrorMetatable()
        storeLimitErrors()
        scheduler.core = self
    }

    deinit {
        close()
        context.deallocate()
    }

    /// Closes the state: finalizers run, every task ends, no call is possible afterwards.
    func close() {
        guard !isClosed else { return }
        scheduler.cancelAll()
        for emitter in emitters { emitter.isDetached = true }
        emitters = []
        lifetime.isClosed = true
        lua_close(L)
        boxes.removeAll()
        attachments.removeAll()
    }

    /// Changes the budgets of a running state.
    func apply(_ limits: LuaLimits) {
        self.limits = limits
        LuaCore.configure(context, limits)
        lrt_reset_hook(L)
        storeLimitErrors()
    }

    private static func configure(_ context: UnsafeMutablePointer<lrt_context>, _ limits: LuaLimits) {
        context.pointee.memory_limit = limits.memoryBytes > 0 ? size_t(limits.memoryBytes) : 0
        context.pointee.instruction_limit = Int64(max(limits.instructions, 0))
        context.pointee.time_limit = max(limits.seconds, 0)
        context.pointee.hook_interval = Int32(max(1, min(limits.checkInterval, 1_000_000)))
    }

    // MARK: - Function boxes

    /// Pushes a Lua function that runs `body`.
    func pushFunction(_ qualifiedName: String, _ body: @escaping LuaFunctionBody) {
        let box = LuaFunctionBox(qualifiedName: qualifiedName, body: body)
        boxes.append(box)
        lrt_push_swift_function(L, Unmanaged.passUnretained(box).toOpaque())
    }

    // MARK: - Metatables

    /// The registry reference of the metatable named `name`, made by `build` the first time.
    func metatable(named name: String, build: () -> Void) -> Int32 {
        if let ref = metatables[name] { return ref }
        lua_createtable(L, 0, 4)
        lua_pushstring(L, name)
        lua_setfield(L, -2, "__name")
        build()
        let ref = luaL_ref(L, lrt_registryindex())
        metatables[name] = ref
        return ref
    }

    private func makeErrorMetatable() -> Int32 {
        metatable(named: "error") {
            pushFunction("error.__tostring") { call in
                guard let error = LuaErrorValue((try? call.value(1)) ?? .nil) else { return call.returning("error") }
                return call.returning(.string(error.description))
            }
            lua_setfield(L, -2, "__tostring")
        }
    }

    /// Renames the error metatable (`__name`), e.g. to `"ccai.Error"`.
    func setErrorTypeName(_ name: String) {
        lua_rawgeti(L, lrt_registryindex(), lua_Integer(errorMetatable))
        lua_pushstring(L, name)
        lua_setfield(L, -2, "__name")
        lrt_pop(L, 1)
    }

    /// The preallocated errors the hook and trampolines raise when a budget runs out.
    private func storeLimitErrors() {
        let stack = LuaStack(L)
        let entries: [(lrt_limit_error, LuaErrorValue)] = [
            (LRT_LIMIT_ERROR_INSTRUCTIONS, .limitExceeded(
                "instruction limit exceeded: more than \(limits.instructions) instructions without yielding",
                limit: "instructions")),
            (LRT_LIMIT_ERROR_TIME, .limitExceeded(
                "time limit exceeded: more than \(LuaValue.format(limits.seconds)) seconds without yielding",
                limit: "time")),
            (LRT_LIMIT_ERROR_MEMORY, memoryLimitError),
            (LRT_LIMIT_ERROR_STOPPED, Self.stoppedError),
        ]
        for (kind, error) in entries {
            stack.pushError(error, metatable: errorMetatable)
            lrt_set_limit_error(L, kind)
        }
    }

    /// What a state asked to stop (``LuaState/requestStop()``) raises, and runs and calls throw.
    static let stoppedError = LuaErrorValue.cancelled("the state was stopped")

    var memoryLimitError: LuaErrorValue {
        if let pool, pool.wasExceeded, limits.memoryBytes == 0 || Int(context.pointee.memory_used) < limits.memoryBytes {
            return .limitExceeded("memory limit exceeded: the states sharing this one's budget hold its "
                                  + "\(LuaLimits.formatBytes(pool.limitBytes)) together", limit: "memory")
        }
        return .limitExceeded("memory limit exceeded: the state may use at most \(LuaLimits.formatBytes(limits.memoryBytes))",
                              limit: "memory")
    }

    // MARK: - Errors from Lua

    /// Converts the error value on top of `thread` (popping it) into a Swift error.
    func scriptError(status: Int32, on thread: OpaquePointer, traceback: String?) -> LuaScriptError {
        let stack = LuaStack(thread)
        let raw = (try? stack.value(at: -1)) ?? .nil
        var message = stack.describe(at: -1)
        lrt_pop(thread, 1)
        var kind: LuaScriptError.Kind = status == LUA_ERRSYNTAX ? .syntax : .runtime
        var value = raw
        if context.pointee.killed == LRT_KILL_STOPPED {
            kind = .cancelled
        } else if context.pointee.killed != LRT_KILL_NONE {
            kind = .limit
        } else if status == LUA_ERRMEM || (context.pointee.memory_limit_hit != 0 && message == "not enough memory") {
            kind = .memory
            value = .table(memoryLimitError.table)
            message = memoryLimitError.description
        } else if let structured = LuaErrorValue(raw) {
            // A budget of the state names its limit; a platform's quota (`limit_exceeded` from
            // an SDK call) does not, and leaves the state alive.
            if structured.errorCode == .limitExceeded, let limit = structured.fields["limit"] {
                kind = limit == "memory" ? .memory : .limit
            }
            if structured.errorCode == .cancelled { kind = .cancelled }
        } else if case .table = raw, message.hasPrefix("table: ") {
            // A table without __tostring reads as its contents, not its address.
            message = raw.literal()
        }
        if case .nil = raw, message.isEmpty { message = "error object is not a string" }
        return LuaScriptError(kind: kind, message: message, value: value, traceback: traceback)
    }

    /// Whether a budget killed the state.
    var killError: LuaScriptError? {
        switch context.pointee.killed {
        case LRT_KILL_INSTRUCTIONS:
            let e = LuaErrorValue.limitExceeded(
                "instruction limit exceeded: more than \(limits.instructions) instructions without yielding",
                limit: "instructions")
            return LuaScriptError(kind: .limit, message: e.description, value: .table(e.table))
        case LRT_KILL_TIME:
            let e = LuaErrorValue.limitExceeded(
                "time limit exceeded: more than \(LuaValue.format(limits.seconds)) seconds without yielding",
                limit: "time")
            return LuaScriptError(kind: .limit, message: e.description, value: .table(e.table))
        case LRT_KILL_STOPPED:
            return LuaScriptError(kind: .cancelled, message: Self.stoppedError.description, value: .table(Self.stoppedError.table))
        default:
            return nil
        }
    }
}

/// Where the runtime reports what is not an error of the current call: a failing event
/// handler, a dropped event, a task error nobody waited for.
public struct LuaDiagnostics: Sendable {
    public var warning: @Sendable (String) -> Void
    public var handlerError: @Sendable (_ event: String, _ error: LuaScriptError) -> Void
    /// An event no one took was dropped (`"ccai.chat.messages_received"`): past its name's
    /// count or the state's bytes of unclaimed events.
    public var eventDropped: @Sendable (_ event: String) -> Void = { _ in }

    public init(warning: @escaping @Sendable (String) -> Void,
                handlerError: @escaping @Sendable (String, LuaScriptError) -> Void) {
        self.warning = warning
        self.handlerError = handlerError
    }

    /// Writes both to standard error.
    public static let standardError = LuaDiagnostics(
        warning: { FileHandle.standardError.write(Data("warning: \($0)\n".utf8)) },
        handlerError: { event, error in
            FileHandle.standardError.write(Data("error in '\(event)' handler: \(error)\n".utf8))
        })
}
