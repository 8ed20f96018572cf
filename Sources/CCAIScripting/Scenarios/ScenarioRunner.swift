import Foundation
import LuaRuntime
import Timekeeping

/// Runs a scenario file (LUA-API section 6): `return { options = {...}, setup = fn,
/// run = fn(ctx), teardown = fn }` in many virtual users, or a plain chunk once, as VU 1.
///
/// Each VU has its own confined state, its own SDK instance and end user (what
/// ``makeRunner`` gives it: `vu-<n>`), and runs the file's top level once (k6's init
/// code). `setup()` runs once before the VUs start, in a context of its own (number 0);
/// its result is `ctx.data`, copied into each call. `teardown(data)` runs once after.
/// `run(ctx)` gets `ctx.vu` (from 1), `ctx.iteration` (the VU's own count, from 1) and
/// `ctx.data`. An iteration that raises an error is counted as failed and the VU goes on;
/// a VU whose state a budget killed stops.
///
/// ```swift
/// let runner = ScenarioRunner(script: "load.lua") { vu in ScriptRunner(sdk: sdkFor(vu)) }
/// let outcome = try await runner.run()
/// ```
public struct ScenarioRunner: Sendable {
    /// What the command line sets over the file's `options` (`--vus`, `--iterations`, `--duration`).
    public struct Overrides: Sendable, Equatable {
        public var vus: Int?
        public var iterations: Int?
        public var duration: Double?
        public init(vus: Int? = nil, iterations: Int? = nil, duration: Double? = nil) {
            self.vus = vus
            self.iterations = iterations
            self.duration = duration
        }
        public var isEmpty: Bool { self == Overrides() }
    }

    public enum Outcome: Sendable {
        /// The file was a plain chunk: it ran once, as VU 1.
        case plainChunk
        /// The scenario ran with these options; the metrics hold what it recorded.
        /// `abortedBy` is the threshold with `abort_on_fail` that stopped it early.
        case scenario(ScenarioOptions, abortedBy: Threshold?)
    }

    /// Why a scenario could not start: bad options (a usage error), or `setup` failed.
    public enum Failure: Error, CustomStringConvertible {
        case options(String)
        case setup(LuaScriptError)
        /// The options ask for a clock the run was not started with (`virtual_time`,
        /// `start`): the run must begin again with these arguments added; nothing has run
        /// but the first VU's top level.
        case restart(arguments: [String])
        /// Making the run's VUs would pass `options.max_memory` (``RunMemory``): it does not
        /// start. (A run that passes it while it runs stops with its summary: ``memoryStop``.)
        case memory(String)
        public var description: String {
            switch self {
            case .options(let message), .memory(let message): return message
            case .setup(let error): return "setup failed: \(error.message)"
            case .restart(let arguments): return "the run must start again with \(arguments.joined(separator: " "))"
            }
        }
    }

    /// Checks the scenario's clock options (`virtual_time`, `start`) against the run's
    /// before anything else runs: returns the arguments to start again with when the run
    /// lacks them (``Failure/restart(arguments:)``), nil when it has them; throws
    /// ``Failure/options(_:)`` when they cannot be had.
    public var clockCheck: (@Sendable (ScenarioOptions) throws -> [String]?)?

