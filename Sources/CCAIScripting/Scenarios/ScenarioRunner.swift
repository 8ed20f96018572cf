import Foundation
import LuaRuntime
import Timekeeping

/// Runs a scenario file (LUA-API section 6): `return { options = {...}, setup = fn,
/// run = fn(ctx), teardown = fn }` in many virtual users, or a plain chunk once, as VU 1.
///
/// Each VU has its own sandboxed state, its own SDK instance and end user (what
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
        public var description: String {
            switch self {
            case .options(let message): return message
            case .setup(let error): return "setup failed: \(error.message)"
            }
        }
    }

    public var script: String
    public var overrides = Overrides()
    /// Seconds the whole run may take (`--timeout`; over `options.timeout`); nil: no limit.
    public var timeout: Double?
    /// The VUs of the run, to stop them all.
    private let liveUsers = LiveUsers()
    /// What `ccai.data` read, shared by every VU of the run.
    private let sharedData = ScenarioData()
    private let timing = RunTiming()

    /// True when the run was stopped by its timeout.
    public var timedOut: Bool { timing.timedOut }
    /// True when ``interrupt()`` stopped the run.
    public var interrupted: Bool { timing.interrupted }
    /// The error `teardown` raised, if it did (the run's summary stands).
    public var teardownError: LuaScriptError? { timing.teardownError }

    /// Stops the run as Ctrl-C does: no new iteration starts, and those running get the
    /// scenario's `graceful_stop` (30 s by default; a plain script is its one iteration),
    /// after which every VU is stopped.
    public func interrupt() {
        timing.interrupt(clock: clock, users: liveUsers)
    }
    public var metrics = ScenarioMetrics()
    /// The clock durations are measured with.
    public var clock: any Clock = SystemClock()
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
        let first = try await VirtualUser.start(1, script: script, runner: try await runner(for: 1), in: liveUsers)
        guard let scenario = await first.scenarioShape() else {
            await first.close()
            guard overrides.isEmpty else {
                throw Failure.options("--vus, --iterations and --duration need a scenario: a file that returns "
                                      + "{ run = function(ctx) ... end }")
            }
            return .plainChunk
        }
        var options: ScenarioOptions
        do {
            options = try ScenarioOptions(table: scenario["options"], declared: metrics.declaredKinds)
        } catch let problem as ScenarioOptions.Problem {
            await first.close()
            throw Failure.options(problem.description)
        }
        if let vus = overrides.vus { options.vus = vus }
        if let iterations = overrides.iterations { options.iterations = iterations }
        if let duration = overrides.duration { options.duration = duration }
        if options.duration == nil, let iterations = options.iterations, iterations < options.vus {
            await first.close()
            throw Failure.options("\(options.vus) VUs cannot share \(iterations) iterations: give at least one per VU "
                                  + "(options.iterations or --iterations), or fewer VUs")
        }
        if timeout == nil, let seconds = options.timeout { timing.arm(after: seconds, clock: clock, users: liveUsers) }
        timing.gracefulStop = options.gracefulStop

        var data: LuaValue = .nil
        var setupContext: VirtualUser?
        if scenario["setup"]?.stringValue == "function" || scenario["teardown"]?.stringValue == "function" {
            let context = try await VirtualUser.start(0, script: script, runner: try await runner(for: 0), in: liveUsers)
            setupContext = context
            if scenario["setup"]?.stringValue == "function" {
                do {
                    data = try await context.call("setup", []).first ?? .nil
                } catch let error as LuaScriptError {
                    await context.close()
                    await first.close()
                    throw Failure.setup(error)
                }
            }
        }
        var users = [first]
        do {
            for number in stride(from: 2, through: options.vus, by: 1) {
                users.append(try await VirtualUser.start(number, script: script, runner: try await runner(for: number), in: liveUsers))
            }
        } catch {
            for user in users { await user.close() }
            await setupContext?.close()
            throw error
        }
        let abortedBy = await execute(users, options: options, data: data)
        for user in users { await user.close() }
        if let setupContext {
            if scenario["teardown"]?.stringValue == "function", !liveUsers.isStopped {
                do { _ = try await setupContext.call("teardown", [data]) } catch let error as LuaScriptError {
                    if !liveUsers.isStopped { timing.teardownError = error }
                }
            }
            await setupContext.close()
        }
        return .scenario(options, abortedBy: abortedBy)
    }

    private func runner(for number: Int) async throws -> ScriptRunner {
        var runner = try await makeRunner(number)
        runner.metrics = metrics
        runner.sharedData = sharedData
        return runner
    }

    /// How often thresholds with `abort_on_fail` are evaluated during a run, in seconds.
    public static let abortCheckInterval = 1.0

    /// Shared iterations, or each VU looping until the duration has passed; returns the
    /// threshold that aborted the run, if one did.
    private func execute(_ users: [VirtualUser], options: ScenarioOptions, data: LuaValue) async -> Threshold? {
        let start = clock.now()
        let counter = IterationCounter(total: options.duration == nil ? options.totalIterations : options.iterations)
        timing.attach(counter)
        let deadline = options.duration.map { start.addingTimeInterval($0) }
        let clock = self.clock, metrics = self.metrics
        let aborting = options.thresholds.filter(\.abortOnFail)
        let aborted = AbortingThreshold()
        await withTaskGroup(of: Void.self) { timers in
            if let deadline {
                timers.addTask {
                    // Past the duration and the grace period, iterations still running are cancelled.
                    guard (try? await clock.sleep(until: deadline.addingTimeInterval(options.gracefulStop))) != nil else { return }
                    for user in users { await user.close() }
                }
            }
            if !aborting.isEmpty {
                timers.addTask {
                    while (try? await clock.sleep(for: Self.abortCheckInterval)) != nil {
                        let elapsed = clock.now().timeIntervalSince(start)
                        let snapshot = metrics.snapshot()
                        guard let failed = aborting.first(where: {
                            $0.hasSamples(snapshot) && !$0.evaluate(snapshot, vus: options.vus, elapsed: elapsed).holds
                        })
                        else { continue }
                        aborted.set(failed)
                        counter.stop()
                        guard (try? await clock.sleep(for: options.gracefulStop)) != nil else { return }
                        for user in users { await user.close() }
                        return
                    }
                }
            }
            await withTaskGroup(of: Void.self) { group in
                for user in users {
                    group.addTask {
                        while !(await user.isKilled), counter.take() {
                            if let deadline, clock.now() >= deadline { break }
                            await user.iterate(data: data, clock: clock, metrics: metrics)
                        }
                    }
                }
            }
            timers.cancelAll()
        }
        return aborted.threshold
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
    private var counter: IterationCounter?
    private var grace: Double = 30
    private var teardownFailure: LuaScriptError?

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

    /// The counter of the iterations under way; stopped at once if the run was interrupted.
    func attach(_ counter: IterationCounter) {
        let stopNow = lock.withLock {
            self.counter = counter
            return wasInterrupted
        }
        if stopNow { counter.stop() }
    }

    func interrupt(clock: any Clock, users: LiveUsers) {
        let (counter, grace): (IterationCounter?, Double) = lock.withLock {
            wasInterrupted = true
            return (self.counter, self.grace)
        }
        counter?.stop()
        let timer = clock.schedule(after: grace) { users.stop() }
        lock.withLock { graceTimer = timer }
    }

    func arm(after seconds: Double, clock: any Clock, users: LiveUsers) {
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

/// The threshold that aborted a run, set once from the task that evaluates them.
final class AbortingThreshold: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Threshold?

    var threshold: Threshold? { lock.withLock { value } }
    func set(_ threshold: Threshold) { lock.withLock { value = value ?? threshold } }
}

/// Hands out iterations to VUs: `total` of them, or any number when nil.
final class IterationCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: Int?

    init(total: Int?) { remaining = total }

    /// No more iterations start.
    func stop() { lock.withLock { remaining = 0 } }

    func take() -> Bool {
        lock.withLock {
            guard let left = remaining else { return true }
            guard left > 0 else { return false }
            remaining = left - 1
            return true
        }
    }
}
