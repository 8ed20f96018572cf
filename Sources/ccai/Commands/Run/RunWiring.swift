import CCAIScripting
import CCAIWire
import Foundation
import LuaRuntime
import Timekeeping

/// What a run is wired to: the platform the SDK talks to (``PlatformConnection``), the
/// SDK connections of its VUs, the log, the plugins, and the runner every VU copies.
struct RunWiring {
    let options: RunOptions.Values
    let platform: PlatformConnection.Platform
    let connections = Connections()
    /// Thousands of VUs failing alike write one line each time, counted at the end.
    let logger: RepeatCountingLogger
    /// The runner each VU's is made from: environment, limits, clocks, output folder, plugins.
    var template: ScriptRunner

    /// Starts the platform and signs in the first VU (whose SDK the plugins use).
    static func start(_ options: RunOptions.Values) async throws -> RunWiring {
        let platform = try await options.connection.start()
        let logger = RepeatCountingLogger(StreamLogger(minimumLevel: options.logLevel, clock: platform.simulation?.clock))
        var template = ScriptRunner(environment: options.environment, limits: options.limits, logger: logger)
        // With an output on standard output, the script's prints go to standard error.
        template.printOutput = options.outputs.takesStandardOutput ? { printError($0, lines: true) } : ScriptRunner.standardOutput
        template.clock = platform.clock
        // A simulation's clock stands still while a script spins: budgets keep the real time.
        if platform.simulation != nil { template.budgetClock = SystemClock() }
        template.outputDirectory = options.outputDirectory
        template.apps = platform.apps
        template.webhooks = platform.webhooks
        var wiring = RunWiring(options: options, platform: platform, logger: logger, template: template)
        try await wiring.loadPlugins()
        return wiring
    }

    /// The `--plugins` folders, else the plugins folder beside the script if there is one.
    private var pluginDirectories: [String] {
        guard options.pluginDirectories.isEmpty else { return options.pluginDirectories }
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: besideScript, isDirectory: &isFolder) && isFolder.boolValue
            ? [besideScript] : []
    }

    private var besideScript: String {
        URL(fileURLWithPath: options.script).deletingLastPathComponent().appendingPathComponent("plugins").path
    }

    /// Loads the plugins into the template; with `--strict-plugins`, one that fails fails the run.
    private mutating func loadPlugins() async throws {
        let firstConnection = try connections.connection(1, on: platform)
        let directories = pluginDirectories
        guard !directories.isEmpty else {
            logger.log(LogRecord(level: .debug, message: "no plugins: no folder \(besideScript) beside the script, and no --plugins"))
            return
        }
        var pluginRunner = template
        pluginRunner.sdk = firstConnection.sdk
        let plugins = PluginHost(directories: directories, runner: pluginRunner)
        let loaded = await plugins.load()
        let files = loaded.map { "\(URL(fileURLWithPath: $0.file).lastPathComponent) (\($0.state))" }
        logger.log(LogRecord(level: .info, message: "plugins from \(directories.joined(separator: ", ")): "
                             + (files.isEmpty ? "none" : files.joined(separator: ", "))))
        let failed = loaded.filter { $0.state != "loaded" }
        if options.strictPlugins, !failed.isEmpty {
            await plugins.shutdown()
            await platform.server?.stop()
            await platform.consoleServer?.stop()
            throw CommandFailure(messages: failed.map { "plugin \($0.file): \($0.errors.joined(separator: "; "))" })
        }
        // Files do not change in the seconds a simulated day takes: no reloads in virtual time.
        if platform.simulation == nil { await plugins.startWatching() }
        template.plugins = plugins
    }

    /// The scenario runner: each VU gets its own connection and a copy of the template.
    func scenario(clock: any TimeSource) -> ScenarioRunner {
        let runnerTemplate = template, connections = connections, platform = platform
        var scenario = ScenarioRunner(script: options.script) { number in
            let connection = try connections.connection(number, on: platform)
            var runner = runnerTemplate
            runner.sdk = connection.sdk
            runner.signer = connection.delegate
            return runner
        }
        scenario.overrides = options.overrides
        scenario.timeout = options.timeout
        scenario.strictPlugins = options.strictPlugins
        scenario.segment = options.segment
        scenario.seed = options.seed
        scenario.occupancy = platform.occupancy
        scenario.clock = clock
        scenario.metrics = ScenarioMetrics(clock: clock)
        scenario.clockCheck = clockCheck
        scenario.fallbackSeed = options.segment.isWhole ? RandomSeed.chosen() : RandomSeed(0)
        return scenario
    }

    /// What a scenario whose options ask for virtual time or a start must be run again with
    /// (nil: nothing); an error when the platform cannot move its clock.
    private var clockCheck: @Sendable (ScenarioOptions) throws -> [String]? {
        let virtualTime = options.virtualTime, givenStart = options.start, loopback = options.connection.loopback
        let embedded = platform.sandbox != nil
        return { options in
            var missing: [String] = []
            if options.virtualTime, !virtualTime { missing.append(RunOptions.virtualTime.name) }
            if let start = options.start, givenStart == nil { missing += [RunOptions.start.name, start.text] }
            guard !missing.isEmpty else { return nil }
            guard embedded else {
                throw ScenarioRunner.Failure.options("options.virtual_time and options.start move the embedded sandbox's clock; "
                                                     + "a platform at --host keeps its own time")
            }
            guard !(options.virtualTime && loopback) else {
                throw ScenarioRunner.Failure.options("options.virtual_time runs the embedded sandbox in the process, and --loopback "
                                                     + "reaches it over sockets, whose requests the simulated clock cannot wait for")
            }
            return missing
        }
    }

    /// Stops the plugins and the embedded servers.
    func stop() async {
        await template.plugins?.shutdown()
        await platform.server?.stop()
        await platform.consoleServer?.stop()
        await platform.webhookReceiver?.stop()
    }

    /// The SDK connections of a run by VU number (0: setup and teardown), each its own end
    /// user (`vu-<n>`, `vu-setup`), kept until the run ends: the SDK holds its delegate weakly.
    final class Connections: @unchecked Sendable {
        private let lock = NSLock()
        private var byNumber: [Int: PlatformConnection.Connection] = [:]

        func connection(_ number: Int, on platform: PlatformConnection.Platform) throws -> PlatformConnection.Connection {
            try lock.withLock {
                if let connection = byNumber[number] { return connection }
                let connection = try platform.connection(for: EndUser(identifier: number == 0 ? "vu-setup" : "vu-\(number)"))
                byNumber[number] = connection
                return connection
            }
        }

        /// Ends each end user's chat in progress (a run that was stopped may leave some,
        /// and on a served sandbox they would fail that end user's next run); with a
        /// `deadline` (seconds on `clock`), those not ended by then are given up.
        func endOpenChats(within deadline: Double? = nil, clock: any TimeSource = SystemClock()) async {
            let all = lock.withLock { Array(byNumber.values) }
            await withTaskGroup(of: Bool.self) { group in
                var ending = 0
                for connection in all {
                    guard let chats = connection.sdk.chatService else { continue }
                    ending += 1
                    group.addTask {
                        guard let chat = try? await chats.getLastChatInProgress() else { return true }
                        try? await chats.resumeChat(chat)
                        try? await chats.endChat()
                        return true
                    }
                }
                if let deadline, ending > 0 {
                    group.addTask { (try? await clock.sleep(for: deadline)) == nil }
                    // The deadline's task ends first (false) only when the chats have not.
                    while ending > 0, let ended = await group.next() {
                        guard ended else { break }
                        ending -= 1
                    }
                    group.cancelAll()
                }
            }
        }
    }
}
