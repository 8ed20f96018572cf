import Foundation

/// The Swift runtime's hook for its global executor, pointed at ``VirtualTime/current``:
/// every job that would go to the cooperative pool (a `Task {}`, an actor's turn, a resumed
/// continuation, a `Task.sleep` that is over) goes to the simulation instead. The runtime
/// exports the hook for executors like this one; it is found by name, as the runtime's
/// own tests and test libraries find it.
enum ExecutorHooks {
    private typealias Original = @convention(thin) (UnownedJob) -> Void
    private typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    /// The generic executor (no actor): the one the global executor runs jobs on.
    static let generic: UnownedSerialExecutor = {
        precondition(MemoryLayout<UnownedSerialExecutor>.size == 2 * MemoryLayout<Int>.size)
        return unsafeBitCast((0, 0), to: UnownedSerialExecutor.self)
    }()

    /// Points the global executor's hook at the simulation; false when the runtime has none.
    static func install() -> Bool {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else { return false }
        symbol.assumingMemoryBound(to: Hook?.self).pointee = { job, original in
            guard let simulation = VirtualTime.current else { return original(job) }
            simulation.submit(job)
        }
        return true
    }
}