    public var script: String
    public var overrides = Overrides()
    /// Called once a scenario's options are read, before its VUs start (outputs that list
    /// the thresholds wait for them, the dashboard of `options.dashboard` starts); what it
    /// throws ends the run before it starts.
    public var onOptions: (@Sendable (ScenarioOptions) throws -> Void)?
    /// The slice of the run this process runs (`--segment I/N`); the whole run by default.
    public var segment = ScenarioSegment.whole
    /// `--strict-plugins`: a failing plugin hook fails its iteration, whatever
    /// `options.strict_plugins` says.
    public var strictPlugins = false
    /// Seconds the whole run may take (`--timeout`; over `options.timeout`); nil: no limit.
    public var timeout: Double?
    /// The seed `--seed` gave, over `options.seed`; with neither, ``fallbackSeed``.
    public var seed: RandomSeed?
    /// The seed of a run given none: chosen by the command line (and printed), or fixed
    /// for a slice of a split run, whose slices must draw the same arrivals.
    public var fallbackSeed = RandomSeed(0)
    /// The seed the run draws from, once its options are read.
    private let runSeed = RunValue<RandomSeed>()
    /// The embedded sandbox's waiting sessions and busy agents, sampled with `vus` as
    /// `queue_length` and `agents_busy`; nil (a remote platform): not sampled.
    public var occupancy: (@Sendable () async -> (waiting: Int, busyAgents: Int)?)?
    /// The VUs of the run, to stop them all.
    private let liveUsers = LiveUsers()
    /// What `ccai.data` read, shared by every VU of the run.
    private let sharedData = ScenarioData()
    private let timing = RunTiming()
    /// What each scenario of the run runs in this slice, once the options are read.
    private let workloads = RunWorkloads()
    /// The file compiled, when the scenario has a `handle_summary` to call at the end.
    private let summaryHook = RunValue<LuaChunk>()
    /// The budget the VUs' Lua states share, once the options are read.
    private let luaPool = RunValue<LuaMemoryPool>()

    private let status = RunStatus()

    /// Where a scenario's run is, for a progress line; nil before its VUs start (and for a
    /// plain chunk, always).
    public func progress() -> Progress? { status.progress(clock: clock, metrics: metrics) }

    /// Where a scenario's run is.
    public struct Progress: Sendable {
        public var options: ScenarioOptions
        public var elapsed: Double
        /// VUs taking part now, and the most the run has.
        public var activeVUs: Int
        public var peakVUs: Int
        public var iterations: Int
        public var failedIterations: Int
        /// The iterations this process runs in all, when it is a number (shared iterations).
        public var plannedIterations: Int?
        public var checkPasses: Int
        public var checkFails: Int
    }

    /// True when the run was stopped by its timeout.
    public var timedOut: Bool { timing.timedOut }
    /// True when ``interrupt()`` stopped the run.
    public var interrupted: Bool { timing.interrupted }
    /// The error `teardown` raised, if it did (the run's summary stands).
    public var teardownError: LuaScriptError? { timing.teardownError }
    /// Why the run was stopped over `options.max_memory` while it ran, if it was (its
    /// summary is of what ran; the run failed).
    public var memoryStop: String? { timing.memoryStop.value }

    /// Stops the run as Ctrl-C does: no new iteration starts, and those running get the
    /// scenario's `graceful_stop` (30 s by default; a plain script is its one iteration),
    /// after which every VU is stopped.
    public func interrupt() {
        timing.interrupt(clock: clock, users: liveUsers)
    }

    /// Stops the run as a second Ctrl-C does: no new iteration starts and those running
    /// are stopped at once, without their `graceful_stop`; ``run()`` still returns what
    /// was measured (the cut-off iterations fail as `interrupted`).
    public func stopNow() {
        timing.interrupt(clock: clock, users: liveUsers, grace: 0)
    }

    public var metrics = ScenarioMetrics()
    /// What a person changes while the run goes on (``LiveControl``); nil: nobody can. Set
    /// before the run or from ``onOptions`` (the dashboard of `options.dashboard`): the
    /// executors read it as they start.
    public var control: LiveControl? {
        get { liveControl.value }
        nonmutating set { liveControl.value = newValue }
    }
    private let liveControl = RunValue<LiveControl>()
    /// The clock durations are measured with.
    public var clock: any TimeSource = SystemClock()
    /// The ``ScriptRunner`` of VU `n` (0: the setup and teardown context), with its own
    /// SDK instance and end user.
    public var makeRunner: @Sendable (Int) async throws -> ScriptRunner

    public init(script: String, makeRunner: @escaping @Sendable (Int) async throws -> ScriptRunner) {
        self.script = script
        self.makeRunner = makeRunner
    }

