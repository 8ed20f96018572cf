import CLua
import CLuaShim
import Timekeeping

/// One coroutine run by the scheduler: the main chunk, a `spawn`ed function, or an event
/// handler that suspended.
final class LuaTask {
    enum Status: String {
        case ready, running, suspended, finished, failed, cancelled
    }

    enum Kind {
        case main
        case spawned
        case handler(LuaEventSubscription)
        /// A call made by the host (``LuaState/call(kept:path:arguments:)``): its outcome
        /// goes to the host, never to the unobserved-failure list.
        case host
    }

    let id: Int
    let kind: Kind
    let thread: OpaquePointer
    /// Keeps the thread (and so its results) alive as long as the task.
    let threadReference: LuaReference
    var status: Status = .ready
    /// Results left on the finished thread's stack, from index 1.
    var resultCount: Int32 = 0
    var error: LuaScriptError?
    var errorValue: LuaReference?
    /// Whether someone received the task's outcome (`wait`), so a failure was seen.
    var observed = false
    var waiters: [LuaTask] = []
    var suspension: LuaSuspension?
    /// Changes with each suspension, so late wake-ups of an earlier one are ignored.
    var wakeToken = 0
    var timer: ClockTimer?
    /// Whether the coroutine yielded through the async trampoline (it expects `ok, ...`).
    var awaitsOutcome = false
    /// Called once when the task ends, however it ends.
    var onFinish: (() -> Void)?

    func notifyFinished() {
        let callback = onFinish
        onFinish = nil
        callback?()
    }

    init(id: Int, kind: Kind, thread: OpaquePointer, threadReference: LuaReference) {
        self.id = id
        self.kind = kind
        self.thread = thread
        self.threadReference = threadReference
    }

    var isDone: Bool { status == .finished || status == .failed || status == .cancelled }
}

/// How a ready task is resumed.
enum LuaResumeInput {
    /// The function and its arguments are on the thread: start it.
    case start(arguments: Int32)
    /// Resume after a cooperative `coroutine.yield()`: no values.
    case nothing
    case outcome(LuaPendingOperation.Outcome)
    case failure(LuaErrorValue)
    /// The results (or the error) of a finished task.
    case results(of: LuaTask)
    case values([LuaValue])
}
