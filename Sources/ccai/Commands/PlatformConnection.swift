import CCAIBridge
import CCAIKit
import CCAIScripting
import CCAISandbox
import CCAIWire
import Foundation
import Timekeeping

/// Where `ccai run` sends the SDK: the embedded sandbox (default, or `--sandbox FILE`),
/// or a platform at `--host` with the company key, a way to sign end-user JWTs, and whom
/// the host signs for (`--identities`, `--signed-claims`).
struct PlatformConnection {
    enum Target {
        case embedded(configurationFile: String?)
        case remote(host: String, companyKey: String, signing: HostAuthenticator.Signing, policy: IdentityPolicy)
    }

    var target: Target = .embedded(configurationFile: nil)
    /// `--loopback`: reach the embedded sandbox over HTTP on a loopback port, as a remote
    /// platform is reached, instead of through its router in the process (the default,
    /// which costs no file descriptors: over loopback each event stream holds two, and a
    /// run of 10,000 VUs would need more than most limits allow).
    var loopback = false
    /// `ccai run --console`: where the embedded sandbox serves its console.
    var console: ListenAddress?
    /// Where `--console` serves without an address: beside `sandbox serve`'s 8787.
    static let defaultConsoleAddress = ListenAddress(host: "127.0.0.1", port: 8788)
    /// `--virtual-time`: the embedded sandbox, the SDK and the scripts share the clock of
    /// the simulation `ccai` runs on (LUA-API 14; ``VirtualTimeSetup``).
    var virtualTime = false
    /// `--start`: when the run begins: the simulation's start, or without virtual time
    /// the embedded sandbox's business clock (its configuration's `clock_start`).
    var start: ScenarioStart?
    /// `--env`: what the embedded sandbox's configuration reads as `env`.
    var environment: [String: String] = [:]
    /// `--apps-host` and its credentials: the Apps API `ccai.apps` calls. Nil: the embedded
    /// sandbox's (a credential made up for the run), or none with `--host`.
    var apps: (baseURL: String, credentials: AppsClient.Credentials)?
    /// `--webhook-listen` and its secrets.
    var webhookListen: WebhookListen?

    /// `--apps-host` and `--apps-credentials-file` (or the environment's credentials).
    static func appsTarget(_ options: [String: String], environment: [String: String]) throws
        -> (baseURL: String, credentials: AppsClient.Credentials)?
    {
        guard let host = options["--apps-host"] else {
            guard options["--apps-credentials-file"] == nil else {
                throw UsageError(message: "--apps-credentials-file goes with --apps-host", command: "run")
            }
            return nil
        }
        let credentials = try AppsCredentials.resolve(file: options["--apps-credentials-file"], environment: environment)
        do {
            _ = try AppsClient(baseURL: host, credentials: credentials)
        } catch let error as CCAIError {
            throw UsageError(message: "--apps-host: \(error.message)", command: "run")
        }
        return (host, credentials)
    }