    /// Runs the file. Throws ``Failure`` when the scenario cannot start, and the
    /// ``LuaScriptError`` of a plain chunk or of a VU's top level.
    public func run() async throws -> Outcome {
        if let timeout { timing.arm(after: timeout, clock: clock, users: liveUsers) }
        defer { timing.disarm() }
        do {
            return try await runUsers()
        } catch let error as LuaScriptError where (timing.timedOut || timing.interrupted) && error.kind == .cancelled {
            return .plainChunk
        }
    }

    private func runUsers() async throws -> Outcome {
        // The file is read and compiled once; every VU runs that chunk.
        let chunk = try LuaState.compile(file: script)
        // The first VU reads the scenario's shape and options: this slice's first VU.
        let began = clock.now()
        let first = try await startFirstUser(chunk: chunk, began: began)
        guard let scenario = await first.scenarioShape() else {
            metrics.recordIteration(seconds: clock.now().timeIntervalSince(began), error: nil)
            await first.close()
            guard overrides.isEmpty, segment.isWhole else {
                throw Failure.options("--vus, --iterations, --duration and --segment need a scenario: a file that returns "
                                      + "{ run = function(ctx) ... end }")
            }
            return .plainChunk
        }
        let options: ScenarioOptions, workloads: [Workload]
        do {
            options = try await readOptions(of: scenario, first: first)
            workloads = try plan(options, shape: scenario)
            self.workloads.set(workloads)
            await first.join(workloads[0].scenario)
        } catch {
            await first.close()
            throw error
        }
        luaPool.value = options.memory.luaPool(resident: RunMemory.resident())
        if timeout == nil, let seconds = options.timeout { timing.arm(after: seconds, clock: clock, users: liveUsers) }
        timing.gracefulStop = workloads.map(\.scenario.run.gracefulStop).max() ?? options.gracefulStop
        do {
            try onOptions?(options)
        } catch {
            await first.close()
            throw error
        }

        if scenario["handle_summary"]?.stringValue == "function" { summaryHook.value = chunk }
        let (data, setupContext) = try await setUp(scenario, chunk: chunk, first: first)
        workloads[0].pool.add(first)
        do {
            // After Ctrl-C or SIGTERM no VU is made any more: the run ends with those there are.
            let wanted = workloads.reduce(0) { $0 + $1.initial.count }
            let budget = MemoryWatch(options.memory, wanted: wanted)
            for workload in workloads {
                for number in workload.initial where number != first.number && !timing.interrupted {
                    if let problem = budget.beforeMaking() { throw Failure.memory(problem) }
                    workload.pool.add(try await makeUser(number, chunk: chunk))
                }
            }
        } catch {
            for workload in workloads { await workload.pool.closeAll() }
            await setupContext?.close()
            throw error
        }
        let overMemory = timing.memoryStop
        let abortedBy = await execute(workloads, options: options, data: data, chunk: chunk, overMemory: overMemory)
        for workload in workloads { await workload.pool.closeAll() }
        // Stopped over its memory: no teardown, and the summary is of what ran.
        if overMemory.value != nil {
            await setupContext?.close()
            return .scenario(options, abortedBy: abortedBy)
        }
        try await tearDown(scenario, context: setupContext, data: data)
        return .scenario(options, abortedBy: abortedBy)
    }

    /// Starts this slice's first VU. One that fails before its shape is known is counted as a
    /// failed iteration, which it is for a plain chunk (the run's one iteration); a scenario's
    /// run ends with exit 1. A plain chunk stopped by Ctrl-C or its timeout says so, as an
    /// iteration would.
    private func startFirstUser(chunk: LuaChunk, began: Date) async throws -> VirtualUser {
        let number = segment.index
        do {
            return try await VirtualUser.start(number, script: script, chunk: chunk, runner: try await runner(for: number),
                                               in: liveUsers)
        } catch let error as LuaScriptError {
            let stopped = error.kind == .cancelled && (timing.interrupted || timing.timedOut)
            metrics.recordIteration(seconds: clock.now().timeIntervalSince(began),
                                    failure: stopped ? .init(message: VirtualUser.stoppedAtTheEnd, reason: .interrupted)
                                        : .init(message: error.message, reason: .error))
            throw error
        }
    }

