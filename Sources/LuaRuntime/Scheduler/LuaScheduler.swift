import CLua
import CLuaShim
import Foundation

/// Runs a state's coroutines: tasks, their async suspensions, waits, timeouts,
/// cancellation, and event handlers (on pooled threads). Lives on the state's executor.
final class LuaScheduler {
    private enum Item {
        case resume(LuaTask, LuaResumeInput)
        case handler(LuaEventSubscription, payload: LuaValue)
    }

    unowned(unsafe) var core: LuaCore!
    private var ready: [Item] = []
    private var readyHead = 0
    private var isDraining = false
    private var nextID = 1
    /// Tasks not yet done, by id.
    private(set) var live: [Int: LuaTask] = [:]
    /// Finished threads of handlers, reused for the next handler run.
    private var idleThreads: [(thread: OpaquePointer, reference: Int32)] = []
    /// The thread of the last handler that finished: most events take it again.
    private var spareThread: (thread: OpaquePointer, reference: Int32)?
    private(set) var current: LuaTask?
    /// Failed spawned tasks nobody has waited for (yet).
    private var unobserved: [LuaTask] = []
    /// The first error that killed the state (a budget ran out).
    private(set) var killedBy: LuaScriptError?
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    // MARK: - Creating tasks

    /// Makes a task of the function and `arguments` values on top of `L` (popping them).
    func spawn(from L: OpaquePointer, arguments: Int32, kind: LuaTask.Kind) -> LuaTask {
        let thread = lua_newthread(L)!
        let reference = LuaReference(popping: L, core: core)
        lua_xmove(L, thread, arguments + 1)
        let task = LuaTask(id: nextID, kind: kind, thread: thread, threadReference: reference)
        nextID += 1
        live[task.id] = task
        enqueue(task, .start(arguments: arguments))
        return task
    }

    func enqueue(_ task: LuaTask, _ input: LuaResumeInput) {
        task.status = .ready
        ready.append(.resume(task, input))
    }


    // MARK: - Running

    /// Runs ready coroutines until none is left. Re-entrant calls return at once: the
    /// outer loop picks their work up.
    func drain() {
        guard !isDraining, readyHead < ready.count else { return }
        isDraining = true
        defer { isDraining = false }
        while readyHead < ready.count {
            let item = ready[readyHead]
            readyHead += 1
            if readyHead > 64, readyHead * 2 > ready.count {
                ready.removeFirst(readyHead)
                readyHead = 0
            }
            guard killedBy == nil, !core.isClosed else { continue }
            switch item {
            case .resume(let task, let input):
                guard task.status == .ready else { continue }
                step(task, input)
            case .handler(let subscription, let payload):
                guard !subscription.isCancelled else { continue }
                startHandler(subscription, payload: payload)
            }
        }
        ready.removeAll(keepingCapacity: true)
        readyHead = 0
        if live.isEmpty || killedBy != nil { wakeIdleWaiters() }
    }

    private func step(_ task: LuaTask, _ input: LuaResumeInput) {
        let thread = task.thread
        let arguments: Int32
        switch push(input, on: task) {
        case .some(let count): arguments = count
        case .none: return
        }
        task.status = .running
        task.awaitsOutcome = false
        let previous = current
        current = task
        var results: Int32 = 0
        let status = lrt_resume(thread, nil, arguments, &results)
        current = previous
        afterResume(task, status: status, results: results)
    }

    /// Pushes the resume values; nil when the input itself ended the task.
    private func push(_ input: LuaResumeInput, on task: LuaTask) -> Int32? {
        let thread = task.thread
        var output = LuaOutput(L: thread, core: core)
        switch input {
        case .start(let arguments):
            return arguments
        case .nothing:
            return 0
        case .values(let values):
            output.push(.boolean(true))
            for value in values { output.push(value) }
        case .failure(let error):
            output.push(.boolean(false))
            output.push(error)
        case .outcome(.success(let pushResults)):
            output.push(.boolean(true))
            do {
                try pushResults.value(&output)
            } catch {
                lua_settop(thread, -output.count - 1)
                return push(.failure(.from(error)), on: task)
            }
        case .outcome(.failure(let error)):
            output.push(.boolean(false))
            output.push(.from(error))
        case .results(let other):
            other.observed = true
            if other.status == .finished {
                output.push(.boolean(true))
                lua_checkstack(thread, other.resultCount + 1)
                for index in 0..<other.resultCount {
                    lua_pushvalue(other.thread, index + 1)
                    lua_xmove(other.thread, thread, 1)
                }
                return output.count + other.resultCount
            }
            output.push(.boolean(false))
            if let errorValue = other.errorValue {
                output.push(errorValue)
            } else {
                output.push(.cancelled())
            }
        }
        return output.count
    }

