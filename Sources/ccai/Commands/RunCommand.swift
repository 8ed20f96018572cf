import CCAIScripting
import CCAIWire
import Foundation
import LuaRuntime
import Timekeeping

/// `ccai run SCRIPT [options]`: runs a Lua script in the sandboxed runtime.
struct RunCommand {
    static let help = """
        Usage: ccai run SCRIPT [options]

        Runs a Lua script in the sandboxed runtime with the `ccai` module. The run ends
        when the script and every task it spawned have ended.

        A scenario is a script that returns { options = {...}, setup = fn, run = fn(ctx),
        teardown = fn }: it runs in virtual users (VUs), each with its own Lua state, SDK
        instance and end user (vu-1, vu-2, ...). options.vus VUs (default 1) share
        options.iterations (default one per VU), or each loops for options.duration
        ("30s", "5m"); options.stages = { { duration = "30s", target = 100 }, ... }
        ramps the VUs taking part; options.arrival = { rate = 100, time_unit = "1h",
        duration = "12h", max_vus = 200, poisson = true } starts iterations at a rate
        whatever their length (arrivals that find no free VU are dropped_iterations).
        An iteration still running at the end gets options.graceful_stop (default 30s).
        run(ctx) gets ctx.vu, ctx.iteration and ctx.data (what setup returned; setup and
        teardown run once, as end user vu-setup). ccai.check records named checks,
        ccai.metrics.trend|counter|rate|gauge(name) declares metrics of your own
        (m:add(value, tags)). Built in: checks, iterations, iteration_duration_seconds,
        iteration_failed, dropped_iterations, vus, sdk_call_seconds (tagged service,
        method, status), chat_start_seconds, chat_wait_seconds (until an agent or
        virtual agent takes the chat), chat_first_response_seconds,
        message_round_trip_seconds, csat_rating. While it runs, a progress line on
        standard error (redrawn on a terminal, NO_COLOR honoured; a line a second
        otherwise; none with --quiet); at the end the summary shows the thresholds, the
        checks, the metrics and the errors that failed iterations, each once with its
        count.

        The SDK (ccai.auth, ccai.company, ccai.end_user, ccai.language, ccai.queue_menu,
        ccai.chat, ccai.smart_action, ccai.screen_share, ccai.options) talks to the
        embedded sandbox by default: the built-in company, or --sandbox CONFIG.lua (with
        its agent scripts), reached through its router in this process (--loopback:
        over HTTP on a loopback port). With --host it talks to
        that platform instead. The host authenticates the script's end user ("vu-1", or
        what the script sets with ccai.end_user.update_end_user) by signing a JWT; scripts
        never see the secret. Against --host the operator, not the script, decides whom
        a script may be: the host signs only identifiers matching --identities and only
        the signed custom data keys listed by --signed-claims; anything else fails with
        "forbidden", naming the flag.

        Options:
          --env KEY=VALUE          a parameter the script reads as ccai.env.KEY (repeatable)
          --plugins DIR            load the plugins of DIR (repeatable; default: the
                                   plugins folder beside the script, if there is one);
                                   they are reloaded when their files change, and they
                                   answer deflection, smart actions and forms
          --vus N                  a scenario's virtual users (over options.vus)
          --iterations N           the iterations they share (over options.iterations)
          --duration D             how long each VU loops, e.g. 30s, 5m, 1h30m (over
                                   options.duration); any of the three replaces the
                                   file's stages and arrival
          --timeout D              the longest the whole run may take (over
                                   options.timeout; a plain script too): past it,
                                   every VU is stopped, the summary of what ran is
                                   printed, and the exit status is 1
          --seed N                 the seed of the run's random numbers (over
                                   options.seed): each VU's math.random and ccai.uuid,
                                   and Poisson arrivals, draw the same from the same
                                   seed; without one a run chooses a seed and prints it
                                   (a slice of a split run uses 0, so its slices agree)
          --virtual-time           run on a simulated clock (over options.virtual_time;
                                   embedded sandbox only): it jumps to the next deadline
                                   whenever nothing is left to do, so a day of traffic
                                   takes seconds, and with --seed and --start a run
                                   replays alike
          --start TIME             when the run begins (over options.start), ISO 8601;
                                   without an offset, in the company's time zone:
                                   2026-12-07T08:00 (the simulated clock's start, or
                                   without --virtual-time the sandbox's business hours)
          --segment I/N            run the I-th of N slices of the scenario (VUs striped:
                                   VU n is slice (n-1)%N+1's; iterations and arrivals
                                   alike); the slices' --summary-out files merge with
                                   'ccai report merge' into exactly the whole run
          --out json=FILE          every sample as a JSON line (k6's Metric, Point and,
                                   last, Summary lines)
          --out junit=FILE         the thresholds and checks as JUnit XML testcases
          --out html=FILE          a self-contained HTML report: the summary and
                                   charts over time (VUs, iterations a second,
                                   failures, round-trip, first-response and chat
                                   wait percentiles, the embedded sandbox's queue
                                   and busy agents)
          --summary-out FILE       the summary as JSON, with mergeable digests (what
                                   'ccai report merge' reads)
          --strict-plugins         a plugin that fails to load fails the run (exit 1)
          --sandbox CONFIG.lua     the embedded sandbox's configuration
          --loopback               reach the embedded sandbox over HTTP on a loopback
                                   port, as a remote platform is reached (default:
                                   through its router in this process, no sockets, so
                                   that no descriptor limit caps the VUs)
          --host HOST              a platform instead of the embedded sandbox (HOST[:PORT]
                                   or a URL), with --company-key KEY and one of
                                   --company-secret SECRET, --company-secret-file FILE,
                                   the CCAI_COMPANY_SECRET environment variable, or
                                   --jwt-command CMD (a shell command printing the end
                                   user's JWT; it gets the identity as a JSON object on
                                   standard input and in CCAI_CLAIMS, e.g.
                                   'ccai jwt sign --secret-file F --claims -');
                                   --jwt-alg HS384|HS256 pins the algorithm the host
                                   signs with (default: HS384, or HS256 when the
                                   platform refuses HS384 as unsupported). A HOST
                                   without a scheme is reached over https://, except
                                   localhost and literal loopback addresses (127.x.y.z,
                                   ::1), which get http://; an http:// URL is used
                                   as given
          --identities PATTERN     with --host: the end-user identifiers the host signs
                                   in as, a glob (*, ?, [...]; repeatable, any may
                                   match; default: vu-*)
          --signed-claims KEY,...  with --host: the keys of signed custom data the host
                                   signs (default: none)
          --log-level LEVEL        debug, info, warn or error (default: info)
          --quiet                  no progress line, and only warnings and errors in
                                   the log (as --log-level warn); the script's print
                                   writes to standard output whatever the log level
          --out-dir DIR            the folder scripts write files to (transcripts);
                                   paths stay inside it (default: ./ccai-out, made
                                   with mode 0700 on the first write); a new file
                                   gets mode 0600, a file written over keeps its
                                   mode, and a symlink in the way is replaced, not
                                   followed
          --memory-limit SIZE      memory cap of the script's state, e.g. 64M (default: 64M)
          --instruction-limit N    Lua instructions allowed between two yields (default: 200000000)
          --time-limit SECONDS     wall-clock seconds allowed between two yields (default: 10)

        A scenario's options.thresholds are pass/fail criteria in k6's expressions, by
        metric: checks = "rate > 0.99", chat_wait_seconds = "p(80) < 20" (a service level
        of 80/20), iterations = "count >= 100", iteration_failed = "rate < 0.01",
        vus = "value == 10", and on tagged sub-metrics ("sdk_call_seconds{method:start}",
        "checks{check:agent answered}", your own "name{tag:value}");
        { threshold = "...", abort_on_fail = true } stops the run as soon as it fails.

        Ctrl-C or SIGTERM stops a run: no new iteration starts, those running get
        graceful_stop, the chats still open are ended, the summary of what ran is
        printed, and the run exits 130 (143 for SIGTERM); a second one stops at once.

        Exit status: 0 success (in a scenario, failed iterations are counted, not
        fatal), 1 the script, a VU's top level or setup failed (error and traceback on
        stderr) or the run timed out, 2 usage error (a scenario's bad options
        included), 99 a threshold failed, 130 interrupted (Ctrl-C), 143 terminated
        (SIGTERM).
        """

