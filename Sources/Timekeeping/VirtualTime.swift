import Foundation
import Synchronization

/// A process run as a discrete-event simulation: every piece of asynchronous work runs on
/// one thread, one at a time and in the order it was handed over, and the ``clock`` (a
/// ``ManualClock``) jumps to its next deadline whenever no work is left: nothing runnable
/// and nothing running. A 24-hour sleep returns as soon as everything else is asleep too,
/// and two runs of the same inputs interleave alike.
///
/// ``install()`` makes it the process's scheduler: Swift's global executor, every Lua
/// state's turns (``current``) and the clock's due timers all feed it. Work that would run
/// on a thread of its own (a renderer's) runs on the simulation's when ``current`` is set,
/// so that the clock never moves while it is under way.
///
/// ```swift
/// // In main.swift, before the first `await`: everything async runs on the simulation.
/// let simulation = try VirtualTime.install()
/// simulation.begin(at: ISO8601DateFormatter().date(from: "2026-12-07T08:00:00Z")!)
/// exit(await main())   // a 24-hour sleep in there returns once nothing else is awake
/// ```
public final class VirtualTime: @unchecked Sendable {
    /// The simulated time: it moves only when the simulation is idle.
    public let clock: ManualClock
    private let queue: WorkQueue
    private let began: Mutex<Date>

    /// A simulation whose clock reads `start`; it runs only when stepped (``runUntilIdle()``)
    /// or installed.
    public init(start: Date) {
        let queue = WorkQueue()
        self.queue = queue
        began = Mutex(start)
        clock = ManualClock(start, runningDueTimers: { queue.submit(.closure($0)) })
    }

    /// When the simulated time began.
    public var start: Date { began.withLock { $0 } }

    /// Sets the time the simulation begins at, before anything has used its clock (the
    /// timers already set keep their delays).
    public func begin(at date: Date) {
        began.withLock { $0 = date }
        clock.move(to: date)
    }

    /// Hands `work` to the simulation; it runs after the work handed over before it.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        queue.submit(.closure(work))
    }

    func submit(_ job: UnownedJob) {
        queue.submit(.job(job))
    }

    /// Runs the work there is, in order, then moves the clock to its next deadline (running
    /// the timers due then). False when there was nothing to do: no work and no timer.
    @discardableResult
    public func step() -> Bool {
        var ran = false
        while let work = queue.take() {
            work.run()
            ran = true
        }
        guard let deadline = clock.nextDeadline else { return ran }
        clock.advance(to: deadline)
        return true
    }

    /// Steps until nothing is left to do: every timer has fired.
    public func runUntilIdle() {
        while step() {}
    }

    // MARK: The process's simulation

    private static let isInstalled = Atomic<Bool>(false)
    nonisolated(unsafe) private static var installed: VirtualTime?

    /// The simulation the process runs on, once ``install()`` made one.
    public static var current: VirtualTime? {
        isInstalled.load(ordering: .acquiring) ? installed : nil
    }

    /// Makes a simulation the process's scheduler, for good: Swift's global executor hands
    /// it every job (a `Task.sleep` is waited out on the side, then handed over), and a
    /// thread with a deep stack (Lua's C calls need one) runs it. Its clock reads the real
    /// time, in whole seconds, until ``begin(at:)``. Install it before any asynchronous
    /// work starts (in `main.swift`, before the first `await`): work already running
    /// elsewhere would go on beside it. A second call returns the first simulation. Throws
    /// ``Unavailable`` when the Swift runtime has no hook to install.
    public static func install() throws -> VirtualTime {
        if let current { return current }
        let simulation = VirtualTime(start: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        installed = simulation
        isInstalled.store(true, ordering: .releasing)
        guard ExecutorHooks.install() else {
            isInstalled.store(false, ordering: .releasing)
            throw Unavailable()
        }
        let thread = Thread { simulation.drive() }
        thread.name = "virtual-time"
        thread.stackSize = 8 << 20
        thread.start()
        return simulation
    }

    /// The Swift runtime this program runs on has no global executor hook.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String {
            "virtual time needs the Swift runtime's swift_task_enqueueGlobal_hook, and this one has none"
        }
    }

    private func drive() {
        while true {
            let seen = queue.changes
            if !step() { queue.waitForChange(since: seen) }
        }
    }
}

/// The simulation's work, in order.
private final class WorkQueue: @unchecked Sendable {
    enum Work {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)

        func run() {
            switch self {
            case .job(let job): job.runSynchronously(on: ExecutorHooks.generic)
            case .closure(let body): body()
            }
        }
    }

    private let condition = NSCondition()
    private var items: [Work] = []
    private var head = 0
    private var isWaiting = false
    /// Counts the work handed over, so that the driver never sleeps through work that came
    /// while it looked for some.
    private var changeCount = 0

    var changes: Int { condition.withLock { changeCount } }

    func submit(_ work: Work) {
        condition.lock()
        items.append(work)
        changeCount &+= 1
        if isWaiting { condition.signal() }
        condition.unlock()
    }

    func take() -> Work? {
        condition.lock()
        defer { condition.unlock() }
        guard head < items.count else { return nil }
        let work = items[head]
        head += 1
        if head == items.count || head >= 1024 {
            items.removeFirst(head)
            head = 0
        }
        return work
    }

    /// Sleeps until work comes after `changes` read `seen` (from the real time: a signal,
    /// a `Task.sleep` waited out on the side).
    func waitForChange(since seen: Int) {
        condition.lock()
        while changeCount == seen {
            isWaiting = true
            condition.wait()
            isWaiting = false
        }
        condition.unlock()
    }
}