    private func afterResume(_ task: LuaTask, status: Int32, results: Int32) {
        let thread = task.thread
        switch status {
        case LUA_OK:
            task.status = .finished
            task.resultCount = results
            finish(task)
        case LUA_YIELD:
            let isAsync = results >= 1 && lua_touserdata(thread, -1) == lrt_async_marker()
            lua_settop(thread, -results - 1)
            if !isAsync {
                enqueue(task, .nothing)
            } else if let suspension = core.pendingSuspension {
                core.pendingSuspension = nil
                task.awaitsOutcome = true
                suspend(task, on: suspension)
            } else {
                enqueue(task, .values([]))
            }
        default:
            fail(task, status: status)
        }
    }

    /// Records the error on top of the dead thread. A thread in error cannot run
    /// functions, so the value moves to the main thread first.
    private func fail(_ task: LuaTask, status: Int32) {
        let main = core.L
        lua_checkstack(main, 3)
        lua_xmove(task.thread, main, 1)
        lrt_traceback(main, task.thread, nil, 0)
        let traceback = LuaStack(main).string(at: -1)
        lrt_pop(main, 1)
        lua_pushvalue(main, -1)
        task.errorValue = LuaReference(popping: main, core: core)
        let error = core.scriptError(status: status, on: main, traceback: traceback)
        task.error = error
        task.status = .failed
        if error.kind == .limit, let kill = core.killError {
            killedBy = LuaScriptError(kind: .limit, message: kill.message, value: kill.value, traceback: traceback)
            finish(task)
            cancelAll()
            return
        }
        finish(task)
    }

    private func finish(_ task: LuaTask) {
        live[task.id] = nil
        task.timer?.cancel()
        let waiters = task.waiters
        task.waiters = []
        for waiter in waiters where waiter.status == .suspended {
            clearSuspension(of: waiter)
            enqueue(waiter, .results(of: task))
        }
        if !waiters.isEmpty { task.observed = true }
        task.notifyFinished()
        guard task.status == .failed, !task.observed, let error = task.error else { return }
        switch task.kind {
        case .handler(let subscription):
            subscription.emitter.handlerFailed(subscription.eventName, error)
        case .spawned:
            unobserved.append(task)
        case .main:
            cancelAll()
        case .host:
            break
        }
    }

    // MARK: - Suspending

    private func suspend(_ task: LuaTask, on suspension: LuaSuspension) {
        task.status = .suspended
        task.suspension = suspension
        task.wakeToken += 1
        let token = task.wakeToken
        let id = task.id
        switch suspension {
        case .operation(let operation):
            let owner = core.owner
            let early = operation.attach { [weak owner] outcome in
                owner?.post { $0.core.scheduler.deliver(taskID: id, token: token, outcome: outcome) }
            }
            if let early { wake(task, .outcome(early)) }
        case .task(let other, let timeout):
            if other.isDone {
                wake(task, .results(of: other))
            } else {
                other.waiters.append(task)
                startTimer(task, seconds: timeout, function: "task:wait") {
                    "the task did not finish within \(LuaValue.format($0)) seconds"
                }
            }
        case .event(let emitter, let name, _, let timeout):
            emitter.addWaiter(task, for: name)
            startTimer(task, seconds: timeout, function: emitter.name + ".wait_for") {
                "no '\(name)' event within \(LuaValue.format($0)) seconds"
            }
        }
    }

    /// Ends the task's wait with a `timeout` error raised by `function` after `seconds`.
    private func startTimer(_ task: LuaTask, seconds: Double?, function: String, message: @escaping (Double) -> String) {
        guard let seconds else { return }
        let owner = core.owner
        let id = task.id, token = task.wakeToken
        let error = LuaErrorValue.timeout(message(seconds), function: function)
        task.timer = core.clock.schedule(after: seconds) { [weak owner] in
            owner?.post { $0.core.scheduler.timeOut(taskID: id, token: token, error: error) }
        }
    }

    /// Removes a suspended task from whatever it waits on.
    private func clearSuspension(of task: LuaTask) {
        task.timer?.cancel()
        task.timer = nil
        switch task.suspension {
        case .operation(let operation)?:
            operation.cancel()
        case .task(let other, _)?:
            other.waiters.removeAll { $0 === task }
        case .event(let emitter, let name, _, _)?:
            emitter.removeWaiter(task, for: name)
        case nil:
            break
        }
        task.suspension = nil
    }

    /// Makes a suspended task ready with `input`.
    func wake(_ task: LuaTask, _ input: LuaResumeInput) {
        guard task.status == .suspended else { return }
        clearSuspension(of: task)
        enqueue(task, input)
    }

