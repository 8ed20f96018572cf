import Foundation
import LuaRuntime
import Timekeeping

/// How the VUs of a run loop over iterations, for each executor.
struct ExecutorLoop: Sendable {
    let clock: any TimeSource
    let metrics: ScenarioMetrics
    let counter: IterationCounter
    let active: ActiveUsers
    /// What each iteration is given.
    let plan: IterationPlan
    /// The scenario's tags, on what the loop records of it (its dropped arrivals).
    let tags: [String: String]
    /// When no iteration starts any more (nil: when the counter runs out).
    var end: Date?
    /// What a person changes while the run goes on (nil: nobody can).
    var control: LiveControl?
    /// The scenario's name, as ``control`` knows it, and the number of its first VU less one.
    var scenario = ""
    var offset = 0

    /// `data` is what `setup` returned, `exec` the scenario table's function each iteration
    /// calls; with `strictPlugins` (`strict_plugins`), a plugin hook that fails fails the
    /// iteration that set it off.
    init(clock: any TimeSource, metrics: ScenarioMetrics, counter: IterationCounter, active: ActiveUsers, data: LuaValue,
         strictPlugins: Bool, exec: String, tags: [String: String], end: Date?) {
        self.clock = clock
        self.metrics = metrics
        self.counter = counter
        self.active = active
        plan = IterationPlan(exec: exec, data: data, clock: clock, metrics: metrics, strictPlugins: strictPlugins)
        self.tags = tags
        self.end = end
    }

    /// Each VU of the pool runs iterations one after another while the counter gives
    /// them and before the end, while `wanted(n)` says VU `n` should; when it should not,
    /// the VU stops taking part until `waitUntilWanted(n)` returns true (false: never again).
    func everyUser(_ pool: UserPool, wanted: @escaping @Sendable (Int) -> Bool = { _ in true },
                   waitUntilWanted: @escaping @Sendable (Int) async -> Bool = { _ in false }) async {
        let users = pool.all
        // Those wanted from the start take part from the start, as the first `vus` sample says.
        let startActive = users.map { wanted($0.number) }
        for case true in startActive { active.enter() }
        metrics.record(.vus, Double(active.count))
        await withTaskGroup(of: Void.self) { group in
            for (user, startsActive) in zip(users, startActive) {
                group.addTask { await self.take(part: user, active: startsActive, wanted: wanted, waitUntilWanted: waitUntilWanted) }
            }
        }
    }

