import CCAIKit
import Foundation
import LuaRuntime
import Timekeeping

/// Runs scripts in confined states that have the `ccai` module, with the runtime's
/// diagnostics going to the logger, and `print` too unless ``printOutput`` takes a
/// script's prints (`ccai run` writes them to standard output, as stock Lua does; a
/// plugin's go to the log, tagged with its file).
///
/// ```swift
/// let runner = ScriptRunner(environment: ["REGION": "eu"], logger: StreamLogger())
/// try await runner.run(file: "examples/quickstart.lua")
/// ```
public struct ScriptRunner: Sendable {
    /// The `--env KEY=VALUE` parameters, readable as `ccai.env`.
    public var environment: [String: String]
    public var limits: LuaLimits
    public var logger: ScriptLogger
    /// Extra folders `require` searches (the script's own folder always comes first).
    public var modulePaths: [String]
    /// The SDK instance scripts reach as `ccai.auth`, `ccai.company`...; nil leaves them out.
    public var sdk: CCAI?
    /// The Apps API `ccai.apps` reaches (none when nil).
    public var apps: AppsClient?
    /// The webhooks the run receives, by chat (`ccai.apps` events; none when nil).
    public var webhooks: WebhookInbox?
    /// The plugins `ccai.plugins` reaches (none when nil).
    public var plugins: PluginHost?
    /// Signs `custom_data = { signed = ... }` claims (the host's company secret).
    public var signer: ClaimsSigner?
    /// The time of `ccai.now()`, plugins' `ctx.now`, `ccai.sleep`, timeouts and the
    /// wall-clock budget: the platform's clock when the host knows it (an embedded sandbox
    /// with `clock_start`, or a simulation's), else the real time; a ``ManualClock`` in tests.
    public var clock: any TimeSource = SystemClock()
    /// The time of the wall-clock budget when it is not `clock`: the real time under a
    /// simulation, whose clock stands still while a script spins.
    public var budgetClock: (any TimeSource)?
    /// Where the `print`s of a script run with ``run(file:)`` go, line by line; nil: the log.
    public var printOutput: (@Sendable (String) -> Void)?
    /// The folder scripts write files to (`download_chat_transcript{ to = ... }`), and
    /// nowhere else; nil: the working directory.
    public var outputDirectory: String?
    /// Where `ccai.check` records (a scenario run's metrics); nil: checks return their
    /// result and record nothing.
    public var metrics: ScenarioMetrics?
    /// The files `ccai.data` read, shared by the states of a run (a scenario's VUs); each
    /// state made without it reads its own.
    public var sharedData: ScenarioData?
    /// The run's seed and the state's stream of it (a VU's number): its `math.random` and
    /// `ccai.uuid` draw from them (``RandomSeed``); nil: the system's randomness.
    public var random: (seed: RandomSeed, stream: UInt64)?