    /// An async operation finished (called on the state's executor).
    func deliver(taskID: Int, token: Int, outcome: LuaPendingOperation.Outcome) {
        guard let task = live[taskID], task.wakeToken == token, task.status == .suspended else { return }
        task.suspension = nil
        task.timer?.cancel()
        enqueue(task, .outcome(outcome))
        drain()
    }

    func timeOut(taskID: Int, token: Int, error: LuaErrorValue) {
        guard let task = live[taskID], task.wakeToken == token, task.status == .suspended else { return }
        wake(task, .failure(error))
        drain()
    }

    // MARK: - Cancelling

    /// Ends a task that is not running; its waiters get a `cancelled` error. Returns
    /// false when it had already ended.
    @discardableResult
    func cancel(_ task: LuaTask) -> Bool {
        guard !task.isDone, task.status != .running else { return false }
        clearSuspension(of: task)
        task.status = .cancelled
        if !core.isClosed { lua_resetthread(task.thread) }
        finish(task)
        return true
    }

    /// Cancels every task (the state closes or was killed).
    func cancelAll() {
        for task in live.values where task.status != .running {
            clearSuspension(of: task)
            task.status = .cancelled
            live[task.id] = nil
            task.notifyFinished()
        }
        wakeIdleWaiters()
    }

    // MARK: - Event handlers

    /// Runs an event handler now, or after the current run when tasks are running.
    @inline(__always)
    func runHandler(_ slot: Int32, payload: LuaValue, channel: LuaEventEmitter.Channel, index: Int) {
        if isDraining || current != nil {
            ready.append(.handler(channel.subscription(at: index), payload: payload))
        } else if let status = startHandler(slot, payload: payload) {
            handlerDidNotFinish(channel.subscription(at: index), status)
        }
    }

    private func startHandler(_ subscription: LuaEventSubscription, payload: LuaValue) {
        if let status = startHandler(subscription.handlerSlot, payload: payload) {
            handlerDidNotFinish(subscription, status)
        }
    }

    /// The thread of the handler that suspended or failed (`startHandler` handed it over).
    private var unfinishedHandler: (thread: OpaquePointer, reference: Int32, results: Int32)?

    /// Runs the handler in `slot` on a pooled thread. Returns nil when it finished;
    /// otherwise its status, with its thread in `unfinishedHandler`.
    private func startHandler(_ handler: Int32, payload: LuaValue) -> Int32? {
        let L = core.L
        let slot: (thread: OpaquePointer, reference: Int32)
        if let spare = spareThread {
            slot = spare
            spareThread = nil
        } else if let idle = idleThreads.popLast() {
            slot = idle
        } else {
            let thread = lua_newthread(L)!
            slot = (thread, luaL_ref(L, lrt_registryindex()))
        }
        let thread = slot.thread
        lua_checkstack(thread, 2)
        lua_rawgeti(thread, lrt_registryindex(), lua_Integer(handler))
        LuaStack(thread).push(payload)
        var results: Int32 = 0
        let status = lrt_resume(thread, nil, 1, &results)
        if status == LUA_OK {
            lua_settop(thread, 0)
            if spareThread == nil { spareThread = slot } else { idleThreads.append(slot) }
            return nil
        }
        unfinishedHandler = (thread, slot.reference, results)
        return status
    }

    /// Makes a task of a handler that suspended, or reports the one that failed.
    private func handlerDidNotFinish(_ subscription: LuaEventSubscription, _ status: Int32) {
        guard let (thread, reference, results) = unfinishedHandler else { return }
        unfinishedHandler = nil
        let task = LuaTask(id: nextID, kind: .handler(subscription), thread: thread,
                           threadReference: LuaReference(adopting: reference, core: core))
        nextID += 1
        if status == LUA_YIELD {
            live[task.id] = task
            afterResume(task, status: status, results: results)
        } else {
            task.status = .running
            fail(task, status: status)
        }
    }

    // MARK: - Idle

    /// Whether no task is left to run or wait.
    var isIdle: Bool { live.isEmpty }

    /// Resumes `waiter` once every task has ended (or the state was killed).
    func notifyWhenIdle(_ waiter: CheckedContinuation<Void, Never>) {
        if live.isEmpty || killedBy != nil {
            waiter.resume()
        } else {
            idleWaiters.append(waiter)
        }
    }

    private func wakeIdleWaiters() {
        let waiters = idleWaiters
        idleWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Failed spawned tasks whose error nobody received.
    func takeUnobservedFailures() -> [LuaScriptError] {
        let failures = unobserved.filter { !$0.observed }.compactMap(\.error)
        unobserved = []
        return failures
    }
}