    /// A ramp (``RampingSchedule``): the VUs of the pool (those wanted at its start) run as in
    /// ``everyUser(_:wanted:waitUntilWanted:)``, and each of the other `numbers` is made when
    /// the ramp first wants it, so that making VUs takes place within the stages (a ramp to
    /// thousands of VUs does not spend minutes making them before its first stage, and ends
    /// when its stages do). VUs are made one at a time, in order, each once the ramp wants
    /// it, while the run goes on and `roomForAnother()` says the memory budget has room (false
    /// stops the run). A VU that cannot start fails an iteration, as an arrival's does.
    func ramp(_ pool: UserPool, numbers: [Int], wanted: @escaping @Sendable (Int) -> Bool,
              waitUntilWanted: @escaping @Sendable (Int) async -> Bool, roomForAnother: @escaping @Sendable () -> Bool,
              make: @escaping @Sendable (Int) async throws -> VirtualUser) async {
        let made = Set(pool.all.map(\.number))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.everyUser(pool, wanted: wanted, waitUntilWanted: waitUntilWanted) }
            // VUs join in order, so each is made once the ramp reaches it, after the one before.
            for number in numbers where !made.contains(number) {
                if !wanted(number) {
                    guard await waitUntilWanted(number) else { break }
                }
                guard !counter.isStopped, !(end.map { clock.now() >= $0 } ?? false), roomForAnother() else { break }
                let user: VirtualUser
                do {
                    user = try await make(number)
                } catch let error as LuaScriptError where error.kind == .cancelled {
                    break
                } catch {
                    metrics.recordIteration(seconds: 0, error: "VU \(number) could not start: "
                                            + ((error as? LuaScriptError)?.message ?? "\(error)"))
                    continue
                }
                pool.add(user, busy: true)
                group.addTask { await self.take(part: user, active: false, wanted: wanted, waitUntilWanted: waitUntilWanted) }
            }
        }
    }

    /// One VU's part: iterations while the counter gives them, it is wanted, and the run
    /// has not ended; `active` says whether it already counts in the `vus` gauge. Each step
    /// is decided out of line: this loop waits on the VU's own task for as long as the VU
    /// lives, and its frame stays small.
    private func take(part user: VirtualUser, active startsActive: Bool, wanted: @escaping @Sendable (Int) -> Bool,
                      waitUntilWanted: @escaping @Sendable (Int) async -> Bool) async {
        var isActive = startsActive
        taking: while !(await user.isKilled) {
            switch nextStep(of: user.number, isActive: &isActive, wanted: wanted) {
            case .iterate:
                await user.iterate(plan)
            case .pause(let control, let generation):
                guard await sleepWhilePaused(control, after: generation) else { break taking }
            case .waitUntilWanted:
                guard await waitUntilWanted(user.number) else { break taking }
            case .end:
                break taking
            }
        }
        if isActive { active.leave() }
    }

    /// What a VU of the closed model does next.
    private enum Step {
        case iterate
        /// A person paused the run or lowered the scenario's VUs below this one: it waits
        /// for `control` to change after `generation`.
        case pause(LiveControl, generation: Int)
        /// The schedule does not want it now.
        case waitUntilWanted
        case end
    }

    /// VU `number`'s next step, entering or leaving the `vus` gauge as it says (`isActive`).
    @inline(never)
    private func nextStep(of number: Int, isActive: inout Bool, wanted: (Int) -> Bool) -> Step {
        if let end, clock.now() >= end { return .end }
        if let control {
            let state = control.current
            if state.paused || state.vuTargets[scenario].map({ number - offset > $0 }) == true {
                if isActive {
                    isActive = false
                    active.leave()
                }
                return .pause(control, generation: state.generation)
            }
        }
        guard wanted(number) else {
            if isActive {
                isActive = false
                active.leave()
            }
            return .waitUntilWanted
        }
        if !isActive {
            isActive = true
            active.enter()
        }
        return counter.take() ? .iterate : .end
    }

    /// Waits while the run is paused; false when the run ended meanwhile.
    @inline(never)
    private func sleepWhilePaused(_ control: LiveControl, after generation: Int) async -> Bool {
        await counter.sleep(until: end ?? .distantFuture, clock: clock, control: control, after: generation) == .changed
    }

    /// The open model: iterations start as the schedule says (``ArrivalSchedule``: a flat or
    /// ramping rate, evenly spaced or a Poisson process from the run's seed, so that every
    /// slice of a run sees the same arrivals), each on a free VU of the pool; a VU is made
    /// when none is free and the pool is under its share of `max_vus`. Every arrival this
    /// slice owns is accounted for: it starts an iteration, or it is counted in
    /// `dropped_iterations` with its reason (``DroppedArrival``), so that iterations and
    /// dropped ones add up to the arrivals planned.
    func arrivals(_ arrival: ScenarioOptions.Arrival, start: Date, workload: Workload, seed: RandomSeed,
                  make: @escaping @Sendable (Int) async throws -> VirtualUser) async {
        let (numbers, segment, pool) = (workload.numbers, workload.segment, workload.pool)
        let end = start.addingTimeInterval(arrival.duration)
        metrics.record(.vus, 0)
        // Shown in every open-model summary, at 0 too.
        metrics.record(.droppedIterations, 0, tags: tags)
        var schedule = ArrivalSchedule(arrival, seed: seed, stream: RandomSeed.arrivalStream - UInt64(workload.index))
        var rateSet: Double?
        await withTaskGroup(of: Void.self) { group in
            // A run that falls behind a high rate starts what is due at once, until its end.
            while clock.now() < end {
                if let control {
                    // A rate a person set: the plan changes from now on.
                    let state = control.current
                    if let rate = state.rates[scenario], rate != rateSet {
                        schedule.setRate(rate / arrival.timeUnit, from: clock.now().timeIntervalSince(start), until: arrival.duration)
                        rateSet = rate
                    }
                    // Until the next arrival (or the end, with none left), unless the controls change
                    // first; one already due starts at once.
                    let due = schedule.peek().map { start.addingTimeInterval($0) } ?? end
                    if due > clock.now() {
                        let wake = await counter.sleep(until: due, clock: clock, control: control, after: state.generation)
                        if wake == .changed { continue }
                        // Stopped, or the end came with no arrival left: the rest are dropped below.
                        guard wake == .deadline else { break }
                    }
                    if counter.isStopped || schedule.peek() == nil { break }
                }
                guard let offset = schedule.next() else { break }
                // With controls, the wait for it is above.
                let due = control != nil ? true : await counter.sleep(until: start.addingTimeInterval(offset), clock: clock)
                guard due, counter.take() else {
                    drop(1, segment.owns(arrival: schedule.handedOut) ? .runEnding : nil)
                    break
                }
                guard segment.owns(arrival: schedule.handedOut) else { continue }
                if control?.current.paused == true {
                    drop(1, .paused)
                    continue
                }
                switch pool.take(makingFrom: numbers) {
                case .free(let user):
                    group.addTask { await self.iterate(user, in: pool) }
                case .make(let vu):
                    group.addTask { await self.make(vu, with: make, in: pool) }
                case .none:
                    drop(1, .noFreeVU)
                }
            }
            // The run is ending (its end, an interruption, an aborting threshold): the
            // arrivals it will not start are dropped.
            drop(schedule.skipRest(ownedBy: segment), .runEnding)
            // The run lasts its duration, whatever its last iteration took: rates are per
            // second of it.
            _ = await counter.sleep(until: end, clock: clock)
        }
    }

    private func drop(_ count: Int, _ reason: DroppedArrival?) {
        guard count > 0, let reason else { return }
        metrics.record(.droppedIterations, Double(count), tags: tags.merging(["reason": reason.rawValue]) { _, reason in reason })
    }

    /// Makes VU `number` for an arrival and runs the iteration on it; a VU that cannot start
    /// fails the iteration (dropped instead when the run is being stopped).
    private func make(_ number: Int, with make: @Sendable (Int) async throws -> VirtualUser, in pool: UserPool) async {
        do {
            let user = try await make(number)
            pool.add(user, busy: true)
            await iterate(user, in: pool)
        } catch let error as LuaScriptError where error.kind == .cancelled {
            pool.failedToMake(number)
            drop(1, .runEnding)
        } catch {
            pool.failedToMake(number)
            metrics.recordIteration(seconds: 0, error: "VU \(number) could not start: " + ((error as? LuaScriptError)?.message ?? "\(error)"))
        }
    }

    /// Runs one iteration on `user`, then gives it back to the pool: free again, or, when a
    /// budget killed its state, out of it for good (no arrival goes to a dead VU and is lost).
    /// A VU stopped before the iteration could start drops it (the run is ending).
    private func iterate(_ user: VirtualUser, in pool: UserPool) async {
        active.enter()
        let ran = await user.iterate(plan)
        active.leave()
        if !ran { drop(1, .runEnding) }
        if await user.isKilled { pool.retire(user) } else { pool.release(user) }
    }
}