    var script: String
    var environment: [String: String] = [:]
    var logLevel: LogLevel = .info
    var limits = LuaLimits()
    var connection = PlatformConnection()
    var pluginDirectories: [String] = []
    /// `--strict-plugins`: a plugin that fails to load fails the run.
    var strictPlugins = false
    /// `--out-dir`: where scripts write files.
    var outputDirectory: String?
    /// `--vus`, `--iterations`, `--duration` over the scenario's options.
    var overrides = ScenarioRunner.Overrides()
    /// `--timeout`: seconds the whole run may take.
    var timeout: Double?
    /// `--segment I/N`: the slice of the run this process runs.
    var segment = ScenarioSegment.whole
    /// `--virtual-time`: the run goes in virtual time (LUA-API 14).
    var virtualTime = false
    /// `--start TIME`: the moment the run begins.
    var start: ScenarioStart?
    /// `--seed N`: the seed of the run's random numbers.
    var seed: RandomSeed?
    /// `--out json=FILE`, `--out junit=FILE`, `--out html=FILE`, `--summary-out FILE`.
    var outputs = RunOutputs()
    /// `--quiet`: no progress line, and only warnings and errors in the log.
    var quiet = false
    /// The arguments as given, for a run that must start again
    /// (``VirtualTimeSetup/restart(with:)``).
    var arguments: [String]