    /// The scenario's options with the command line's overrides, and the run's seed (the
    /// first VU draws from it); a run to start again in virtual time says so
    /// (``Failure/restart(arguments:)``).
    private func readOptions(of scenario: LuaValue, first: VirtualUser) async throws -> ScenarioOptions {
        var options: ScenarioOptions
        do {
            options = try ScenarioOptions(table: scenario["options"], declared: metrics.declaredKinds)
        } catch let problem as ScenarioOptions.Problem {
            throw Failure.options(problem.description)
        }
        options.override(vus: overrides.vus, iterations: overrides.iterations, duration: overrides.duration)
        options.strictPlugins = options.strictPlugins || strictPlugins
        if let arguments = try clockCheck?(options) { throw Failure.restart(arguments: arguments) }
        let resolvedSeed = seed ?? options.seed ?? fallbackSeed
        options.seed = resolvedSeed
        runSeed.value = resolvedSeed
        if resolvedSeed != seed ?? fallbackSeed { try await first.reseed(resolvedSeed) }
        return options
    }

    /// What each scenario of the run runs in this slice: its VUs (numbered after the
    /// previous scenarios'), those made before it starts (all, or for arrivals its share of
    /// `vus`), and its own pool. A scenario this slice has no VU of is a usage error, and so is
    /// an `exec` the scenario table has no function for.
    private func plan(_ options: ScenarioOptions, shape: LuaValue) throws -> [Workload] {
        var offset = 0
        return try options.workloads.enumerated().map { index, scenario in
            defer { offset += scenario.run.peakVUs }
            guard shape[scenario.exec]?.stringValue == "function" else {
                guard !options.scenarios.isEmpty else {
                    throw Failure.options("the scenario table has no function 'run' (--vus, --iterations and --duration run it "
                                          + "in place of options.scenarios)")
                }
                throw Failure.options("options.scenarios.\(scenario.name).exec: the scenario table has no function '\(scenario.exec)'")
            }
            if case .sharedIterations(let total) = scenario.run.executor, total < scenario.run.vus {
                let which = options.scenarios.isEmpty ? "" : "scenario \(scenario.name): "
                throw Failure.options("\(which)\(scenario.run.vus) VUs cannot share \(total) iterations: give at least one per VU "
                                      + "(options.iterations or --iterations), or fewer VUs")
            }
            let workload = Workload(scenario: scenario, index: index, offset: offset, segment: segment)
            guard !workload.numbers.isEmpty else {
                let most = scenario.run.peakVUs
                let which = options.scenarios.isEmpty ? "" : " of scenario \(scenario.name)"
                throw Failure.options("--segment \(segment): \(most) VUs\(which) make at most \(most) segments, and this one would have none")
            }
            return workload
        }
    }

    /// Calls the scenario's `handle_summary(data)` with `report` as `data` (what
    /// `--summary-out` writes), in a context of its own that runs the file's top level first
    /// (however the run ended); returns its outputs, nil when the scenario has none.
    public func handleSummary(_ report: ScenarioReport) async throws -> SummaryOutputs? {
        guard let chunk = summaryHook.value else { return nil }
        let data = try LuaJSON.decode(try report.json(pretty: false))
        let context = try await VirtualUser.start(0, script: script, chunk: chunk, runner: try await runner(for: 0), in: LiveUsers())
        let outputs: LuaValue
        do {
            outputs = try await context.call("handle_summary", [data]).first ?? .nil
        } catch {
            await context.close()
            throw error
        }
        await context.close()
        return try SummaryOutputs(outputs)
    }

    /// Starts VU `number` for the scenario it belongs to.
    private func makeUser(_ number: Int, chunk: LuaChunk) async throws -> VirtualUser {
        let user = try await VirtualUser.start(number, script: script, chunk: chunk, runner: try await runner(for: number), in: liveUsers)
        if let workload = workloads.owning(number) { await user.join(workload.scenario) }
        return user
    }

