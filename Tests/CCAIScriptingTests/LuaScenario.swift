import CCAIBridge
import CCAIKit
import CCAISandbox
import CCAIScripting
import CCAIWire
import Foundation
import LuaRuntime
import Testing

/// A Lua scenario run in this process as `ccai run` runs it: an embedded sandbox (the
/// built-in company or the `sandbox` configuration) over loopback HTTP, or through its
/// router as `ccai run` reaches it without `--loopback` (`inProcess`), its pushes
/// delivered to the devices of the run, an SDK instance signed in as `vu-1`, the host's
/// signer, and the `plugins` folder beside the script when there is one. A failing
/// scenario's error and traceback go into the test report.
///
/// ```swift
/// let outcome = try await LuaScenario("tasks.lua").run()
/// outcome.expectPassed("scenario passed")
/// ```
struct LuaScenario {
    /// The repository's `Tests/Scenarios` folder.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios")

    let script: String
    var sandbox: String?
    var environment: [String: String] = [:]
    var outputDirectory: String?
    var inProcess = false

    /// `script` and `sandbox` are paths under `Tests/Scenarios`.
    init(_ script: String, sandbox: String? = nil, environment: [String: String] = [:], outputDirectory: String? = nil,
         inProcess: Bool = false) {
        self.script = Self.folder.appendingPathComponent(script).path
        self.sandbox = sandbox.map { Self.folder.appendingPathComponent($0).path }
        self.environment = environment
        self.outputDirectory = outputDirectory
        self.inProcess = inProcess
    }

    /// A scenario file anywhere (a test's own, in a temporary folder), against the
    /// built-in company.
    init(file: URL) {
        script = file.path
    }

    /// What a run printed and logged, and how it ended.
    struct Outcome {
        var printed: [String]
        /// The scripts' and plugins' log lines as `ccai run` writes them, then the sandbox's.
        var log: [String]
        var error: LuaScriptError?
        var everything: String { (printed + log).joined(separator: "\n") }

        /// Records the scenario's error with its traceback, or a missing `marker` line.
        func expectPassed(_ marker: String, sourceLocation: SourceLocation = #_sourceLocation) {
            if let error {
                Issue.record("\(error.message)\n\(error.traceback ?? "(no traceback)")\n--- log ---\n\(log.joined(separator: "\n"))",
                             sourceLocation: sourceLocation)
            } else {
                #expect(everything.contains(marker), "\(everything)", sourceLocation: sourceLocation)
            }
        }
    }

    func run() async throws -> Outcome {
        let sandboxLog = Lines()
        var configuration = SandboxConfiguration.builtIn
        if let sandbox { configuration = try await SandboxConfiguration.load(file: sandbox) }
        // ccai.apps reaches the sandbox's Apps API with a credential of the run, as `ccai run` does.
        let appsToken = "scenario-apps-token-\(UUID().uuidString)"
        configuration.apiCredentials = (configuration.apiCredentials ?? []) + [APICredential(name: "scenario", token: appsToken)]
        let devices = LocalPushNetwork()
        let platform = try Sandbox(configuration: configuration, pushSink: devices, log: { sandboxLog.append($0) })
        let server = inProcess ? nil : try platform.serve(address: "127.0.0.1", port: 0)
        let http = inProcess ? HTTPClient(transport: RouterTransport(router: platform.router)) : HTTPClient()
        let sdk = CCAI(http: http, pushNetwork: devices)
        let algorithm: JWTAlgorithm = configuration.algorithms.contains(.hs384) ? .hs384 : .hs256
        let delegate = HostAuthenticator(signing: .secret(configuration.company.secret, algorithm),
                                         identity: EndUser(identifier: "vu-1"), ccai: sdk)
        try sdk.initialize(options: InitOptions(key: configuration.company.key, urlHost: server.map { "127.0.0.1:\($0.port)" } ?? "embedded-sandbox.invalid",
                                                delegate: delegate, cacheAuthToken: false))
        let logger = CapturingLogger(minimumLevel: .info)
        let printed = Lines()
        var runner = ScriptRunner(environment: environment, logger: logger, sdk: sdk)
        runner.signer = delegate
        runner.printOutput = { printed.append($0) }
        runner.clock = platform.businessClock
        runner.outputDirectory = outputDirectory
        runner.apps = try AppsClient(baseURL: "http://" + (server.map { "127.0.0.1:\($0.port)" } ?? "embedded-sandbox.invalid"),
                                     credentials: .init(subdomain: configuration.company.effectiveSubdomain, token: appsToken), http: http)
        let plugins = URL(fileURLWithPath: script).deletingLastPathComponent().appendingPathComponent("plugins").path
        if FileManager.default.fileExists(atPath: plugins) {
            let host = PluginHost(directories: [plugins], runner: runner)
            await host.load()
            runner.plugins = host
        }
        var failure: LuaScriptError?
        do {
            try await runner.run(file: script)
        } catch let error as LuaScriptError {
            failure = error
        }
        await runner.plugins?.shutdown()
        await server?.stop()
        withExtendedLifetime(delegate) {}
        return Outcome(printed: printed.all, log: logger.records.map(StreamLogger.format) + sandboxLog.all, error: failure)
    }
}

/// Lines collected from several threads.
final class Lines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