    /// Checks the connection options of `ccai run` (by option name; `identities` are the
    /// `--identities` given, in order).
    static func parse(_ options: [String: String], identities: [String] = [],
                      environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PlatformConnection {
        var connection = try connection(options, identities: identities)
        connection.apps = try appsTarget(options, environment: environment)
        var remote = connection.apps != nil
        if case .remote = connection.target { remote = true }
        connection.webhookListen = try WebhookListen.parse(options, remote: remote, environment: environment)
        return connection
    }

    private static func connection(_ options: [String: String], identities: [String]) throws -> PlatformConnection {
        let host = options["--host"], key = options["--company-key"], command = options["--jwt-command"]
        if host == nil, !identities.isEmpty || options["--signed-claims"] != nil {
            throw UsageError(message: "--identities and --signed-claims go with --host: against the embedded sandbox a script "
                             + "may sign in as anyone", command: "run")
        }
        let policy = try Self.policy(identities: identities, signedClaims: options["--signed-claims"])
        var algorithm: JWTAlgorithm?
        if let name = options["--jwt-alg"] {
            guard let chosen = JWTAlgorithm(rawValue: name.uppercased()) else {
                throw UsageError(message: "--jwt-alg must be HS384 or HS256, got '\(name)'", command: "run")
            }
            algorithm = chosen
        }
        let given = options["--company-secret"] != nil || options["--company-secret-file"] != nil
        if options["--company-secret"] != nil, options["--company-secret-file"] != nil {
            throw UsageError(message: "--company-secret and --company-secret-file exclude each other", command: "run")
        }
        if let file = options["--sandbox"] {
            guard host == nil else {
                throw UsageError(message: "--sandbox and --host exclude each other", command: "run")
            }
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw UsageError(message: "--sandbox: cannot read the sandbox configuration '\(file)'", command: "run")
            }
            return PlatformConnection(target: .embedded(configurationFile: file))
        }
        guard let host else {
            if key != nil || given || command != nil || algorithm != nil {
                throw UsageError(message: "--company-key, --company-secret(-file), --jwt-command and --jwt-alg go with --host",
                                 command: "run")
            }
            return PlatformConnection()
        }
        guard let key else { throw UsageError(message: "--host needs --company-key", command: "run") }
        let secret = command != nil && !given ? nil
            : try CompanySecret.resolve(value: options["--company-secret"], file: options["--company-secret-file"],
                                        fileOption: "--company-secret-file", command: "run")
        switch (secret, command) {
        case (let secret?, nil):
            let signing = HostAuthenticator.Signing.secret(secret, algorithm ?? .hs384, pinned: algorithm != nil)
            return PlatformConnection(target: .remote(host: host, companyKey: key, signing: signing, policy: policy))
        case (nil, let command?):
            guard algorithm == nil else {
                throw UsageError(message: "--jwt-alg goes with a company secret; the --jwt-command signs by itself", command: "run")
            }
            return PlatformConnection(target: .remote(host: host, companyKey: key, signing: .command(command), policy: policy))
        default:
            throw UsageError(message: "--host needs exactly one of a company secret (--company-secret, --company-secret-file or "
                             + "\(CompanySecret.environmentVariable)) and --jwt-command", command: "run")
        }
    }

    /// Whom the host signs for on a platform: the `--identities` globs (default `vu-*`)
    /// and the `--signed-claims` keys (default none).
    private static func policy(identities: [String], signedClaims: String?) throws -> IdentityPolicy {
        for pattern in identities {
            if let problem = IdentityPolicy.problem(withPattern: pattern) {
                throw UsageError(message: "--identities: \(problem)", command: "run")
            }
        }
        var keys: Set<String> = []
        if let signedClaims {
            let listed = signedClaims.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let malformed = listed.contains { key in
                key.isEmpty || key.unicodeScalars.contains { $0.properties.isWhitespace || $0.properties.generalCategory == .control }
            }
            guard !malformed else {
                throw UsageError(message: "--signed-claims expects KEY,... (custom data keys, no spaces), got "
                                 + "'\(TerminalText.escaped(signedClaims))'", command: "run")
            }
            keys = Set(listed)
        }
        return IdentityPolicy(identities: identities.isEmpty ? IdentityPolicy.defaultIdentities : identities, signedClaims: keys)
    }

    /// A running connection: the SDK instance, the embedded server to stop afterwards, and
    /// the delegate (the options hold it weakly).
    struct Connection {
        var sdk: CCAI
        var server: HTTPServer?
        var delegate: HostAuthenticator
        /// The platform's time: the embedded sandbox's business clock (`clock_start`), else the real time.
        var clock: any TimeSource = SystemClock()
    }