    /// Runs `setup` in a context of its own (VU 0), kept for `teardown`: what it returned
    /// (`ctx.data`) and the context; none when the scenario has neither.
    private func setUp(_ scenario: LuaValue, chunk: LuaChunk, first: VirtualUser) async throws -> (LuaValue, VirtualUser?) {
        guard scenario["setup"]?.stringValue == "function" || scenario["teardown"]?.stringValue == "function" else {
            return (.nil, nil)
        }
        let context = try await VirtualUser.start(0, script: script, chunk: chunk, runner: try await runner(for: 0), in: liveUsers)
        guard scenario["setup"]?.stringValue == "function" else { return (.nil, context) }
        do {
            return (try await context.call("setup", [], resultsMustBeData: true).first ?? .nil, context)
        } catch let error as LuaScriptError {
            await context.close()
            await first.close()
            throw Failure.setup(error)
        }
    }

    /// Runs `teardown(data)` unless the run was stopped, then closes the setup context.
    private func tearDown(_ scenario: LuaValue, context: VirtualUser?, data: LuaValue) async throws {
        guard let context else { return }
        if scenario["teardown"]?.stringValue == "function", !liveUsers.isStopped {
            do { _ = try await context.call("teardown", [data]) } catch let error as LuaScriptError {
                if !liveUsers.isStopped { timing.teardownError = error }
            }
        }
        await context.close()
    }

    private func runner(for number: Int) async throws -> ScriptRunner {
        var runner = try await makeRunner(number)
        // Each VU records through a view that tags its samples with its scenario and group.
        runner.metrics = metrics.scoped(MetricScope(tags: workloads.owning(number)?.scenario.tags ?? [:]))
        runner.sharedData = sharedData
        runner.random = (runSeed.value ?? seed ?? fallbackSeed, UInt64(number))
        if let pool = luaPool.value { runner.limits.pool = pool }
        return runner
    }

    /// How often thresholds with `abort_on_fail` are evaluated during a run, and `vus`
    /// sampled, in seconds.
    public static let abortCheckInterval = 1.0
    /// On a simulated clock, how far apart the gauges' samples and the checks may grow while
    /// the run records nothing and its gauges stay as they were (a VU asleep for days):
    /// each idle tick doubles the wait, up to this; anything recorded brings it back to
    /// ``abortCheckInterval``. A 30-day `ccai.sleep` then costs 43,200 ticks, not 2.6 million.
    public static let idleCheckInterval = 60.0

