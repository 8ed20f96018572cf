import CCAIKit
import Foundation
import LuaRuntime
import Timekeeping

/// One virtual user of a scenario: its state (which ran the file's top level) and how many
/// iterations it has run.
actor VirtualUser {
    let number: Int
    private let state: LuaState
    /// The user's SDK instance, when the run has a platform.
    private let sdk: CCAI?
    /// What the user's SDK calls and events add to the run's metrics, when it has a platform.
    private var recorder: SDKMetricsRecorder?
    private var iteration = 0
    private var isClosed = false
    /// True once a budget killed the state (kills are sticky) or the user was closed.
    private(set) var isKilled = false

    /// The plugin hooks the user's state set off that failed.
    private var pluginFailures: PluginFailures?
    /// The user's view of the run's metrics (its scenario's and group's tags), which its
    /// iterations are recorded in.
    private var metrics: ScenarioMetrics?
    /// The scenario it runs iterations of (`ctx.scenario`).
    private var scenarioName = "default"

    private init(number: Int, state: LuaState, sdk: CCAI?) {
        self.number = number
        self.state = state
        self.sdk = sdk
    }

    /// Keeps the user's iterations apart (``ConversationScope``), and the recorder at hand
    /// for an iteration cut off.
    private func prepare(metrics: ScenarioMetrics?) async {
        self.metrics = metrics
        (recorder, pluginFailures) = await state.withContext { lua in
            lua.attach(ConversationScope())
            return (lua.attachment(SDKMetricsRecorder.self), lua.attachment(PluginFailures.self))
        }
    }

    /// Makes the user's state and runs the file's top level in it (`chunk`, the file
    /// compiled once for the run), keeping what it returns.
    /// The user is in `users` from before its top level runs, so that stopping the run
    /// (its timeout) stops a top level that never ends.
    static func start(_ number: Int, script: String, chunk: LuaChunk, runner: ScriptRunner, in users: LiveUsers) async throws
        -> VirtualUser
    {
        let folder = URL(fileURLWithPath: script).deletingLastPathComponent().path
        let user = VirtualUser(number: number, state: try await runner.makeState(modulePaths: [folder], printing: runner.printOutput),
                               sdk: runner.sdk)
        guard users.add(user) else {
            await user.close()
            throw LuaScriptError(kind: .cancelled, message: "the run was stopped")
        }
        await user.prepare(metrics: runner.metrics)
        do {
            try await user.state.run(chunk: chunk, keepingResultAs: "scenario")
        } catch {
            await user.close()
            throw error
        }
        return user
    }

    /// Makes the user's `math.random` and `ccai.uuid` draw from `seed` (its stream is the
    /// user's number): the first VU's, once the file's `options.seed` is known.
    func reseed(_ seed: RandomSeed) async throws {
        let stream = UInt64(number)
        try await state.withContext { lua in try seed.install(in: lua, stream: stream) }
    }

    /// The user takes part in `scenario`: its samples carry the scenario's tags.
    func join(_ scenario: NamedScenario) {
        scenarioName = scenario.name
        metrics?.scope?.retag(scenario.tags)
    }

    /// The shape of what the file returned (functions read as `"function"`) when it is a
    /// scenario (a table with a `run` function, or `options.scenarios`); nil for a plain chunk.
    func scenarioShape() async -> LuaValue? {
        let shape = await state.inspect(kept: "scenario")
        guard shape.tableValue != nil, shape["run"]?.stringValue == "function" || shape["options"]?["scenarios"]?.tableValue != nil
        else { return nil }
        return shape
    }

    /// Calls the scenario's function `name` with `arguments`; with `resultsMustBeData`, a
    /// result that cannot be copied to other states (`setup`'s, for every VU) is an error.
    func call(_ name: String, _ arguments: [LuaValue], resultsMustBeData: Bool = false) async throws -> [LuaValue] {
        try await state.call(kept: "scenario", path: [.string(name)], arguments: arguments, resultsMustBeData: resultsMustBeData) ?? []
    }

    /// The error of an iteration the end of the run stopped.
    static let stoppedAtTheEnd = "stopped when the run ended (its graceful_stop had passed, it timed out or it was interrupted)"

    /// Runs one iteration and records it; an app the iteration left in the background
    /// (``CCAI/setInBackground(_:)``) comes back to the foreground after it. False when the
    /// user was stopped before it could start: nothing ran.
    ///
    /// The iteration starts apart from the earlier ones: no event they left for `wait_for`,
    /// no `on` subscription they made, and no event of their chats and calls reaches it. One
    /// cut off by the end of the run fails as `interrupted`, and the chats it left open
    /// count as abandoned. With the plan's `strictPlugins`, a plugin hook it set off that
    /// failed fails it. It is recorded in the user's view of the plan's metrics (tagged with
    /// its scenario), and begins outside any group.
    ///
    /// The work around the call is out of line: this function waits on the VU's task while
    /// the iteration runs, and its frame stays small.
    @discardableResult
    func iterate(_ plan: IterationPlan) async -> Bool {
        guard !isKilled else { return false }
        iteration += 1
        await beginRound()
        let context = roundContext(plan)
        let began = plan.clock.now()
        let error = await play(plan.exec, context)
        record(plan, began: began, error: error)
        // Each iteration starts with the app in the foreground, whatever the last one did.
        if let sdk, sdk.isInBackground, !isKilled { await sdk.setInBackground(false) }
        return true
    }

    /// The iteration's `ctx`, once what the last one left is set aside.
    @inline(never)
    private func roundContext(_ plan: IterationPlan) -> LuaValue {
        _ = pluginFailures?.takeFirst()
        (metrics ?? plan.metrics).scope?.leaveAll()
        return ["vu": .integer(Int64(number)), "iteration": .integer(Int64(iteration)), "data": plan.data,
                "scenario": .string(scenarioName)]
    }

    /// Calls the scenario's function `exec` with `context`; the error it ended with.
    @inline(never)
    private func play(_ exec: String, _ context: LuaValue) async -> (any Error)? {
        do {
            _ = try await call(exec, [context])
            return nil
        } catch {
            return error
        }
    }

    /// Records the iteration begun at `began` that ended with `error`.
    @inline(never)
    private func record(_ plan: IterationPlan, began: Date, error: (any Error)?) {
        var failure: ScenarioMetrics.IterationFailure?
        if let error = error as? LuaScriptError {
            let cutOff = isClosed && error.kind == .cancelled
            failure = cutOff ? ScenarioMetrics.IterationFailure(message: Self.stoppedAtTheEnd, reason: .interrupted)
                : ScenarioMetrics.IterationFailure(message: error.message, reason: .error)
            if cutOff { recorder?.abandonOpenChats() }
            if error.kind == .limit || isClosed { isKilled = true }
        } else if let error {
            failure = ScenarioMetrics.IterationFailure(message: "\(error)", reason: .error)
        }
        if plan.strictPlugins, failure == nil, let plugin = pluginFailures?.takeFirst() {
            failure = ScenarioMetrics.IterationFailure(message: plugin.description + " (strict_plugins)", reason: .error)
        }
        (metrics ?? plan.metrics).recordIteration(seconds: plan.clock.now().timeIntervalSince(began), failure: failure)
        recorder?.calls.iterationEnded(leaving: sdk?.callService?.currentCall)
    }

    /// Sets the earlier iterations' events and conversations aside (see ``iterate(_:)``).
    private func beginRound() async {
        let current = openConversations()
        await state.withContext { lua in
            guard !lua.isClosed else { return }
            lua.beginEventRound()
            lua.attachment(ConversationScope.self)?.retireAll(current: current)
        }
    }

    /// The chat and call the user has open, whose events the next iteration still gets.
    @inline(never)
    private func openConversations() -> [ConversationScope.Conversation] {
        var current: [ConversationScope.Conversation] = []
        if let chat = sdk?.chatService?.currentChat { current.append(.chat(chat.id)) }
        if let call = sdk?.callService?.currentCall { current.append(.call(call.id)) }
        return current
    }

    /// Stops the user: Lua running in its state ends at once (even a loop that never
    /// yields), then the state is closed.
    func close() async {
        guard !isClosed else { return }
        isClosed = true
        isKilled = true
        state.requestStop()
        await state.close()
    }
}

