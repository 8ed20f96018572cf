import CCAIBridge
import CCAISandbox
import Foundation

/// `ccai sandbox serve`: runs the platform emulator as a server until interrupted.
struct SandboxServeCommand: Command {
    static let config = OptionSpec("--config", value: "FILE", help: "a sandbox configuration (a Lua file returning a "
                                   + "table); default: the built-in company (key dev-key, secret dev-secret)")
    static let listen = OptionSpec("--listen", value: "HOST:PORT", help: "where to listen (default: 127.0.0.1:8787; port 0 picks one)")
    static let data = OptionSpec("--data", value: "DIR", help: "keep the sandbox's state in DIR (SQLite), and each ended "
                                 + "chat's and call's session metadata in DIR/exports; without it the "
                                 + "state lives in memory and is gone at exit. DIR belongs to the company that first used it: "
                                 + "another company key is refused (exit 1)")
    static let metrics = OptionSpec("--metrics", help: "count requests by route and status, time the store, and serve them "
                                    + "with the queues, busy agents and open event streams at GET /admin/metrics in "
                                    + "Prometheus's text format, behind the admin token (docs/observability.md)")
    static let console = OptionSpec("--console", help: "serve the console at /console, behind the admin token: queues, "
                                    + "agents, chats and ratings, and the agents configured with console = true played by "
                                    + "the person at the page (docs/console.md)")
    static let adminTokenFileOption = OptionSpec("--admin-token-file", value: "FILE", help: "the admin token: the file's "
                                                 + "one line (printable ASCII, at most 4096 bytes)")

    static let spec = CommandSpec(
        ["sandbox", "serve"], abstract: "serve the platform emulator over HTTP",
        discussion: """
            serves the platform emulator over HTTP until interrupted (Ctrl-C or
            SIGTERM), then lets requests in progress finish. Prints its base URL on standard
            output. Agent scripts are read and compiled at start: a syntax error stops it.
            With --data, a restart resumes what the last run left under way: chats in progress
            go back to their queues and agents take them again, and post-session virtual
            agents talk again; the apps keep their chats.
            The bearer token of GET /admin/ratings (and the other /admin routes:
            /admin/session_metadata/{chat|call}/{id}...) is --admin-token-file's, else the
            configuration's admin_token, else, with --data, the one kept in DIR/admin-token
            (made at the first run, mode 0600), else one made up for this run; a token made
            on this run is printed on standard error.
            """,
        options: [config, EnvironmentOption.spec, listen, data, adminTokenFileOption, metrics, console])

    var configurationFile: String?
    /// `--env`: what the configuration reads as `env`.
    var environment: [String: String]
    var host = "127.0.0.1"
    var port: UInt16 = 8787
    var dataDirectory: String?
    var adminTokenFile: String?
    var collectsMetrics = false
    var servesConsole = false

    init(_ arguments: ParsedArguments) throws {
        if let value = arguments.positionals.first { throw Self.spec.usageError("unexpected argument '\(value)'") }
        configurationFile = try arguments.last(Self.config) { file in
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw Self.spec.usageError("--config: cannot read the sandbox configuration '\(file)'")
            }
            return file
        }
        environment = try EnvironmentOption.values(in: arguments, for: Self.spec)
        if let (host, port) = try arguments.last(Self.listen, Self.address) {
            self.host = host
            self.port = port
        }
        dataDirectory = arguments.last(Self.data)
        collectsMetrics = arguments.has(Self.metrics)
        servesConsole = arguments.has(Self.console)
        adminTokenFile = try arguments.last(Self.adminTokenFileOption) { file in
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw Self.spec.usageError("--admin-token-file: cannot read '\(file)'")
            }
            return file
        }
    }

    /// `HOST:PORT` of `--listen`.
    private static func address(_ value: String) throws -> (String, UInt16) {
        let address = try ListenAddress.parse(value, for: "--listen", command: spec.topic)
        return (address.host, address.port)
    }

    func execute() async throws -> ExitStatus {
        var configuration = SandboxConfiguration.builtIn
        if let configurationFile { configuration = try await SandboxConfiguration.load(file: configurationFile, environment: environment) }
        let admin = try ServeToken.resolve(.admin, file: adminTokenFile, configured: configuration.adminToken,
                                           dataDirectory: dataDirectory)
        configuration.adminToken = admin.token
        let subdomain = configuration.company.effectiveSubdomain
        var appsNotice = "Apps API credentials from the configuration (Basic: user \(subdomain))"
        if configuration.apiCredentials?.isEmpty ?? true {
            let apps = try ServeToken.resolve(.apps(subdomain: subdomain), file: nil, configured: nil, dataDirectory: dataDirectory)
            configuration.apiCredentials = [APICredential(name: "sandbox serve", token: apps.token)]
            appsNotice = apps.notice
        }
        let sandbox = try Sandbox(configuration: configuration, dataDirectory: dataDirectory,
                                  webhookTransport: CurlWebhookTransport.for(configuration), collectsMetrics: collectsMetrics,
                                  servesConsole: servesConsole)
        try await sandbox.resumeChatsLeftOpen()
        try await sandbox.failCallsLeftOpen()
        var limits = HTTPServer.Limits()
        limits.connectionsPerAddress = (sandbox.configuration.limits ?? LimitsConfiguration()).effectiveConnectionsPerAddress
        // Listening for the signals before the URL is out: a client that stops the server as
        // soon as it reads the URL could otherwise send SIGTERM while it was ignored and not
        // yet watched, and the server never stopped.
        let termination = Termination()
        let server = try sandbox.serve(address: host, port: port, limits: limits)
        print(server.baseURL)
        fflush(stdout)
        let company = sandbox.configuration.company
        printError("sandbox: serving \(company.name) on \(server.baseURL) (company key \(company.key))"
            + (dataDirectory.map { "; state in \($0)" } ?? "; state in memory") + ". Ctrl-C stops.")
        printError("sandbox: " + admin.notice)
        printError("sandbox: " + appsNotice)
        if servesConsole { printError("sandbox: console at \(server.baseURL)/console (sign in with the admin token)") }
        if collectsMetrics { printError("sandbox: metrics at \(server.baseURL)/admin/metrics (Bearer: the admin token)") }
        await termination.wait()
        printError("sandbox: stopping")
        await server.stop()
        return .success
    }
}

/// SIGINT and SIGTERM, watched from when it is made: ``wait()`` returns once either has
/// come, before or after it is called.
private final class Termination: @unchecked Sendable {
    private let lock = NSLock()
    private var arrived = false
    private var waiting: CheckedContinuation<Void, Never>?
    private var sources: [DispatchSourceSignal] = []

    init() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in arrive() }
            source.resume()
            sources.append(source)
        }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = lock.withLock {
                if arrived { return true }
                waiting = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func arrive() {
        let continuation: CheckedContinuation<Void, Never>? = lock.withLock {
            arrived = true
            defer { waiting = nil }
            return waiting
        }
        continuation?.resume()
    }
}
