import CCAIScripting
import CCAIWire
import Foundation
import LuaRuntime

/// What `ccai run` declares (``spec``: one ``OptionSpec`` per option, from which its
/// parsing, usage and help come) and the typed values of a command line.
struct RunOptions {
    static let env = EnvironmentOption.spec
    static let plugins = OptionSpec("--plugins", value: "DIR", help: "load the plugins of DIR (repeatable; default: the "
                                    + "plugins folder beside the script, if there is one); they are reloaded when their "
                                    + "files change, and they answer deflection, smart actions and forms")
    static let vus = OptionSpec("--vus", value: "N", help: "a scenario's virtual users (over options.vus)")
    static let iterations = OptionSpec("--iterations", value: "N", help: "the iterations they share (over options.iterations)")
    static let duration = OptionSpec("--duration", value: "D", help: "how long each VU loops, e.g. 30s, 5m, 1h30m (over "
                                     + "options.duration); any of the three replaces the file's stages and arrival")
    static let timeout = OptionSpec("--timeout", value: "D", help: "the longest the whole run may take (over "
                                    + "options.timeout; a plain script too): past it, every VU is stopped, the summary of "
                                    + "what ran is printed, and the exit status is 1")
    static let seed = OptionSpec("--seed", value: "N", help: "the seed of the run's random numbers (over options.seed): "
                                 + "each VU's math.random and ccai.uuid, and Poisson arrivals, draw the same from the same "
                                 + "seed; without one a run chooses a seed and prints it (a slice of a split run uses 0, so "
                                 + "its slices agree)")
    static let virtualTime = OptionSpec("--virtual-time", help: "run on a simulated clock (over options.virtual_time; "
                                        + "embedded sandbox only): it jumps to the next deadline whenever nothing is left to "
                                        + "do, so a day of traffic takes seconds, and with --seed and --start a run replays alike")
    static let start = OptionSpec("--start", value: "TIME", help: "when the run begins (over options.start), ISO 8601; "
                                  + "without an offset, in the company's time zone: 2026-12-07T08:00 (the simulated clock's "
                                  + "start, or without --virtual-time the sandbox's business hours)")
    static let segment = OptionSpec("--segment", value: "I/N", help: "run the I-th of N slices of the scenario (VUs striped: "
                                    + "VU n is slice (n-1)%N+1's; iterations and arrivals alike); the slices' --summary-out "
                                    + "files merge with 'ccai report merge' into exactly the whole run")
    static let out = OptionSpec("--out", value: "KIND=FILE", forms: [
        .init(value: "json=FILE", help: "every sample as a JSON line (k6's Metric, Point and, last, Summary lines)"),
        .init(value: "junit=FILE", help: "a JUnit XML testcase per threshold and per check; a failed one says what was "
              + "expected, what came, and the first errors that failed iterations"),
        .init(value: "html=FILE", help: "a self-contained HTML report: the run's date, seed, version, options and script, "
              + "the summary with tagged sub-metrics and the SDK calls by method, and charts over time (VUs, iterations "
              + "a second, failures, round-trip, first-response and chat wait percentiles, the embedded sandbox's queue "
              + "and busy agents; in virtual time, on the simulated clock)"),
        .init(value: "csv=FILE", help: "Locust's FILE_stats.csv (a row per SDK method and Aggregated) and "
              + "FILE_stats_history.csv (the same per second of the run), with Locust's columns; a FILE ending in .csv "
              + "loses it (out.csv: out_stats.csv)"),
        .init(value: "prometheus=HOST:PORT", help: "serve the run's metrics at http://HOST:PORT/metrics in Prometheus's "
              + "text format while it lives, without a token (counters, gauges, rates, trends as summaries, tags as labels, "
              + "thresholds as ccai_threshold_holds; docs/observability.md)"),
        .init(value: "KIND=-", help: "json, junit or html to standard output (one output at most): the summary and the "
              + "script's prints then go to standard error"),
    ])
    static let dashboard = OptionSpec("--dashboard", value: "HOST:PORT", help: "serve a live page of the run at "
                                      + "http://HOST:PORT/ (default 127.0.0.1:5665; over options.dashboard): VUs, rates, "
                                      + "latencies, thresholds, checks, errors and the SDK calls, with Pause, Resume, a "
                                      + "scenario's rate or VU target, and Stop (as Ctrl-C); at the end it offers the HTML "
                                      + "report (docs/dashboard.md)").optionalValue()
    static let console = OptionSpec("--console", value: "HOST:PORT", help: "serve the embedded sandbox's console at "
                                    + "http://HOST:PORT/console (default 127.0.0.1:8788), behind its admin token (the "
                                    + "configuration's admin_token, else one made up and printed): a person plays its agents "
                                    + "with console = true, and takes the VUs' chats (docs/console.md)").optionalValue()
    static let summaryOut = OptionSpec("--summary-out", value: "FILE", help: "the summary as JSON, with mergeable digests "
                                       + "and the timeline (what 'ccai report merge' reads); - for standard output")
    static let summaryMode = OptionSpec("--summary-mode", value: "compact|full", help: "the summary at the end: compact "
                                        + "(default) or full, which adds the SDK calls by method (calls, failures, "
                                        + "p(50), p(95), p(99), max, calls a second: Locust's stats table)")
    static let strictPlugins = OptionSpec("--strict-plugins", help: "a plugin that fails to load fails the run (exit 1), and a "
                                          + "hook that fails fails the iteration that set it off (over options.strict_plugins)")
    static let sandbox = OptionSpec("--sandbox", value: "CONFIG.lua", help: "the embedded sandbox's configuration")
    static let loopback = OptionSpec("--loopback", help: "reach the embedded sandbox over HTTP on a loopback port, as a "
                                     + "remote platform is reached (default: through its router in this process, no "
                                     + "sockets, so that no descriptor limit caps the VUs)")
    static let host = OptionSpec("--host", value: "HOST", help: "a platform instead of the embedded sandbox (HOST[:PORT] or "
                                 + "a URL), with --company-key and a company secret or --jwt-command. A HOST without a "
                                 + "scheme is reached over https://, except localhost and literal loopback addresses "
                                 + "(127.x.y.z, ::1), which get http://; an http:// URL is used as given")
    static let companyKey = OptionSpec("--company-key", value: "KEY", help: "with --host: the company key")
    static let companySecret = OptionSpec("--company-secret", value: "SECRET", help: "with --host: the company secret the "
                                          + "host signs end users' JWTs with (visible in ps: prefer the next two)")
    static let companySecretFile = OptionSpec("--company-secret-file", value: "FILE", help: "with --host: read the secret "
                                              + "from the first line of FILE (without either, "
                                              + "\(CompanySecret.environmentVariable) is used)")
    static let jwtCommand = OptionSpec("--jwt-command", value: "CMD", help: "with --host, instead of a secret: a shell "
                                       + "command printing the end user's JWT; it gets the identity as a JSON object on "
                                       + "standard input and in CCAI_CLAIMS, e.g. 'ccai jwt sign --secret-file F --claims -'")
    static let jwtAlgorithm = OptionSpec("--jwt-alg", value: "HS384|HS256", help: "with a company secret: pins the "
                                         + "algorithm the host signs with (default: HS384, or HS256 when the platform "
                                         + "refuses HS384 as unsupported)")
    static let identities = OptionSpec("--identities", value: "PATTERN", help: "with --host: the end-user identifiers the "
                                       + "host signs in as, a glob (*, ?, [...]; repeatable, any may match; default: vu-*)")
    static let signedClaims = OptionSpec("--signed-claims", value: "KEY,...", help: "with --host: the keys of signed "
                                         + "custom data the host signs, and which of name, email, phone go into the JWT (default: none)")
    static let appsHost = OptionSpec("--apps-host", value: "URL", help: "the Apps API ccai.apps calls (https://SUBDOMAIN."
                                     + "DOMAIN of a tenant; http:// for loopback only) instead of the embedded sandbox's, "
                                     + "with credentials from --apps-credentials-file or \(AppsCredentials.environmentVariable)")
    static let appsCredentialsFile = OptionSpec("--apps-credentials-file", value: "FILE", help: "with --apps-host: the "
                                                + "file's one line SUBDOMAIN:TOKEN (never on the command line)")
    static let webhookListen = OptionSpec("--webhook-listen", value: "HOST:PORT", help: "receive the platform's webhooks "
                                          + "there (PORT 0: any free one): each verified delivery is a ccai.apps event of the VU "
                                          + "whose start_chat started its chat; unsigned, stale and replayed ones are refused. With "
                                          + "the embedded sandbox its webhooks come here by themselves")
    static let webhookSecretFile = OptionSpec("--webhook-secret-file", value: "FILE", help: "with --webhook-listen: the "
                                              + "webhook secrets, the primary on the first line and the secondary on the second "
                                              + "(without it, \(WebhookListen.environmentVariable)=PRIMARY[,SECONDARY]; needed "
                                              + "with --host or --apps-host)")
    static let logLevel = OptionSpec("--log-level", value: "LEVEL", help: "debug, info, warn or error (default: info)")
    static let quiet = OptionSpec("--quiet", aliases: ["-q"], help: "no progress line, and only warnings and errors in the "
                                  + "log (as --log-level warn); the script's print writes to standard output whatever the "
                                  + "log level")
    static let outDir = OptionSpec("--out-dir", value: "DIR", help: "the folder scripts write files to (transcripts); "
                                   + "paths stay inside it (default: ./ccai-out, made with mode 0700 on the first write); a "
                                   + "new file gets mode 0600, a file written over keeps its mode, and a symlink in the way "
                                   + "is replaced, not followed")
    static let memoryLimit = OptionSpec("--memory-limit", value: "SIZE", help: "memory cap of the script's state, e.g. 64M "
                                        + "(default: 64M)")
    static let instructionLimit = OptionSpec("--instruction-limit", value: "N", help: "Lua instructions allowed between "
                                             + "two yields (default: 200000000)")
    static let timeLimit = OptionSpec("--time-limit", value: "SECONDS", help: "wall-clock seconds allowed between two "
                                      + "yields (default: 10)")