    init(arguments: [String]) throws {
        self.arguments = arguments
        var reader = ArgumentReader(arguments, command: "run")
        var script: String?
        var connectionOptions: [String: String] = [:]
        var identities: [String] = []
        var loopback = false
        while let token = reader.next() {
            switch token {
            case .positional(let value):
                guard script == nil else {
                    throw UsageError(message: "unexpected argument '\(value)': run takes one script", command: "run")
                }
                script = value
            case .option("--env"), .option("-e"):
                let pair = try reader.value(for: "--env")
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                    throw UsageError(message: "--env expects KEY=VALUE, got '\(pair)'", command: "run")
                }
                environment[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            case .option("--log-level"):
                let value = try reader.value(for: "--log-level")
                guard let level = LogLevel(rawValue: value.lowercased()) else {
                    throw UsageError(message: "--log-level must be debug, info, warn or error, got '\(value)'",
                                     command: "run")
                }
                logLevel = level
            case .option("--plugins"):
                let folder = try reader.value(for: "--plugins")
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                    throw UsageError(message: "--plugins: there is no folder '\(folder)'", command: "run")
                }
                pluginDirectories.append(folder)
            case .option("--out-dir"):
                let folder = try reader.value(for: "--out-dir")
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                    throw UsageError(message: "--out-dir: there is no folder '\(folder)'", command: "run")
                }
                outputDirectory = folder
            case .option("--vus"):
                overrides.vus = try Self.count(try reader.value(for: "--vus"), "--vus", limit: ScenarioOptions.maximumVUs)
            case .option("--iterations"):
                overrides.iterations = try Self.count(try reader.value(for: "--iterations"), "--iterations", limit: 1_000_000_000)
            case .option("--duration"):
                let value = try reader.value(for: "--duration")
                do { overrides.duration = try ScenarioDuration.seconds(in: value) } catch let problem as ScenarioDuration.Problem {
                    throw UsageError(message: "--duration: \(problem.message)", command: "run")
                }
            case .option("--timeout"):
                let value = try reader.value(for: "--timeout")
                do { timeout = try ScenarioDuration.seconds(in: value) } catch let problem as ScenarioDuration.Problem {
                    throw UsageError(message: "--timeout: \(problem.message)", command: "run")
                }
                guard timeout != 0 else { throw UsageError(message: "--timeout: a duration above 0 expected, got '\(value)'", command: "run") }
            case .option("--virtual-time"):
                virtualTime = true
            case .option("--start"):
                let value = try reader.value(for: "--start")
                do { start = try ScenarioStart(value) } catch let problem as ScenarioStart.Problem {
                    throw UsageError(message: "--start: \(TerminalText.escaped(problem.description))", command: "run")
                }
            case .option("--seed"):
                let value = try reader.value(for: "--seed")
                guard let given = RandomSeed(parsing: value) else {
                    throw UsageError(message: "--seed: a whole number from 0 to \(Int64.max) expected, got '\(TerminalText.escaped(String(value.prefix(40))))'",
                                     command: "run")
                }
                seed = given
            case .option("--strict-plugins"):
                strictPlugins = true
            case .option("--quiet"), .option("-q"):
                logLevel = .warn
                quiet = true
            case .option("--segment"):
                do { segment = try ScenarioSegment(try reader.value(for: "--segment")) } catch let problem as ScenarioSegment.Problem {
                    throw UsageError(message: problem.message, command: "run")
                }
            case .option("--out"):
                try outputs.add(try reader.value(for: "--out"))
            case .option("--summary-out"):
                outputs.summary = try RunOutputs.path(try reader.value(for: "--summary-out"), for: "--summary-out")
            case .option("--memory-limit"):
                limits.memoryBytes = try Self.size(try reader.value(for: "--memory-limit"))
            case .option("--instruction-limit"):
                let value = try reader.value(for: "--instruction-limit")
                guard let count = Int(value), count >= 0 else {
                    throw UsageError(message: "--instruction-limit expects a whole number, got '\(value)'",
                                     command: "run")
                }
                limits.instructions = count
            case .option("--time-limit"):
                let value = try reader.value(for: "--time-limit")
                guard let seconds = Double(value), seconds >= 0, seconds.isFinite else {
                    throw UsageError(message: "--time-limit expects seconds, got '\(value)'", command: "run")
                }
                limits.seconds = seconds
            case .option("--identities"):
                identities.append(try reader.value(for: "--identities"))
            case .option("--loopback"):
                loopback = true
            case .option(let option)
                where ["--sandbox", "--host", "--company-key", "--company-secret", "--company-secret-file", "--jwt-command",
                       "--jwt-alg", "--signed-claims"].contains(option):
                connectionOptions[option] = try reader.value(for: option)
            case .option(let option):
                throw reader.unknown(option)
            }
        }
        guard let script else { throw UsageError(message: "run needs a script to run", command: "run") }
        self.script = script
        connection = try PlatformConnection.parse(connectionOptions, identities: identities)
        if virtualTime || start != nil {
            guard case .embedded = connection.target else {
                throw UsageError(message: "\(virtualTime ? "--virtual-time" : "--start") moves the embedded sandbox's clock; "
                                 + "a platform at --host keeps its own time", command: "run")
            }
            guard !(virtualTime && loopback) else {
                throw UsageError(message: "--virtual-time runs the embedded sandbox in the process, and --loopback reaches it "
                                 + "over sockets, whose requests the simulated clock cannot wait for", command: "run")
            }
            connection.virtualTime = virtualTime
            connection.start = start
        }
        if loopback {
            guard case .embedded = connection.target else {
                throw UsageError(message: "--loopback is for the embedded sandbox; with --host the SDK reaches that host", command: "run")
            }
            connection.loopback = true
        }
        // Last: the other options' mistakes are reported whatever the file.
        guard FileManager.default.isReadableFile(atPath: script) else {
            throw UsageError(message: "cannot read script '\(script)'", command: "run")
        }
    }

    /// A whole number from 1 to `limit` given to `option`.
    static func count(_ text: String, _ option: String, limit: Int) throws -> Int {
        guard let value = Int(text), value >= 1, value <= limit else {
            throw UsageError(message: "\(option) expects a whole number from 1 to \(limit), got '\(text)'", command: "run")
        }
        return value
    }

    /// Parses `64M`, `512K`, `1G` or a number of bytes.
    static func size(_ text: String) throws -> Int {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = text.uppercased()
        if digits.hasSuffix("B") { digits.removeLast() }
        var multiplier = 1
        if let last = digits.last, let unit = units[last] {
            multiplier = unit
            digits.removeLast()
        }
        guard let value = Int(digits), value >= 0, value <= Int.max / multiplier else {
            throw UsageError(message: "--memory-limit expects a size such as 64M, got '\(text)'", command: "run")
        }
        return value * multiplier
    }

    /// Runs the script or scenario; returns the exit status.
    func execute() async -> Int32 {
        let platform: PlatformConnection.Platform
        let sessions = Sessions()
        let firstSession: PlatformConnection.Session
        do {
            platform = try await connection.start()
            firstSession = try sessions.session(1, on: platform)
        } catch {
            printError(error)
            return 1
        }
        // Thousands of VUs failing alike write one line each time, counted at the end.
        let logger = RepeatCountingLogger(StreamLogger(minimumLevel: logLevel, clock: platform.simulation?.clock))
        var template = ScriptRunner(environment: environment, limits: limits, logger: logger)
        template.printOutput = ScriptRunner.standardOutput
        template.clock = platform.clock
        // A simulation's clock stands still while a script spins: budgets keep the real time.
        if platform.simulation != nil { template.budgetClock = SystemClock() }
        template.outputDirectory = outputDirectory
        var pluginRunner = template
        pluginRunner.sdk = firstSession.sdk
        var pluginDirectories = self.pluginDirectories
        let besideScript = URL(fileURLWithPath: script).deletingLastPathComponent().appendingPathComponent("plugins").path
        var isFolder: ObjCBool = false
        if pluginDirectories.isEmpty, FileManager.default.fileExists(atPath: besideScript, isDirectory: &isFolder),
            isFolder.boolValue
        {
            pluginDirectories = [besideScript]
        }
        if pluginDirectories.isEmpty {
            logger.log(LogRecord(level: .debug, message: "no plugins: no folder \(besideScript) beside the script, and no --plugins"))
        } else {
            let plugins = PluginHost(directories: pluginDirectories, runner: pluginRunner)
            let loaded = await plugins.load()
            let files = loaded.map { "\(URL(fileURLWithPath: $0.file).lastPathComponent) (\($0.state))" }
            logger.log(LogRecord(level: .info, message: "plugins from \(pluginDirectories.joined(separator: ", ")): "
                                 + (files.isEmpty ? "none" : files.joined(separator: ", "))))
            let failed = loaded.filter { $0.state != "loaded" }
            if strictPlugins, !failed.isEmpty {
                for plugin in failed { printError("error: plugin \(plugin.file): \(plugin.errors.joined(separator: "; "))") }
                await plugins.shutdown()
                await platform.server?.stop()
                return 1
            }
            // Files do not change in the seconds a simulated day takes: no reloads in virtual time.
            if platform.simulation == nil { await plugins.startWatching() }
            template.plugins = plugins
        }
        let runnerTemplate = template
        var scenario = ScenarioRunner(script: script) { number in
            let session = try sessions.session(number, on: platform)
            var runner = runnerTemplate
            runner.sdk = session.sdk
            runner.signer = session.delegate
            return runner
        }
        scenario.overrides = overrides
        scenario.timeout = timeout
        scenario.segment = segment
        scenario.seed = seed
        scenario.occupancy = platform.occupancy
        let runClock: any Clock = platform.simulation?.clock ?? SystemClock()
        scenario.clock = runClock
        scenario.metrics = ScenarioMetrics(clock: runClock)
        let virtualTime = self.virtualTime, givenStart = self.start, loopback = connection.loopback
        scenario.clockCheck = { options in
            var missing: [String] = []
            if options.virtualTime, !virtualTime { missing.append("--virtual-time") }
            if let start = options.start, givenStart == nil { missing += ["--start", start.text] }
            guard !missing.isEmpty else { return nil }
            guard platform.sandbox != nil else {
                throw ScenarioRunner.Failure.options("options.virtual_time and options.start move the embedded sandbox's clock; "
                                                     + "a platform at --host keeps its own time")
            }
            guard !(options.virtualTime && loopback) else {
                throw ScenarioRunner.Failure.options("options.virtual_time runs the embedded sandbox in the process, and --loopback "
                                                     + "reaches it over sockets, whose requests the simulated clock cannot wait for")
            }
            return missing
        }
        scenario.fallbackSeed = segment.isWhole ? RandomSeed.chosen() : RandomSeed(0)
        let jsonLines: JSONLinesOutput?
        do {
            jsonLines = try outputs.json.map { try JSONLinesOutput(path: $0) }
        } catch {
            printError("error: \(error)")
            await template.plugins?.shutdown()
            await platform.server?.stop()
            return 1
        }
        if let jsonLines {
            scenario.metrics.streamSamples(to: jsonLines.write)
            scenario.onOptions = { jsonLines.describe($0.thresholds) }
        }
        let started = runClock.now()
        let stoppable = scenario
        let interruption = Interruption { _ in stoppable.interrupt() }
        let progress = ProgressLine()
        if !quiet { progress.start { stoppable.progress() } }
        var thresholdsFailed = false, teardownFailed = false, outputFailed = false
        var failure: String?
        let status = await Self.status(failed: { failure = $0 }) {
            let outcome: ScenarioRunner.Outcome
            do { outcome = try await scenario.run() } catch ScenarioRunner.Failure.restart(let missing) {
                progress.stop()
                interruption.cancel()
                try VirtualTimeSetup.restart(with: missing + arguments)
                return
            }
            progress.stop()
            let snapshot = scenario.metrics.snapshot()
            let elapsed = runClock.now().timeIntervalSince(started)
            switch outcome {
            case .scenario(var options, let abortedBy):
                if let simulation = platform.simulation {
                    options.virtualTime = true
                    options.start = ScenarioStart(simulation.start)
                }
                let report = ScenarioReport(snapshot, options: options, elapsed: elapsed, script: script, segment: segment,
                                            abortedBy: abortedBy)
                for problem in outputs.write(report, timeline: snapshot.timeline, jsonLines: jsonLines) {
                    printError("error: \(problem)")
                    outputFailed = true
                }
                let summary = ScenarioSummary.text(snapshot, options: options, elapsed: elapsed, abortedBy: abortedBy)
                FileHandle.standardOutput.write(Data(("\n" + TerminalText.escaped(summary, keepingNewlines: true)).utf8))
                if let failure = scenario.teardownError {
                    printError("error: teardown failed: \(failure.message)")
                    if let traceback = failure.traceback, !traceback.isEmpty { printError(traceback, lines: true) }
                    teardownFailed = true
                }
                let failed = ScenarioSummary.failedThresholds(snapshot, options: options, elapsed: elapsed)
                if !failed.isEmpty || abortedBy != nil {
                    thresholdsFailed = true
                    printError("error: thresholds failed: " + (failed.isEmpty ? [abortedBy!] : failed)
                        .map { "\($0.metric): \($0.source)" }.joined(separator: ", "))
                }
            case .plainChunk:
                if !outputs.isEmpty {
                    let report = ScenarioReport(snapshot, options: ScenarioOptions(), elapsed: elapsed, script: script, segment: segment)
                    for problem in outputs.write(report, timeline: snapshot.timeline, jsonLines: jsonLines) {
                        printError("error: \(problem)")
                        outputFailed = true
                    }
                }
                guard !snapshot.checks.isEmpty || interruption.exitStatus != nil else { break }
                let summary = ScenarioSummary.text(snapshot, options: ScenarioOptions(), elapsed: elapsed)
                FileHandle.standardOutput.write(Data(("\n" + TerminalText.escaped(summary, keepingNewlines: true)).utf8))
            }
        }
        progress.stop()
        // A run that did not get through writes no samples file: an earlier one stays.
        jsonLines?.abandon()
        if let failure, let junit = outputs.junit {
            // CI keeps the JUnit file of a run that did not get through too: one test in error.
            do { try Data(JUnitReport.error(failure, name: script).utf8).write(to: URL(fileURLWithPath: junit), options: .atomic) }
            catch { printError("error: --out junit: cannot write '\(junit)': \(error.localizedDescription)") }
        }
        for line in logger.repeats() { printError(line) }
        if interruption.exitStatus != nil || scenario.timedOut { await sessions.endOpenChats() }
        interruption.cancel()
        await template.plugins?.shutdown()
        await platform.server?.stop()
        if let signalled = interruption.exitStatus {
            printError("interrupted: the summary above is of what ran; chats still open were ended")
            return signalled
        }
        if scenario.timedOut {
            printError("error: the run timed out (--timeout or options.timeout): its VUs were stopped and their open chats ended")
            return 1
        }
        if status == 0, teardownFailed || outputFailed { return 1 }
        return status == 0 && thresholdsFailed ? Self.thresholdsFailedStatus : status
    }

    /// The exit status of a run whose thresholds failed (k6's).
    static let thresholdsFailedStatus: Int32 = 99

    /// 0 when `body` succeeds; else the error on standard error and 1 (2 for a
    /// scenario's bad options, a usage error).
    /// With `failed`, the message of a run that could not start or finish (exit 1), for the
    /// outputs that report it.
    private static func status(failed: ((String) -> Void)? = nil, _ body: () async throws -> Void) async -> Int32 {
        do {
            try await body()
            return 0
        } catch let error as LuaScriptError {
            printError("error: \(error.message)")
            if let traceback = error.traceback, !traceback.isEmpty { printError(traceback, lines: true) }
            failed?(error.message)
            return 1
        } catch ScenarioRunner.Failure.options(let message) {
            printError("error: \(message)")
            return 2
        } catch ScenarioRunner.Failure.setup(let error) {
            printError("error: setup failed: \(error.message)")
            if let traceback = error.traceback, !traceback.isEmpty { printError(traceback, lines: true) }
            failed?("setup failed: \(error.message)")
            return 1
        } catch {
            printError(error)
            failed?(ErrorText.sentence(error))
            return 1
        }
    }

    /// The SDK sessions of a run by VU number (0: setup and teardown), each its own end
    /// user (`vu-<n>`, `vu-setup`), kept until the run ends: the SDK holds its delegate weakly.
    private final class Sessions: @unchecked Sendable {
        private let lock = NSLock()
        private var byNumber: [Int: PlatformConnection.Session] = [:]

        func session(_ number: Int, on platform: PlatformConnection.Platform) throws -> PlatformConnection.Session {
            try lock.withLock {
                if let session = byNumber[number] { return session }
                let session = try platform.session(for: EndUser(identifier: number == 0 ? "vu-setup" : "vu-\(number)"))
                byNumber[number] = session
                return session
            }
        }

        /// Ends each end user's chat in progress (a run that was stopped may leave some,
        /// and on a served sandbox they would fail that end user's next run).
        func endOpenChats() async {
            let all = lock.withLock { Array(byNumber.values) }
            await withTaskGroup(of: Void.self) { group in
                for session in all {
                    guard let chats = session.sdk.chatService else { continue }
                    group.addTask {
                        guard let chat = try? await chats.getLastChatInProgress() else { return }
                        try? await chats.resumeChat(chat)
                        try? await chats.endChat()
                    }
                }
            }
        }
    }
}

/// Writes a line to standard error; control characters from scripts are escaped (with
/// `lines`, the line breaks of a traceback stay).
func printError(_ text: String, lines: Bool = false) {
    FileHandle.standardError.write(Data((TerminalText.escaped(text, keepingNewlines: lines) + "\n").utf8))
}

/// Prints `error: ` and the error as a sentence (``ErrorText``), on several lines when
/// it is a list of problems.
func printError(_ error: Error) {
    printError("error: " + ErrorText.sentence(error), lines: ErrorText.keepsLines(error))
}