    /// A platform ready for end users: the embedded sandbox started (once, whatever the
    /// number of end users), or the `--host` to reach.
    struct Platform: Sendable {
        /// The embedded sandbox, kept for the whole run: its chores (calls that come due,
        /// idle chats, pruning) hold it weakly and stop when it goes. Nil with `--host`.
        var sandbox: Sandbox?
        /// The embedded sandbox's server, to stop afterwards; nil with `--host`.
        var server: HTTPServer?
        /// The server of `--console`, to stop afterwards.
        var consoleServer: HTTPServer?

        /// The embedded sandbox's waiting connections and busy agents now; nil with `--host`.
        var occupancy: (@Sendable () async -> (waiting: Int, busyAgents: Int)?)? {
            guard let sandbox else { return nil }
            return { try? await sandbox.occupancy() }
        }
        var clock: any TimeSource = SystemClock()
        /// The Apps API `ccai.apps` calls: `--apps-host`'s, else the embedded sandbox's.
        var apps: AppsClient?
        /// `--webhook-listen`'s receiver (stopped with the run) and where its deliveries go.
        var webhookReceiver: WebhookReceiver?
        var webhooks: WebhookInbox?
        /// The simulation the run goes on with `--virtual-time`.
        var simulation: VirtualTime?
        /// The embedded sandbox's company's time zone (the reports show simulated times in it).
        var timeZone: TimeZone = .gmt
        fileprivate let connect: @Sendable (EndUser) throws -> Connection

        /// A new SDK instance signed in as `identity` (its own token, never cached or shared).
        func connection(for identity: EndUser) throws -> Connection { try connect(identity) }
    }

