import Foundation
import Synchronization

/// A process run as a discrete-event simulation: every piece of asynchronous work runs on
/// one thread, one at a time and in the order it was handed over, and the ``clock`` (a
/// ``ManualClock``) jumps to its next deadline whenever no work is left: nothing runnable,
/// nothing running, and no ``hold()`` outstanding. A 24-hour sleep returns as soon as
/// everything else is asleep too, and two runs of the same inputs interleave alike.
///
/// ``install()`` makes it the process's scheduler: Swift's global executor, every Lua
/// state's turns (``current``) and the clock's due timers all feed it. Work done on a
/// thread of its own (a renderer) takes a ``hold()`` so that the clock waits for it.
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

    /// Keeps the clock still until the returned hold is released: for work the simulation
    /// cannot see, on a thread of its own, whose end will hand it new work.
    ///
    /// ```swift
    /// let hold = VirtualTime.current?.hold()
    /// Thread { render(); resumeWaiters(); hold?.release() }.start()
    /// ```
    public func hold() -> Hold {
        queue.changeHolds(by: 1)
        return Hold(queue)
    }

    /// Runs the work there is, in order, then moves the clock to its next deadline (running
    /// the timers due then) when nothing holds it. False when there was nothing to do: no
    /// work, and no timer or a hold keeping the clock still.
    @discardableResult
    public func step() -> Bool {
        var ran = false
        while let work = queue.take() {
            work.run()
            ran = true
        }
        guard !queue.isHeld, let deadline = clock.nextDeadline else { return ran }
        clock.advance(to: deadline)
        return true
    }

    /// Steps until nothing is left to do: every timer has fired or is held back.
    public func runUntilIdle() {
        while step() {}
    }

    /// Keeps the clock still while it exists, until ``release()``.
    public final class Hold: Sendable {
        private let queue: WorkQueue
        private let released = Atomic<Bool>(false)

        fileprivate init(_ queue: WorkQueue) {
            self.queue = queue
        }

        /// Lets the clock move again (once; later calls do nothing).
        public func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            queue.changeHolds(by: -1)
        }

        deinit { release() }
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

/// The simulation's work in order, and the holds on its clock.
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
    private var holds = 0
    private var isWaiting = false
    /// Counts the work handed over and the clock let go, so that the driver never sleeps
    /// through one that came while it looked for work.
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

    var isHeld: Bool { condition.withLock { holds > 0 } }

    func changeHolds(by change: Int) {
        condition.lock()
        holds += change
        if holds == 0 {
            changeCount &+= 1
            if isWaiting { condition.signal() }
        }
        condition.unlock()
    }

    /// Sleeps until work comes or the last hold goes after `changes` read `seen`
    /// (real-time events: a signal, a delay waited out on the side, a renderer's thread
    /// finishing).
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