    /// The options ``PlatformConnection/parse(_:identities:)`` reads, by name.
    static let connectionOptions = [sandbox, host, companyKey, companySecret, companySecretFile, jwtCommand, jwtAlgorithm,
                                    signedClaims, appsHost, appsCredentialsFile, webhookListen, webhookSecretFile]

    static let options = [env, plugins, vus, iterations, duration, timeout, seed, virtualTime, start, segment, out,
                          dashboard, console, summaryOut, summaryMode, strictPlugins, sandbox, loopback, host, companyKey, companySecret, companySecretFile,
                          jwtCommand, jwtAlgorithm, identities, signedClaims, appsHost, appsCredentialsFile, webhookListen, webhookSecretFile, logLevel, quiet, outDir, memoryLimit,
                          instructionLimit, timeLimit]
}

/// The values of a `ccai run` command line, each checked as it is read.
extension RunOptions {
    struct Values {
        var script: String
        var environment: [String: String] = [:]
        var logLevel: LogLevel = .info
        var limits = LuaLimits()
        var connection = PlatformConnection()
        var pluginDirectories: [String] = []
        /// `--strict-plugins`: a plugin that fails to load fails the run, a hook that fails its iteration.
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
        /// `--out KIND=FILE` and `--summary-out FILE`.
        var outputs = RunOutputs()
        /// `--dashboard [HOST:PORT]`: where the live page is served.
        var dashboard: ListenAddress?
        /// `--summary-mode`: how much the summary shows.
        var summaryMode = ScenarioSummary.Mode.compact
        /// `--quiet`: no progress line, and only warnings and errors in the log.
        var quiet = false
        /// The command line as parsed, for a run that must start again
        /// (``VirtualTimeSetup/restart(with:)``).
        var commandLine: [String]
    }

