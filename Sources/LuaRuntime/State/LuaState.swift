import CLua
import CLuaShim
import Foundation

/// A sandboxed Lua 5.4 state with one owner. Everything that touches the state runs on
/// this actor, so many states share Swift's small cooperative thread pool and no state is
/// ever used by two threads. Scripts run as coroutines: an async Swift binding suspends
/// its coroutine, and the state resumes it here when the operation ends.
///
/// ```swift
/// let lua = try LuaState()
/// try await lua.withContext { $0.setGlobal("greeting", "hello") }
/// let results = try await lua.run(source: "return greeting .. ' world'", chunkName: "=demo")
/// ```
public actor LuaState {
    let core: LuaCore

    /// The embedded Lua release (`"Lua 5.4.4"`).
    public static let luaRelease = String(cString: lrt_lua_release())

    /// Creates a sandboxed state with the given budgets.
    public init(limits: LuaLimits = LuaLimits(), sandbox: LuaSandbox = LuaSandbox(),
                diagnostics: LuaDiagnostics = .standardError) throws {
        core = try LuaCore(limits: limits, diagnostics: diagnostics)
        try core.installSandbox(sandbox)
        core.owner = self
    }

    /// Runs a chunk to completion in a fresh sandboxed state of its own and returns its
    /// results (the data among them). For configuration files and other code that does
    /// not suspend; callable from any thread.
    public static func evaluate(_ source: String, chunkName: String, limits: LuaLimits = LuaLimits()) throws
        -> [LuaValue]
    {
        let core = try LuaCore(limits: limits, diagnostics: .standardError)
        defer { core.close() }
        try core.installSandbox(LuaSandbox(print: { _ in }))
        return try LuaContext(core: core).evaluate(source, chunkName: chunkName)
    }

    /// Runs `body` with synchronous access to the state, on its executor.
    public func withContext<Result>(_ body: (LuaContext) throws -> Result) rethrows -> Result {
        try body(LuaContext(core: core))
    }

    /// Compiles and runs a chunk as the main task, then waits until every task it
    /// spawned has ended. Returns the chunk's results (those that are data).
    ///
    /// Throws ``LuaScriptError``: a syntax error, the main task's error, a budget kill,
    /// or the first error of a spawned task that nobody waited for.
    @discardableResult
    public func run(source: String, chunkName: String, arguments: [LuaValue] = []) async throws -> [LuaValue] {
        let context = LuaContext(core: core)
        if let kill = core.killError { throw kill }
        try context.load(source, chunkName: chunkName)
        let stack = LuaStack(core.L)
        for argument in arguments { stack.push(argument) }
        let main = core.scheduler.spawn(from: core.L, arguments: Int32(arguments.count), kind: .main)
        core.scheduler.drain()
        await withCheckedContinuation { core.scheduler.notifyWhenIdle($0) }
        if let fatal = core.scheduler.killedBy { throw fatal }
        if let error = main.error { throw error }
        if main.status == .cancelled { throw LuaScriptError(kind: .cancelled, message: "the script was cancelled") }
        if let failure = core.scheduler.takeUnobservedFailures().first { throw failure }
        return (0..<main.resultCount).map { (try? LuaStack(main.thread).value(at: $0 + 1)) ?? .nil }
    }

    /// Reads a file and runs it (see ``run(source:chunkName:arguments:)``).
    @discardableResult
    public func run(file path: String, arguments: [LuaValue] = []) async throws -> [LuaValue] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LuaScriptError(kind: .runtime, message: "cannot read '\(path)'")
        }
        return try await run(source: String(decoding: data, as: UTF8.self), chunkName: "@" + path,
                             arguments: arguments)
    }

    /// Ends every task and frees the state. Later calls fail.
    public func close() {
        core.close()
    }

    // MARK: - Wake-ups from async operations

    func deliver(taskID: Int, token: Int, outcome: LuaPendingOperation.Outcome) {
        core.scheduler.deliver(taskID: taskID, token: token, outcome: outcome)
    }

    func timeOut(taskID: Int, token: Int, error: LuaErrorValue) {
        core.scheduler.timeOut(taskID: taskID, token: token, error: error)
    }
}