    /// Writes lines to standard output, whole (for ``printOutput``).
    public static let standardOutput: @Sendable (String) -> Void = { line in
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    public init(environment: [String: String] = [:], limits: LuaLimits = LuaLimits(),
                logger: ScriptLogger = StreamLogger(), modulePaths: [String] = [], sdk: CCAI? = nil,
                plugins: PluginHost? = nil) {
        self.environment = environment
        self.limits = limits
        self.logger = logger
        self.modulePaths = modulePaths
        self.sdk = sdk
        self.plugins = plugins
    }

    /// A fresh confined state with `ccai` as a global and as `require("ccai")`.
    /// `printing` takes the state's `print`s; nil: the log, prefixed with `printTag` when given.
    public func makeState(modulePaths extraPaths: [String] = [], printing: (@Sendable (String) -> Void)? = nil,
                          printTag: String? = nil) async throws -> LuaState {
        let (environment, sdk, signer, plugins, clock, logger) = (self.environment, self.sdk, self.signer, self.plugins, self.clock, self.logger)
        let (outputDirectory, metrics, random, apps, webhooks) = (self.outputDirectory, self.metrics, self.random, self.apps,
                                                                  self.webhooks)
        let data = sharedData ?? ScenarioData()
        // A scenario's VU counts the hook failures it sets off (`plugin_errors`).
        let failures = metrics.map { metrics in
            PluginFailures { metrics.record(.pluginErrors, 1, tags: $0.tags) }
        }
        return try await makeState(modulePaths: extraPaths + modulePaths, printing: printing, printTag: printTag,
                                   decorate: { table, lua in
                                       if let random { try random.seed.install(in: lua, stream: random.stream) }
                                       if let metrics, sdk != nil { lua.attach(SDKMetricsRecorder(metrics: metrics, clock: clock)) }
                                       if let failures { lua.attach(failures) }
                                   }) { lua in
            var context = sdk.map { SDKContext(sdk: $0, signer: signer, plugins: plugins, fileRoot: extraPaths.first, logger: logger) }
            context?.outputRoot = outputDirectory
            context?.pluginFailures = failures
            context?.apps = apps
            context?.webhooks = webhooks
            for service in EventService.allCases {
                context?.emitters[service] = lua.makeEmitter(name: service.module, events: service.eventNames)
            }
            var module = CCAIModule.make(environment: environment, logger: logger, sdk: context, clock: clock)
            module.module(PluginBindings.module(plugins, sdk: sdk, logger: logger, clock: clock, failures: failures))
            ScenarioBindings.install(into: &module, metrics: metrics, data: data, folder: extraPaths.first)
            return module
        }
    }

    /// A fresh confined state for a plugin: its `ccai` is ``PluginModule``'s (read-only
    /// services, no sign-in, chat or post-session), `require` searches `folder` only (a
    /// folder plugin's own folder; nil for a single-file plugin: host modules only), and
    /// its `print`s go to the log tagged with `printTag`.
    public func makePluginState(folder: String?, printTag: String) async throws -> LuaState {
        let (environment, sdk, clock, logger, apps) = (self.environment, self.sdk, self.clock, self.logger, self.apps)
        return try await makeState(modulePaths: folder.map { [$0] } ?? [], printing: nil, printTag: printTag) { _ in
            PluginModule.make(environment: environment, logger: logger, sdk: sdk, clock: clock, apps: apps)
        }
    }

    private func makeState(modulePaths: [String], printing: (@Sendable (String) -> Void)?, printTag: String?,
                           decorate: @escaping @Sendable (LuaReference, LuaContext) throws -> Void = { _, _ in },
                           module: @escaping @Sendable (LuaContext) -> LuaModule) async throws -> LuaState {
        let logger = self.logger
        let confinement = LuaConfinement(modulePaths: modulePaths) { line in
            if let printing { printing(line) } else { logger.log(LogRecord(level: .info, message: printTag.map { "[\($0)] " + line } ?? line)) }
        }
        var diagnostics = LuaDiagnostics(
            warning: { logger.log(LogRecord(level: .warn, message: $0)) },
            handlerError: { event, error in
                logger.log(LogRecord(level: .error, message: "error in '\(event)' handler: \(error)"))
            })
        if let metrics { diagnostics.eventDropped = { metrics.record(.eventsDropped, 1, tags: ["event": $0]) } }
        let state = try LuaState(limits: limits, confinement: confinement, diagnostics: diagnostics, clock: clock,
                                 budgetClock: budgetClock)
        let hasSDK = sdk != nil
        try await state.withContext { lua in
            lua.setErrorTypeName("ccai.Error")
            let table = lua.makeTable(module(lua))
            if hasSDK { CallBindings.defineCallClass(in: lua) }
            try decorate(table, lua)
            lua.provideModule("ccai", table)
            lua.setGlobal("ccai", reference: table)
        }
        return state
    }

    /// Runs the script at `path` until it and every task it spawned end.
    @discardableResult
    public func run(file path: String) async throws -> [LuaValue] {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let state = try await makeState(modulePaths: [folder], printing: printOutput)
        do {
            let results = try await state.run(file: path)
            await state.close()
            return results
        } catch {
            await state.close()
            throw error
        }
    }
}