    /// Runs each scenario's executor over its pool, each from its start time, while the
    /// thresholds with `abort_on_fail` are watched; returns the threshold that aborted the
    /// run, if one did.
    private func execute(_ workloads: [Workload], options: ScenarioOptions, data: LuaValue, chunk: LuaChunk,
                         overMemory: RunValue<String>) async -> Threshold? {
        let start = clock.now()
        let counters = workloads.map { IterationCounter(total: $0.iterations) }
        for counter in counters { timing.attach(counter) }
        let active = ActiveUsers()
        let planned = counters.reduce(Optional(0)) { sum, counter in sum.flatMap { sum in counter.total.map { sum + $0 } } }
        status.begin(options: options, at: start, active: active, peakVUs: workloads.reduce(0) { $0 + $1.numbers.count },
                     plannedIterations: planned)
        let clock = self.clock, metrics = self.metrics, occupancy = self.occupancy, grace = timing.gracefulStop
        let luaPool = self.luaPool.value
        /// Why the run is over its memory now, if it is: its VUs filled their Lua budget, or
        /// the process holds more than the limit.
        let overBudget: @Sendable () -> String? = {
            if let luaPool, luaPool.wasExceeded { return options.memory.problem(filled: luaPool) }
            guard let resident = RunMemory.resident() else { return nil }
            return options.memory.problem(resident: resident, during: "while it ran")
        }
        let aborting = options.thresholds.filter(\.abortOnFail)
        let aborted = AbortingThreshold()
        await withTaskGroup(of: Void.self) { timers in
            timers.addTask {
                let simulated = !(clock is SystemClock)
                var interval = Self.abortCheckInterval
                var last: (samples: Int, gauges: [Double])?
                while (try? await clock.sleep(for: interval)) != nil {
                    let recorded = metrics.sampleCount
                    let vus = Double(active.count)
                    metrics.record(.vus, vus)
                    if let problem = overBudget() {
                        overMemory.value = problem
                        for counter in counters { counter.stop() }
                        for workload in workloads { await workload.pool.closeAll() }
                        return
                    }
                    var gauges = [vus]
                    if let now = await occupancy?() {
                        metrics.record(.queueLength, Double(now.waiting))
                        metrics.record(.agentsBusy, Double(now.busyAgents))
                        gauges += [Double(now.waiting), Double(now.busyAgents)]
                    }
                    let idle = last.map { $0.samples == recorded && $0.gauges == gauges } ?? false
                    interval = simulated && idle ? min(interval * 2, Self.idleCheckInterval) : Self.abortCheckInterval
                    last = (metrics.sampleCount, gauges)
                    guard !aborting.isEmpty, aborted.threshold == nil else { continue }
                    let snapshot = metrics.snapshot()
                    let elapsed = clock.now().timeIntervalSince(start)
                    guard let failed = aborting.first(where: {
                        $0.hasSamples(snapshot) && !$0.evaluate(snapshot, elapsed: elapsed).holds
                    })
                    else { continue }
                    aborted.set(failed)
                    for counter in counters { counter.stop() }
                    guard (try? await clock.sleep(for: grace)) != nil else { return }
                    for workload in workloads { await workload.pool.closeAll() }
                    return
                }
            }
            await withTaskGroup(of: Void.self) { scenarios in
                for (workload, counter) in zip(workloads, counters) {
                    let loop = ExecutorLoop(clock: clock, metrics: metrics, counter: counter, active: active, data: data,
                                            strictPlugins: options.strictPlugins, exec: workload.scenario.exec, tags: workload.scenario.tags,
                                            end: nil)
                    // A VU a ramp makes while the run goes is made only within the memory budget.
                    let roomForAnother: @Sendable () -> Bool = {
                        guard let problem = overBudget() else { return true }
                        overMemory.value = overMemory.value ?? problem
                        for counter in counters { counter.stop() }
                        return false
                    }
                    scenarios.addTask { await self.run(workload, on: loop, from: start, chunk: chunk, roomForAnother: roomForAnother) }
                }
            }
            timers.cancelAll()
        }
        return aborted.threshold
    }

    /// Runs one scenario's executor from its start time until its iterations are done or its
    /// duration and graceful stop have passed (then its VUs still running are stopped).
    private func run(_ workload: Workload, on loop: ExecutorLoop, from runStart: Date, chunk: LuaChunk,
                     roomForAnother: @escaping @Sendable () -> Bool) async {
        let scenario = workload.scenario, clock = self.clock, counter = loop.counter, pool = workload.pool
        let start = runStart.addingTimeInterval(scenario.startTime)
        // A run stopped before the scenario's start runs none of it (its arrivals are dropped).
        if scenario.startTime > 0, !(await counter.sleep(until: start, clock: clock)), scenario.run.arrival == nil { return }
        let end = scenario.run.plannedSeconds.map { start.addingTimeInterval($0) }
        var loop = loop
        loop.end = end
        loop.control = control
        loop.scenario = scenario.name
        loop.offset = workload.offset
        await withTaskGroup(of: Void.self) { timers in
            if let end {
                timers.addTask {
                    // Past the end and the grace period, iterations still running are cancelled.
                    guard (try? await clock.sleep(until: end.addingTimeInterval(scenario.run.gracefulStop))) != nil else { return }
                    await pool.closeAll()
                }
            }
            switch scenario.run.executor {
            case .sharedIterations, .constantVUs:
                await loop.everyUser(pool)
            case .rampingVUs(let stages):
                let schedule = RampingSchedule(startVUs: scenario.run.vus, stages: stages)
                await loop.ramp(pool, numbers: workload.numbers, wanted: { number in
                    schedule.target(at: clock.now().timeIntervalSince(start)) >= number - workload.offset
                }, waitUntilWanted: { number in
                    guard let activation = schedule.activation(of: number - workload.offset, from: clock.now().timeIntervalSince(start))
                    else { return false }
                    return await counter.sleep(until: start.addingTimeInterval(activation), clock: clock)
                }, roomForAnother: roomForAnother, make: { number in
                    try await self.makeUser(number, chunk: chunk)
                })
            case .arrivalRate(let arrival):
                await loop.arrivals(arrival, start: start, workload: workload, seed: runSeed.value ?? fallbackSeed) { number in
                    try await self.makeUser(number, chunk: chunk)
                }
            }
            timers.cancelAll()
        }
    }
}