    /// Starts the embedded sandbox if needed. Every connection to the platform shares one
    /// transport, whatever the number of end users: the embedded sandbox's router, or one
    /// libcurl thread multiplexing all their requests and event streams.
    func start() async throws -> Platform {
        switch target {
        case .embedded(let file):
            var configuration = SandboxConfiguration.builtIn
            if let file { configuration = try await SandboxConfiguration.load(file: file, environment: environment) }
            // It serves this run only: the per-end-user quotas the configuration leaves unset do not apply.
            configuration.limits = (configuration.limits ?? LimitsConfiguration()).forOneRun()
            let timeZone = TimeZone(identifier: configuration.company.timeZone) ?? .gmt
            var clock: any TimeSource = SystemClock()
            var simulation: VirtualTime?
            if virtualTime {
                guard let installed = VirtualTime.current else { throw VirtualTimeSetup.NotInstalled() }
                // --start, else the configuration's clock_start, else now: the whole clock starts there.
                let configured = configuration.clockStart.flatMap { ISO8601DateFormatter().date(from: $0) }
                if let begin = start?.date(in: timeZone) ?? configured { installed.begin(at: begin) }
                simulation = installed
                clock = installed.clock
                configuration.clockStart = nil
            } else if let start {
                configuration.clockStart = ISO8601DateFormatter().string(from: start.date(in: timeZone))
            }
            let listening = try listen(configuring: &configuration)
            // ccai.apps reaches the embedded sandbox's Apps API with a credential made for this run.
            let appsToken = ServeToken.madeUp()
            configuration.apiCredentials = (configuration.apiCredentials ?? []) + [APICredential(name: "ccai run", token: appsToken)]
            // The run's devices get the sandbox's pushes at the tokens they registered.
            let devices = LocalPushNetwork()
            if console != nil, configuration.adminToken?.isEmpty ?? true {
                configuration.adminToken = ServeToken.madeUp()
                printError("console: the admin token of this run is \(configuration.adminToken ?? "") (made up: no admin_token "
                           + "in the configuration)")
            }
            let sandbox = try Sandbox(configuration: configuration, clock: clock, pushSink: devices,
                                      webhookTransport: CurlWebhookTransport.for(configuration), servesConsole: console != nil)
            let server = loopback ? try sandbox.serve(address: "127.0.0.1", port: 0) : nil
            let consoleServer: HTTPServer?
            do {
                consoleServer = try console.map { try sandbox.serve(address: $0.host, port: $0.port) }
            } catch {
                await server?.stop()
                throw CommandFailure("--console: " + ((error as? HTTPError)?.message ?? "\(error)"))
            }
            if let consoleServer { printError("console: \(consoleServer.baseURL)/console (sign in with the admin token)") }
            let http = server == nil ? HTTPClient(clock: clock, transport: RouterTransport(router: sandbox.router, clock: clock))
                : HTTPClient(clock: clock)
            let urlHost = server.map { "127.0.0.1:\($0.port)" } ?? Self.embeddedHost
            let algorithm: JWTAlgorithm = configuration.algorithms.contains(.hs384) ? .hs384 : .hs256
            let company = configuration.company, businessClock = sandbox.businessClock
            let embeddedApps = try AppsClient(baseURL: "http://" + urlHost,
                                              credentials: .init(subdomain: company.effectiveSubdomain, token: appsToken), http: http)
            let apps = try self.apps.map { try AppsClient(baseURL: $0.baseURL, credentials: $0.credentials) } ?? embeddedApps
            return Platform(sandbox: sandbox, server: server, consoleServer: consoleServer, clock: businessClock, apps: apps,
                            webhookReceiver: listening?.0,
                            webhooks: listening?.1, simulation: simulation, timeZone: timeZone) { identity in
                let sdk = CCAI(http: http, pushNetwork: devices)
                let delegate = HostAuthenticator(signing: .secret(company.secret, algorithm), identity: identity, ccai: sdk)
                try sdk.initialize(options: InitOptions(key: company.key, urlHost: urlHost, delegate: delegate, cacheAuthToken: false))
                return Connection(sdk: sdk, server: server, delegate: delegate, clock: businessClock)
            }
        case .remote(let host, let key, let signing, let policy):
            let http = HTTPClient()
            let apps = try self.apps.map { try AppsClient(baseURL: $0.baseURL, credentials: $0.credentials, http: http) }
            var unused = SandboxConfiguration.builtIn
            let listening = try listen(configuring: &unused)
            return Platform(server: nil, apps: apps, webhookReceiver: listening?.0, webhooks: listening?.1) { identity in
                let sdk = CCAI(http: http)
                let delegate = HostAuthenticator(signing: signing, identity: identity, ccai: sdk, policy: policy)
                try sdk.initialize(options: InitOptions(key: key, urlHost: host, delegate: delegate, cacheAuthToken: false))
                return Connection(sdk: sdk, server: nil, delegate: delegate)
            }
        }
    }

    /// Starts `--webhook-listen`'s receiver, if any: with the secrets given, else those of
    /// the embedded sandbox's `webhooks`, else a secret made up, with which the embedded
    /// sandbox (`configuration`) is made to deliver there.
    private func listen(configuring configuration: inout SandboxConfiguration) throws -> (WebhookReceiver, WebhookInbox)? {
        guard let listen = webhookListen else { return nil }
        let secrets = listen.secrets ?? configuration.webhooks.map { ($0.primarySecret, $0.secondarySecret) }
            ?? (ServeToken.madeUp(), nil)
        let (receiver, inbox) = try listen.start(signature: WebhookSignature(primarySecret: secrets.0, secondarySecret: secrets.1))
        if configuration.webhooks == nil {
            configuration.webhooks = WebhookConfiguration(url: listen.loopbackURL(receiver.port), primarySecret: secrets.0,
                                                          secondarySecret: secrets.1)
        }
        return (receiver, inbox)
    }

    /// The host the SDK's options name for the embedded sandbox reached through its router
    /// (`ccai.options.get().url_host`): a name that resolves nowhere (RFC 6761's `.invalid`).
    static let embeddedHost = "embedded-sandbox.invalid"

    /// Starts the embedded sandbox if needed and initializes an SDK instance for `identity`.
    func open(identity: EndUser) async throws -> Connection {
        try await start().connection(for: identity)
    }
}
