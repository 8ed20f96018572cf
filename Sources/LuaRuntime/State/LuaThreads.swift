import Foundation
import Timekeeping

/// The threads Lua states run on: a few dedicated threads, apart from Swift's cooperative
/// pool. A script or a plugin hook that spins until its time budget kills it holds one of
/// these, never a thread that serves HTTP requests, streams or the sandbox's own work.
///
/// Many states share the threads: each state is a serial executor (``LuaExecutor``) that
/// the threads take in turn, a few jobs at a time, so a busy state cannot starve the
/// others of their turn.
///
/// ```swift
/// let threads = LuaThreads(count: 1, name: "plugins")
/// let lua = try LuaState(threads: threads)
/// ```
public final class LuaThreads: @unchecked Sendable {
    /// The threads every state uses unless it is given others: as many as the machine has
    /// cores, and at least two.
    public static let shared = LuaThreads(count: max(2, ProcessInfo.processInfo.activeProcessorCount), name: "lua")

    /// How many jobs of one state run before the thread moves on to the next state.
    static let jobsPerTurn = 64

    private let condition = NSCondition()
    /// States with jobs, in the order they got them; `head` is the next to run.
    private var ready: [LuaExecutor] = []
    private var head = 0

    /// Starts `count` threads named `name-1`, `name-2`, ... They live as long as the process.
    public init(count: Int, name: String) {
        precondition(count > 0, "LuaThreads needs at least one thread")
        for index in 1...count {
            let thread = Thread { [unowned self] in
                Thread.current.name = "\(name)-\(index)"
                self.condition.withLock { self.threadIDs.append(pthread_self()) }
                self.work()
            }
            // Lua's C calls (the pattern matcher, deep pcalls) may go far deeper than the
            // 512 KiB Foundation gives a thread.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// The threads, as they started.
    private var threadIDs: [pthread_t] = []

    /// Whether the calling thread is one of these.
    public var isCurrent: Bool {
        let current = pthread_self()
        return condition.withLock { threadIDs.contains { pthread_equal($0, current) != 0 } }
    }

    /// Puts a state that has work in line: the simulation's, when the process runs in
    /// virtual time (every state's turns then run there, in order, and the clock waits
    /// for them).
    func schedule(_ executor: LuaExecutor) {
        if let simulation = VirtualTime.current {
            simulation.submit { executor.runTurn() }
            return
        }
        condition.lock()
        ready.append(executor)
        if sleeping > 0 { condition.signal() }
        condition.unlock()
    }

    /// How many threads wait on the condition.
    private var sleeping = 0
    /// How many times a thread with nothing to do gives way before it sleeps: work handed
    /// over meanwhile (the answer to the call a state just made, often) is then taken
    /// without a wake-up.
    private static let yieldsBeforeSleeping = 16

    private func work() {
        while true {
            condition.lock()
            var yields = 0
            while head == ready.count {
                if yields < Self.yieldsBeforeSleeping {
                    yields += 1
                    condition.unlock()
                    sched_yield()
                    condition.lock()
                } else {
                    sleeping += 1
                    condition.wait()
                    sleeping -= 1
                }
            }
            let executor = ready[head]
            head += 1
            if head == ready.count || head >= 1024 {
                ready.removeFirst(head)
                head = 0
            }
            condition.unlock()
            executor.runTurn()
        }
    }
}

/// The serial executor of one ``LuaState``: its jobs run one at a time, in order, on one
/// of its ``LuaThreads`` at a time.
final class LuaExecutor: SerialExecutor, @unchecked Sendable {
    /// A job of the state's tasks, or work handed to the state without a task (``post(_:)``).
    private enum Work {
        case job(UnownedJob)
        case closure(() -> Void)
    }

    private let threads: LuaThreads
    private let lock = NSLock()
    private var jobs: [Work] = []
    private var next = 0
    /// True from when the executor is put in line until a turn finds no job left, so
    /// that two threads never run its jobs at once.
    private var isScheduled = false

    init(threads: LuaThreads) {
        self.threads = threads
    }

    func enqueue(_ job: consuming ExecutorJob) {
        append(.job(UnownedJob(job)))
    }

    /// Runs `body` in turn with the jobs, one at a time with them: it may use what they
    /// use, and it does not make a task.
    func post(_ body: @escaping () -> Void) {
        append(.closure(body))
    }

    private func append(_ work: Work) {
        lock.lock()
        jobs.append(work)
        let mustSchedule = !isScheduled
        isScheduled = true
        lock.unlock()
        if mustSchedule { threads.schedule(self) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Runs up to ``LuaThreads/jobsPerTurn`` jobs, then gives the thread to the next state
    /// in line (and gets back in line itself if jobs remain).
    fileprivate func runTurn() {
        let this = asUnownedSerialExecutor()
        for _ in 0..<LuaThreads.jobsPerTurn {
            switch takeWork() {
            case .job(let job)?: job.runSynchronously(on: this)
            case .closure(let body)?: body()
            case nil: return
            }
        }
        lock.lock()
        let more = next < jobs.count
        if !more { isScheduled = false }
        lock.unlock()
        if more { threads.schedule(self) }
    }

    /// The next work, or nil (and no longer scheduled) when there is none.
    private func takeWork() -> Work? {
        lock.lock()
        defer { lock.unlock() }
        guard next < jobs.count else {
            jobs.removeAll(keepingCapacity: true)
            next = 0
            isScheduled = false
            return nil
        }
        let job = jobs[next]
        next += 1
        if next == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            next = 0
        }
        return job
    }
}