/// How a run is stopped early: its whole-run timeout stops every VU at once; an
/// interruption stops new iterations, then every VU after the graceful stop.
final class RunTiming: @unchecked Sendable {
    private let lock = NSLock()
    private var timer: ClockTimer?
    private var graceTimer: ClockTimer?
    private var fired = false
    private var wasInterrupted = false
    private var counters: [IterationCounter] = []
    private var grace: Double = 30
    private var teardownFailure: LuaScriptError?
    /// Set when the run passed `options.max_memory` while it ran.
    /// What stopped the run over its memory budget, once one did.
    let memoryStop = RunValue<String>()

    var teardownError: LuaScriptError? {
        get { lock.withLock { teardownFailure } }
        set { lock.withLock { teardownFailure = newValue } }
    }

    var timedOut: Bool { lock.withLock { fired } }
    var interrupted: Bool { lock.withLock { wasInterrupted } }
    /// The scenario's `graceful_stop`, once its options are read.
    var gracefulStop: Double {
        get { lock.withLock { grace } }
        set { lock.withLock { grace = newValue } }
    }

    /// A counter of the iterations under way (one per scenario); stopped at once if the run
    /// was interrupted.
    func attach(_ counter: IterationCounter) {
        let stopNow = lock.withLock {
            counters.append(counter)
            return wasInterrupted
        }
        if stopNow { counter.stop() }
    }

    /// No new iteration starts; those running are stopped after `grace` seconds (the
    /// scenario's `graceful_stop` when nil; 0: at once).
    func interrupt(clock: any TimeSource, users: LiveUsers, grace: Double? = nil) {
        let (counters, grace): ([IterationCounter], Double) = lock.withLock {
            wasInterrupted = true
            graceTimer?.cancel()
            graceTimer = nil
            return (self.counters, grace ?? self.grace)
        }
        for counter in counters { counter.stop() }
        if grace <= 0 {
            users.stop()
            return
        }
        let timer = clock.schedule(after: grace) { users.stop() }
        lock.withLock { graceTimer = timer }
    }

    func arm(after seconds: Double, clock: any TimeSource, users: LiveUsers) {
        let timer = clock.schedule(after: seconds) { [weak self] in
            guard let self else { return }
            self.lock.withLock { self.fired = true }
            users.stop()
        }
        lock.withLock { self.timer = timer }
    }

    func disarm() {
        lock.withLock {
            timer?.cancel()
            timer = nil
            graceTimer?.cancel()
            graceTimer = nil
        }
    }
}

/// What a progress line reads of a run under way.
final class RunStatus: @unchecked Sendable {
    private let lock = NSLock()
    private var running: (options: ScenarioOptions, start: Date, active: ActiveUsers, peakVUs: Int, planned: Int?)?

    func begin(options: ScenarioOptions, at start: Date, active: ActiveUsers, peakVUs: Int, plannedIterations: Int?) {
        var options = options
        if case .arrivalRate(let arrival) = options.executor { options.vus = arrival.maxVUs }
        lock.withLock { running = (options, start, active, max(peakVUs, options.peakVUs), plannedIterations) }
    }

    func progress(clock: any TimeSource, metrics: ScenarioMetrics) -> ScenarioRunner.Progress? {
        guard let running = lock.withLock({ running }) else { return nil }
        let snapshot = metrics.snapshot()
        return ScenarioRunner.Progress(options: running.options, elapsed: clock.now().timeIntervalSince(running.start),
                                       activeVUs: running.active.count, peakVUs: running.peakVUs,
                                       iterations: snapshot.iterations, failedIterations: snapshot.failedIterations,
                                       plannedIterations: running.planned, checkPasses: snapshot.checkPasses,
                                       checkFails: snapshot.checkFails)
    }
}

