import CLua
import CLuaShim

/// `spawn` and `sleep`, and the task objects `spawn` returns (`wait`, `cancel`, `status`).
///
/// ```lua
/// local task = ccai.spawn(function(n) ccai.sleep(0.1); return n * 2 end, 21)
/// print(task:wait(5))        --> 42
/// ```
public enum LuaTaskLibrary {
    /// Adds `spawn` and `sleep` to `module`.
    public static func install(into module: inout LuaModule) {
        module.function("spawn", LuaSignature("Runs fn(...) in a new task; the task starts when the caller next suspends.",
                                              parameters: ["fn: function", "...: any"], returns: ["ccai.Task"]), spawn)
        module.function("sleep", LuaSignature("Suspends the calling task; sleep(0) lets other tasks run.",
                                              parameters: ["seconds: number"]), sleep)
    }

    /// `spawn(fn, ...)`: runs `fn(...)` in a new task; returns the task.
    static func spawn(_ call: LuaCall) throws -> LuaReturn {
        let L = call.L
        guard call.type(1) == LUA_TFUNCTION else { throw call.typeError(1, "fn", expected: "function") }
        let count = lua_gettop(L)
        lua_checkstack(L, count + 2)
        for index in 1...count { lua_pushvalue(L, index) }
        let task = call.core.scheduler.spawn(from: L, arguments: count - 1, kind: .spawned)
        return call.returning { $0.push(task, as: taskType) }
    }

    /// `sleep(seconds)`: suspends the calling task; `sleep(0)` lets other tasks run.
    static func sleep(_ call: LuaCall) throws -> LuaReturn {
        let seconds = try call.number(1, "seconds")
        guard seconds >= 0, seconds.isFinite else {
            throw call.argumentError(1, "seconds", "a finite number >= 0 expected, got \(String(format: "%g", seconds))")
        }
        if seconds == 0 { return try call.yieldToOtherTasks() }
        let clock = call.core.clock
        return try call.suspend {
            try await clock.sleep(for: seconds)
            return []
        }
    }

    static let taskType = LuaUserdataType<LuaTask>(
        name: "task",
        methods: [
            "wait": wait,
            "cancel": { task, call in
                guard task !== call.core.scheduler.current else {
                    throw LuaErrorValue.invalidArgument("a task cannot cancel itself; return from its function instead")
                }
                return call.returning(.boolean(call.core.scheduler.cancel(task)))
            },
            "status": { task, call in call.returning(.string(task.status.rawValue)) },
        ],
        describe: { "task \($0.id) (\($0.status.rawValue))" })

    /// `task:wait([timeout])`: the task's results, or its error raised here.
    static func wait(_ task: LuaTask, _ call: LuaCall) throws -> LuaReturn {
        let timeout = try call.optionalNumber(2, "timeout")
        if let timeout, !(timeout >= 0 && timeout.isFinite) {
            throw call.argumentError(2, "timeout", "a number of seconds >= 0 expected")
        }
        guard task !== call.core.scheduler.current else {
            throw LuaErrorValue.invalidArgument("a task cannot wait for itself")
        }
        guard task.isDone else { return try call.suspend(.task(task, timeout: timeout)) }
        task.observed = true
        switch task.status {
        case .finished:
            lua_checkstack(call.L, task.resultCount)
            for index in 0..<task.resultCount {
                lua_pushvalue(task.thread, index + 1)
                lua_xmove(task.thread, call.L, 1)
            }
            return LuaReturn(code: task.resultCount)
        default:
            if let value = task.errorValue { throw LuaRaisedReference(reference: value) }
            throw LuaErrorValue.cancelled()
        }
    }
}