/// Why an arrival of the open model started no iteration: the `reason` tag of its
/// `dropped_iterations` sample.
public enum DroppedArrival: String, CaseIterable, Sendable {
    /// Every VU was busy and the pool was at its `max_vus`.
    case noFreeVU = "no_free_vu"
    /// The run was ending: its duration was over (it fell behind a rate it could not keep),
    /// it was interrupted or timed out, or a threshold aborted it.
    case runEnding = "run_ending"
    /// A person had paused the arrivals (`ccai run --dashboard`).
    case paused
}

/// How many VUs take part in the run now (the `vus` gauge).
final class ActiveUsers: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.withLock { value } }
    func enter() { lock.withLock { value += 1 } }
    func leave() { lock.withLock { value -= 1 } }
}

/// The VUs of a run: all of them, to close at the end, and those free for an arrival.
final class UserPool: @unchecked Sendable {
    enum Taken {
        case free(VirtualUser)
        /// No VU is free: make VU number `n`.
        case make(Int)
        case none
    }

    private let lock = NSLock()
    private var users: [VirtualUser]
    private var free: [VirtualUser]
    private var reserved = Set<Int>()

    init() {
        users = []
        free = []
    }

    var all: [VirtualUser] { lock.withLock { users } }

    func add(_ user: VirtualUser, busy: Bool = false) {
        lock.withLock {
            users.append(user)
            reserved.remove(user.number)
            if !busy { free.append(user) }
        }
    }

    /// A free VU, else the number of one to make (among `numbers`, not yet made), else none.
    func take(makingFrom numbers: [Int]) -> Taken {
        lock.withLock {
            if let user = free.popLast() { return .free(user) }
            let made = Set(users.map(\.number)).union(reserved)
            guard let number = numbers.first(where: { !made.contains($0) }) else { return .none }
            reserved.insert(number)
            return .make(number)
        }
    }

    func release(_ user: VirtualUser) { lock.withLock { free.append(user) } }
    /// A VU whose state is dead: never free again (its number stays taken).
    func retire(_ user: VirtualUser) { lock.withLock { free.removeAll { $0 === user } } }
    func failedToMake(_ number: Int) { _ = lock.withLock { reserved.remove(number) } }

    func closeAll() async {
        for user in all { await user.close() }
    }
}

struct RampingSchedule: Sendable {
    let startVUs: Int
    let stages: [ScenarioOptions.Stage]

    var duration: Double { stages.reduce(0) { $0 + $1.duration } }

    func target(at elapsed: Double) -> Int {
        var from = startVUs, begins = 0.0
        for stage in stages {
            let ends = begins + stage.duration
            if elapsed < ends {
                let share = stage.duration > 0 ? (elapsed - begins) / stage.duration : 1
                return from + Int((Double(stage.target - from) * share).rounded(.down))
            }
            from = stage.target
            begins = ends
        }
        return elapsed < begins ? from : 0
    }

    /// The first moment at or after `elapsed` when at least `number` VUs are wanted; nil: never.
    func activation(of number: Int, from elapsed: Double) -> Double? {
        var from = startVUs, begins = 0.0
        for stage in stages {
            let ends = begins + stage.duration
            defer {
                from = stage.target
                begins = ends
            }
            guard ends > elapsed else { continue }
            if from >= number { return max(elapsed, begins) }
            if stage.target >= number {
                let moment = begins + stage.duration * Double(number - from) / Double(stage.target - from)
                return max(elapsed, moment)
            }
        }
        return nil
    }
}