/// Every VU of a run (and its setup context), so that the run can be stopped at once: a
/// stopped run closes them all, and a VU made afterwards is closed as soon as it is made.
final class LiveUsers: @unchecked Sendable {
    private let lock = NSLock()
    private var users: [VirtualUser] = []
    private var stopped = false

    var isStopped: Bool { lock.withLock { stopped } }

    /// Adds `user`; false when the run has been stopped.
    func add(_ user: VirtualUser) -> Bool {
        lock.withLock {
            guard !stopped else { return false }
            users.append(user)
            return true
        }
    }

    /// Closes every VU: running iterations and top levels end as cancelled.
    func stop() {
        let all: [VirtualUser] = lock.withLock {
            stopped = true
            return users
        }
        for user in all { Task { await user.close() } }
    }
}

/// What every iteration of a scenario's VUs is given: one for the scenario, shared by its
/// VUs, so that an iteration's frames hold a reference rather than each value.
final class IterationPlan: Sendable {
    /// The scenario table's function each iteration calls.
    let exec: String
    /// What `setup` returned (`ctx.data`).
    let data: LuaValue
    let clock: any TimeSource
    /// The run's metrics, where a user records its iterations unless it has its own view.
    let metrics: ScenarioMetrics
    /// `strict_plugins`: a plugin hook that fails fails the iteration that set it off.
    let strictPlugins: Bool

    init(exec: String = "run", data: LuaValue, clock: any TimeSource, metrics: ScenarioMetrics, strictPlugins: Bool = false) {
        self.exec = exec
        self.data = data
        self.clock = clock
        self.metrics = metrics
        self.strictPlugins = strictPlugins
    }
}
