import CLua
import CLuaShim
import Foundation
import Timekeeping

/// A confined Lua 5.4 state with one owner. Everything that touches the state runs on
/// this actor, so no state is ever used by two threads. The actor's executor runs on
/// ``LuaThreads``, a few threads that many states share apart from Swift's cooperative
/// pool: a script spinning until its budget stops it never holds a thread that the rest of
/// the process (a served sandbox, the transport) needs. Scripts run as coroutines: an async
/// Swift binding suspends its coroutine, and the state resumes it here when the operation
/// ends.
///
/// ```swift
/// let lua = try LuaState()
/// try await lua.withContext { $0.setGlobal("greeting", "hello") }
/// let results = try await lua.run(source: "return greeting .. ' world'", chunkName: "=demo")
/// ```
public actor LuaState {
    let core: LuaCore
    private let executor: LuaExecutor
    /// The context's stop flag, which any thread may set (``requestStop()``).
    private nonisolated(unsafe) let stopContext: UnsafeMutablePointer<lrt_context>
    /// The core, for work posted to the executor (``post(_:)``): it runs there only.
    private nonisolated let postedCore: PostedCore

    /// Carries the core to the executor's posted work, without keeping it.
    private struct PostedCore: @unchecked Sendable {
        weak var value: LuaCore?
    }

    /// The state's serial executor, on its ``LuaThreads``.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The embedded Lua release (`"Lua 5.4.4"`).
    public static let luaRelease = String(cString: lrt_lua_release())

    /// Creates a confined state with the given budgets. `clock` is the time of `sleep`,
    /// of `wait` and `wait_for` timeouts, of `os.time()` and `os.date()`, and of the
    /// wall-clock budget unless `budgetClock` is given (a simulation keeps the budget on
    /// the real time). `threads` are the threads it runs on.
    ///
    /// ```swift
    /// let state = try LuaState(clock: simulation.clock, budgetClock: SystemClock())
    /// ```
    public init(limits: LuaLimits = LuaLimits(), confinement: LuaConfinement = LuaConfinement(),
                diagnostics: LuaDiagnostics = .standardError, clock: any TimeSource = SystemClock(),
                budgetClock: (any TimeSource)? = nil, threads: LuaThreads = .shared) throws {
        executor = LuaExecutor(threads: threads)
        core = try LuaCore(limits: limits, diagnostics: diagnostics, clock: clock, budgetClock: budgetClock)
        stopContext = core.context
        postedCore = PostedCore(value: core)
        try core.installConfinement(confinement)
        core.owner = self
    }

    /// Runs a chunk to completion in a fresh confined state of its own and returns its
    /// results (the data among them). For configuration files and other code that does
    /// not suspend; callable from any thread.
    public static func evaluate(_ source: String, chunkName: String, limits: LuaLimits = LuaLimits()) throws
        -> [LuaValue]
    {
        let core = try LuaCore(limits: limits, diagnostics: .standardError)
        defer { core.close() }
        try core.installConfinement(LuaConfinement(print: { _ in }))
        return try LuaContext(core: core).evaluate(source, chunkName: chunkName)
    }

    /// Runs `body` with synchronous access to the state, on its executor.
    public func withContext<Result>(_ body: (LuaContext) throws -> Result) rethrows -> Result {
        try body(LuaContext(core: core))
    }

    /// Runs `body` with synchronous access to the state on its executor, in turn with the
    /// state's other work, and returns at once: no task is made and nothing waits. For
    /// handing a state, in order, what arrives on another thread (its events). `body` finds
    /// the state closed (``LuaContext/isClosed``) once it is.
    public nonisolated func post(_ body: @escaping @Sendable (LuaContext) -> Void) {
        let posted = postedCore
        executor.post {
            // A state freed meanwhile is skipped; one alive is kept alive while `body` runs.
            guard let core = posted.value else { return }
            body(LuaContext(core: core))
        }
    }

    /// Compiles and runs a chunk as the main task, then waits until every task it
    /// spawned has ended. Returns the chunk's results (those that are data); with
    /// `keepingResultAs`, the first result is also kept (functions and all) under that name.
    ///
    /// Throws ``LuaScriptError``: a syntax error, the main task's error, a budget kill,
    /// or the first error of a spawned task that nobody waited for.
    @discardableResult
    public func run(source: String, chunkName: String, arguments: [LuaValue] = [], keepingResultAs keepName: String? = nil)
        async throws -> [LuaValue]
    {
        try await run(loading: { try $0.load(source, chunkName: chunkName) }, arguments: arguments, keepingResultAs: keepName)
    }

    /// Runs a chunk compiled once (``compile(_:chunkName:)``) as
    /// ``run(source:chunkName:arguments:keepingResultAs:)`` runs source.
    @discardableResult
    public func run(chunk: LuaChunk, arguments: [LuaValue] = [], keepingResultAs keepName: String? = nil)
        async throws -> [LuaValue]
    {
        try await run(loading: { try $0.load(chunk) }, arguments: arguments, keepingResultAs: keepName)
    }

    private func run(loading load: (LuaContext) throws -> Void, arguments: [LuaValue], keepingResultAs keepName: String?)
        async throws -> [LuaValue]
    {
        let context = LuaContext(core: core)
        try checkOpen()
        if let kill = core.killError { throw kill }
        try load(context)
        let stack = LuaStack(core.L)
        for argument in arguments { stack.push(argument) }
        let main = core.scheduler.spawn(from: core.L, arguments: Int32(arguments.count), kind: .main)
        core.scheduler.drain()
        await withCheckedContinuation { core.scheduler.notifyWhenIdle($0) }
        // A close that came meanwhile freed the lua_State: nothing below may touch it.
        try checkOpen()
        if let fatal = core.scheduler.killedBy { throw fatal }
        if let error = main.error { throw error }
        if main.status == .cancelled { throw LuaScriptError(kind: .cancelled, message: "the script was cancelled") }
        if let failure = core.scheduler.takeUnobservedFailures().first { throw failure }
        if let keepName, main.resultCount > 0 {
            lua_pushvalue(main.thread, 1)
            core.keptValues[keepName] = LuaReference(popping: main.thread, core: core)
        }
        return (0..<main.resultCount).map { (try? LuaStack(main.thread).value(at: $0 + 1)) ?? .nil }
    }

    /// A kept value as data for inspection: functions show as the string `"function"`.
    public func inspect(kept name: String) -> LuaValue {
        guard !core.isClosed, let reference = core.keptValues[name] else { return .nil }
        reference.push(on: core.L)
        defer { lrt_pop(core.L, 1) }
        return LuaStack(core.L).shape(at: -1)
    }

    /// Calls the function at `path` inside a kept value (`call(kept: "plugin", path:
    /// ["deflection"], ...)`) with `arguments`, as a task of its own: it may suspend. Returns
    /// its results (the data among them; with `resultsMustBeData`, a result that is not
    /// data, such as a function, a coroutine or a table that contains itself, is an error
    /// naming it) or throws its error. Nil when there is no function at that path.
    public func call(kept name: String, path: [LuaValue], arguments: [LuaValue], resultsMustBeData: Bool = false)
        async throws -> [LuaValue]?
    {
        try await call(kept: name, path: path, passing: arguments.map { .value($0) }, resultsMustBeData: resultsMustBeData)
    }

    /// Like ``call(kept:path:arguments:)``, with arguments that may be kept values
    /// (tables of functions made with ``LuaContext/makeTable(_:)`` and kept).
    ///
    /// ```swift
    /// await lua.withContext { $0.keep("agent", $0.makeTable(agentModule)) }
    /// try await lua.call(kept: "script", path: [], passing: [.kept("agent"), .value(session)])
    /// ```
    public func call(kept name: String, path: [LuaValue], passing arguments: [LuaArgument], resultsMustBeData: Bool = false)
        async throws -> [LuaValue]?
    {
        // What runs around the wait is out of line, so that this frame, which stays on the
        // caller's task while the call runs (most of a VU's life), is small.
        guard let task = try spawnCall(kept: name, path: path, passing: arguments) else { return nil }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            task.onFinish = { continuation.resume() }
            core.scheduler.drain()
        }
        return try results(of: task, mustBeData: resultsMustBeData)
    }

    /// Starts the function at `path` of the kept value `name` in a task of its own, with
    /// `arguments`; nil when there is no function there.
    @inline(never)
    private func spawnCall(kept name: String, path: [LuaValue], passing arguments: [LuaArgument]) throws -> LuaTask? {
        try checkOpen()
        if let kill = core.killError { throw kill }
        guard let root = core.keptValues[name] else { return nil }
        for case .kept(let argument) in arguments where core.keptValues[argument] == nil {
            throw LuaScriptError(kind: .runtime, message: "no value is kept under '\(argument)'")
        }
        let L = core.L
        let stack = LuaStack(L)
        root.push(on: L)
        for key in path {
            guard lua_type(L, -1) == LUA_TTABLE else {
                lrt_pop(L, 1)
                return nil
            }
            stack.push(key)
            lua_rawget(L, -2)
            lrt_remove(L, -2)
        }
        guard lua_type(L, -1) == LUA_TFUNCTION else {
            lrt_pop(L, 1)
            return nil
        }
        lua_checkstack(L, Int32(arguments.count))
        for argument in arguments {
            switch argument {
            case .value(let value): stack.push(value)
            case .kept(let keptName):
                core.keptValues[keptName]?.push(on: L)
            }
        }
        return core.scheduler.spawn(from: L, arguments: Int32(arguments.count), kind: .host)
    }

    /// The results of a finished call (see ``call(kept:path:passing:resultsMustBeData:)``),
    /// or its error.
    @inline(never)
    private func results(of task: LuaTask, mustBeData resultsMustBeData: Bool) throws -> [LuaValue] {
        try checkOpen()
        if let kill = core.scheduler.killedBy { throw kill }
        switch task.status {
        case .finished:
            return try (0..<task.resultCount).map { index in
                do {
                    return try LuaStack(task.thread).value(at: index + 1)
                } catch let problem as LuaConversionError where resultsMustBeData {
                    throw LuaScriptError(kind: .runtime, message: "its result \(index + 1) cannot be copied: \(problem.message)")
                } catch {
                    return .nil
                }
            }
        case .failed:
            throw task.error ?? LuaScriptError(kind: .runtime, message: "the call failed")
        default:
            throw LuaScriptError(kind: .cancelled, message: "the call was cancelled")
        }
    }

    /// Reads a file and runs it (see ``run(source:chunkName:arguments:)``).
    @discardableResult
    public func run(file path: String, arguments: [LuaValue] = [], keepingResultAs keepName: String? = nil)
        async throws -> [LuaValue]
    {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LuaScriptError(kind: .runtime, message: "cannot read '\(path)'")
        }
        return try await run(source: String(decoding: data, as: UTF8.self), chunkName: "@" + path,
                             arguments: arguments, keepingResultAs: keepName)
    }

    /// Asks the state to stop, from any thread and at once: Lua code running now raises a
    /// sticky `cancelled` kill ("the state was stopped") at its next budget check, so even
    /// a loop that never yields (with every budget turned off) ends and frees the state's
    /// executor for ``close()``. Later runs and calls throw the same error.
    public nonisolated func requestStop() {
        lrt_request_stop(stopContext)
    }

    /// Ends every task and frees the state. Later runs and calls throw a `cancelled` error.
    public func close() {
        core.close()
    }

    private func checkOpen() throws {
        if core.isClosed { throw LuaScriptError(kind: .cancelled, message: "the Lua state is closed") }
    }
}

/// An argument of ``LuaState/call(kept:path:passing:)``: data, or a value kept in the state.
public enum LuaArgument: Sendable {
    case value(LuaValue)
    case kept(String)
}
