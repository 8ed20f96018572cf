import Foundation

/// An async Swift operation started by a binding, whose outcome resumes a coroutine.
/// Completion may happen on any thread; the outcome is handed to whoever attaches first.
final class LuaPendingOperation: @unchecked Sendable {
    enum Outcome {
        /// Pushes the results on the resumed thread (runs on the state's executor).
        case success(UncheckedSendable<(inout LuaOutput) throws -> Void>)
        case failure(Error)
    }

    private let lock = NSLock()
    private var outcome: Outcome?
    private var waiter: ((Outcome) -> Void)?
    private var isCancelled = false
    var task: Task<Void, Never>?

    func complete(_ outcome: Outcome) {
        lock.lock()
        if isCancelled {
            lock.unlock()
            return
        }
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter(outcome)
        } else {
            self.outcome = outcome
            lock.unlock()
        }
    }

    /// The outcome, if the operation already finished.
    func takeOutcome() -> Outcome? {
        lock.lock()
        defer { lock.unlock() }
        let taken = outcome
        outcome = nil
        return taken
    }

    /// Returns the outcome if it is already there; otherwise `waiter` receives it later.
    func attach(_ waiter: @escaping (Outcome) -> Void) -> Outcome? {
        lock.lock()
        if let taken = outcome {
            outcome = nil
            lock.unlock()
            return taken
        }
        self.waiter = waiter
        lock.unlock()
        return nil
    }

    /// Cancels the Swift task; its outcome is dropped.
    func cancel() {
        lock.lock()
        isCancelled = true
        waiter = nil
        outcome = nil
        lock.unlock()
        task?.cancel()
    }
}

/// What a suspended coroutine waits for.
enum LuaSuspension {
    case operation(LuaPendingOperation)
    case task(LuaTask, timeout: Double?)
    case event(LuaEventEmitter, name: String, match: LuaReference?, timeout: Double?)
}

/// An error whose Lua value is already in the registry: re-raised as that same value.
struct LuaRaisedReference: Error {
    let reference: LuaReference
}
