import CCAIKit
import CCAIScripting
import CCAISandbox
import CCAIWire
import Foundation
import Timekeeping

/// Where `ccai run` sends the SDK: the embedded sandbox (default, or `--sandbox FILE`),
/// or a platform at `--host` with the company key and a way to sign end-user JWTs.
struct PlatformConnection {
    enum Target {
        case embedded(configurationFile: String?)
        case remote(host: String, companyKey: String, signing: HostAuthenticator.Signing)
    }

    var target: Target = .embedded(configurationFile: nil)

    /// Checks the connection options of `ccai run` (by option name).
    static func parse(_ options: [String: String]) throws -> PlatformConnection {
        let host = options["--host"], key = options["--company-key"], command = options["--jwt-command"]
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
            return PlatformConnection(target: .remote(host: host, companyKey: key, signing: signing))
        case (nil, let command?):
            guard algorithm == nil else {
                throw UsageError(message: "--jwt-alg goes with a company secret; the --jwt-command signs by itself", command: "run")
            }
            return PlatformConnection(target: .remote(host: host, companyKey: key, signing: .command(command)))
        default:
            throw UsageError(message: "--host needs exactly one of a company secret (--company-secret, --company-secret-file or "
                             + "\(CompanySecret.environmentVariable)) and --jwt-command", command: "run")
        }
    }

    /// A running connection: the SDK instance, the embedded server to stop afterwards, and
    /// the delegate (the options hold it weakly).
    struct Session {
        var sdk: CCAI
        var server: HTTPServer?
        var delegate: HostAuthenticator
        /// The platform's time: the embedded sandbox's business clock (`clock_start`), else the real time.
        var clock: any Clock = SystemClock()
    }

    /// Starts the embedded sandbox if needed and initializes an SDK instance for `identity`.
    func open(identity: EndUser) async throws -> Session {
        let sdk = CCAI()
        switch target {
        case .embedded(let file):
            var configuration = SandboxConfiguration.builtIn
            if let file { configuration = try await SandboxConfiguration.load(file: file) }
            let sandbox = try Sandbox(configuration: configuration)
            let server = try sandbox.serve(address: "127.0.0.1", port: 0)
            let algorithm: JWTAlgorithm = configuration.algorithms.contains(.hs384) ? .hs384 : .hs256
            let delegate = HostAuthenticator(signing: .secret(configuration.company.secret, algorithm), identity: identity,
                                             ccai: sdk)
            try sdk.initialize(options: InitOptions(key: configuration.company.key, urlHost: "127.0.0.1:\(server.port)",
                                                    delegate: delegate, cacheAuthToken: false))
            return Session(sdk: sdk, server: server, delegate: delegate, clock: sandbox.businessClock)
        case .remote(let host, let key, let signing):
            let delegate = HostAuthenticator(signing: signing, identity: identity, ccai: sdk)
            try sdk.initialize(options: InitOptions(key: key, urlHost: host, delegate: delegate, cacheAuthToken: false))
            return Session(sdk: sdk, server: nil, delegate: delegate)
        }
    }
}