    /// The values of `arguments`; the first bad one, in the order of the declarations, is
    /// a ``UsageError``, and an unreadable script is reported last, whatever the file.
    static func values(of arguments: ParsedArguments) throws -> Values {
        if arguments.positionals.count > 1 {
            throw usage("unexpected argument '\(arguments.positionals[1])': run takes one script")
        }
        var values = Values(script: arguments.positionals.first ?? "", commandLine: arguments.commandLine)
        values.environment = try EnvironmentOption.values(in: arguments, for: RunCommand.spec)
        values.pluginDirectories = try arguments.each(plugins) { try folder($0, for: plugins) }
        values.overrides = try overrides(arguments)
        values.timeout = try arguments.last(timeout) { value in
            let seconds = try duration(value, for: timeout)
            guard seconds != 0 else { throw usage("--timeout: a duration above 0 expected, got '\(value)'") }
            return seconds
        }
        values.seed = try arguments.last(seed) { value in
            guard let given = RandomSeed(parsing: value) else {
                throw usage("--seed: a whole number from 0 to \(Int64.max) expected, got "
                            + "'\(TerminalText.escaped(String(value.prefix(40))))'")
            }
            return given
        }
        values.virtualTime = arguments.has(virtualTime)
        values.start = try arguments.last(start) { value in
            do { return try ScenarioStart(value) } catch let problem as ScenarioStart.Problem {
                throw usage("--start: \(TerminalText.escaped(problem.description))")
            }
        }
        values.segment = try arguments.last(segment) { value in
            do { return try ScenarioSegment(value) } catch let problem as ScenarioSegment.Problem { throw usage(problem.message) }
        } ?? .whole
        for value in arguments.values(out) { try values.outputs.add(value) }
        if let file = arguments.last(summaryOut) { try values.outputs.setSummary(file, option: summaryOut.name) }
        values.summaryMode = try summaryMode(arguments)
        if arguments.has(dashboard) {
            values.dashboard = try arguments.last(dashboard).map {
                try ListenAddress.parse($0, for: dashboard.name, command: RunCommand.spec.topic)
            } ?? Dashboard.defaultAddress
        }
        values.strictPlugins = arguments.has(strictPlugins)
        values.quiet = arguments.has(quiet)
        values.logLevel = try logLevel(arguments)
        values.outputDirectory = try arguments.last(outDir) { try folder($0, for: outDir) }
        values.limits = try limits(arguments)
        values.connection = try connection(arguments, virtualTime: values.virtualTime, start: values.start)
        values.connection.environment = values.environment
        if arguments.has(console) {
            guard case .embedded = values.connection.target else {
                throw usage("--console serves the embedded sandbox's console; a platform at --host has its own")
            }
            guard !values.virtualTime else {
                throw usage("--virtual-time runs the embedded sandbox on a simulated clock, which does not wait for a person at "
                            + "the console")
            }
            values.connection.console = try arguments.last(console).map {
                try ListenAddress.parse($0, for: console.name, command: RunCommand.spec.topic)
            } ?? PlatformConnection.defaultConsoleAddress
        }
        guard let script = arguments.positionals.first else { throw usage("run needs a script to run") }
        guard FileManager.default.isReadableFile(atPath: script) else { throw usage("cannot read script '\(script)'") }
        return values
    }