/// The threshold that aborted a run, set once from the task that evaluates them.
final class AbortingThreshold: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Threshold?

    var threshold: Threshold? { lock.withLock { value } }
    func set(_ threshold: Threshold) { lock.withLock { value = value ?? threshold } }
}

/// Hands out iterations to VUs: `total` of them, or any number when nil; once stopped,
/// none, and the sleeps of VUs waiting for their turn end at once.
final class IterationCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: Int?
    private var stopped = false
    /// Sleepers by the order they came in, woken in that order.
    private var sleepers: [Int: CheckedContinuation<Void, Never>] = [:]
    private var lastSleeper = 0

    /// The iterations it hands out in all; nil: any number.
    let total: Int?

    init(total: Int?) {
        remaining = total
        self.total = total
    }

    /// Whether it was stopped (the run is ending).
    var isStopped: Bool { lock.withLock { stopped } }

    /// No more iterations start.
    func stop() {
        let waiting: [CheckedContinuation<Void, Never>] = lock.withLock {
            remaining = 0
            stopped = true
            defer { sleepers = [:] }
            return sleepers.sorted { $0.key < $1.key }.map(\.value)
        }
        for sleeper in waiting { sleeper.resume() }
    }

    func take() -> Bool {
        lock.withLock {
            guard let left = remaining else { return true }
            guard left > 0 else { return false }
            remaining = left - 1
            return true
        }
    }

    /// Sleeps until `deadline`; false when the counter was stopped first (or the task cancelled).
    func sleep(until deadline: Date, clock: any TimeSource) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await clock.sleep(until: deadline)) != nil }
            group.addTask {
                await self.waitForStop()
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first && !lock.withLock { stopped }
        }
    }

    /// How ``sleep(until:clock:control:after:)`` ended.
    enum Wake: Equatable {
        case deadline, stopped, changed
    }

    /// Sleeps until `deadline`, until the counter is stopped, or until `control` changes
    /// after `generation`, whichever comes first.
    func sleep(until deadline: Date, clock: any TimeSource, control: LiveControl, after generation: Int) async -> Wake {
        await withTaskGroup(of: Wake.self) { group in
            group.addTask { (try? await clock.sleep(until: deadline)) != nil ? .deadline : .stopped }
            group.addTask {
                await self.waitForStop()
                return .stopped
            }
            group.addTask {
                await control.changed(after: generation)
                return .changed
            }
            let first = await group.next() ?? .stopped
            group.cancelAll()
            return lock.withLock { stopped } ? .stopped : first
        }
    }

    private func waitForStop() async {
        let id = lock.withLock { () -> Int in
            lastSleeper += 1
            return lastSleeper
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = lock.withLock {
                    if stopped || Task.isCancelled { return true }
                    sleepers[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            lock.withLock { sleepers.removeValue(forKey: id) }?.resume()
        }
    }
}

/// Watches the run's memory while its VUs are made: past the budget, or once the VUs made
/// so far say that the rest would pass it, the run does not start.
final class MemoryWatch: @unchecked Sendable {
    private let memory: RunMemory
    private let wanted: Int
    private let baseline: Int?
    private var made = 0

    init(_ memory: RunMemory, wanted: Int) {
        self.memory = memory
        self.wanted = wanted
        baseline = RunMemory.resident()
    }

    /// Before making the next VU: why it must not be made, if it must not.
    func beforeMaking() -> String? {
        defer { made += 1 }
        guard let resident = RunMemory.resident() else { return nil }
        if let problem = memory.problem(resident: resident, during: "while making its VUs (\(made) made of \(wanted))") {
            return problem
        }
        // A projection from enough VUs that one-time costs no longer dominate.
        guard made >= 32, let baseline, resident > baseline else { return nil }
        return memory.problem(making: wanted - made, perUser: (resident - baseline) / made, resident: resident,
                              madeSoFar: made, wanted: wanted)
    }
}