    private static func usage(_ message: String) -> UsageError { RunCommand.spec.usageError(message) }

    /// `--summary-mode compact|full` (default compact).
    static func summaryMode(_ arguments: ParsedArguments, of command: CommandSpec = RunCommand.spec) throws
        -> ScenarioSummary.Mode
    {
        try arguments.last(summaryMode) { value in
            guard let mode = ScenarioSummary.Mode(rawValue: value) else {
                throw command.usageError("--summary-mode expects compact or full, got '\(value)'")
            }
            return mode
        } ?? .compact
    }

    /// `--log-level`, and `--quiet` (as `--log-level warn`): whichever comes last counts.
    private static func logLevel(_ arguments: ParsedArguments) throws -> LogLevel {
        let level = try arguments.last(logLevel) { value in
            guard let level = LogLevel(rawValue: value.lowercased()) else {
                throw usage("--log-level must be debug, info, warn or error, got '\(value)'")
            }
            return level
        }
        let quietLast = (arguments.position(quiet) ?? -1) > (arguments.position(logLevel) ?? -1)
        return quietLast ? .warn : level ?? .info
    }

    /// A folder given to `option` that exists.
    private static func folder(_ folder: String, for option: OptionSpec) throws -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw usage("\(option.name): there is no folder '\(folder)'")
        }
        return folder
    }

    /// `--vus`, `--iterations`, `--duration`.
    private static func overrides(_ arguments: ParsedArguments) throws -> ScenarioRunner.Overrides {
        ScenarioRunner.Overrides(
            vus: try arguments.last(vus) { try count($0, vus, limit: ScenarioOptions.maximumVUs) },
            iterations: try arguments.last(iterations) { try count($0, iterations, limit: 1_000_000_000) },
            duration: try arguments.last(duration) { try Self.duration($0, for: duration) })
    }

    /// A duration such as `30s` or `1h30m` given to `option`, in seconds.
    private static func duration(_ value: String, for option: OptionSpec) throws -> Double {
        do { return try ScenarioDuration.seconds(in: value) } catch let problem as ScenarioDuration.Problem {
            throw usage("\(option.name): \(problem.message)")
        }
    }

    /// A whole number from 1 to `limit` given to `option`.
    static func count(_ text: String, _ option: OptionSpec, limit: Int) throws -> Int {
        guard let value = Int(text), value >= 1, value <= limit else {
            throw usage("\(option.name) expects a whole number from 1 to \(limit), got '\(text)'")
        }
        return value
    }

    /// `--memory-limit`, `--instruction-limit`, `--time-limit`.
    private static func limits(_ arguments: ParsedArguments) throws -> LuaLimits {
        var limits = LuaLimits()
        if let bytes = try arguments.last(memoryLimit, size) { limits.memoryBytes = bytes }
        if let count = try arguments.last(instructionLimit, { value -> Int in
            guard let count = Int(value), count >= 0 else { throw usage("--instruction-limit expects a whole number, got '\(value)'") }
            return count
        }) { limits.instructions = count }
        if let seconds = try arguments.last(timeLimit, { value -> Double in
            guard let seconds = Double(value), seconds >= 0, seconds.isFinite else {
                throw usage("--time-limit expects seconds, got '\(value)'")
            }
            return seconds
        }) { limits.seconds = seconds }
        return limits
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
            throw usage("--memory-limit expects a size such as 64M, got '\(text)'")
        }
        return value * multiplier
    }

    /// Where the SDK goes (``PlatformConnection``), and the clock options that need the embedded sandbox.
    private static func connection(_ arguments: ParsedArguments, virtualTime: Bool, start: ScenarioStart?) throws
        -> PlatformConnection
    {
        let given = connectionOptions.compactMap { option in arguments.last(option).map { (option.name, $0) } }
        var connection = try PlatformConnection.parse(Dictionary(uniqueKeysWithValues: given),
                                                      identities: arguments.values(identities))
        let loopback = arguments.has(Self.loopback)
        if virtualTime || start != nil {
            guard case .embedded = connection.target else {
                throw usage("\(virtualTime ? "--virtual-time" : "--start") moves the embedded sandbox's clock; "
                            + "a platform at --host keeps its own time")
            }
            guard !(virtualTime && connection.webhookListen != nil) else {
                throw usage("--virtual-time runs the embedded sandbox in the process, and --webhook-listen receives its webhooks "
                            + "over sockets, whose requests the simulated clock cannot wait for")
            }
            guard !(virtualTime && loopback) else {
                throw usage("--virtual-time runs the embedded sandbox in the process, and --loopback reaches it "
                            + "over sockets, whose requests the simulated clock cannot wait for")
            }
            connection.virtualTime = virtualTime
            connection.start = start
        }
        if loopback {
            guard case .embedded = connection.target else {
                throw usage("--loopback is for the embedded sandbox; with --host the SDK reaches that host")
            }
            connection.loopback = true
        }
        return connection
    }
}
