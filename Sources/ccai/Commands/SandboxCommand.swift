import CCAISandbox
import Foundation

/// `ccai sandbox serve`: runs the platform emulator as a server until interrupted.
struct SandboxCommand {
    static let help = """
        Usage: ccai sandbox serve [--config CONFIG.lua] [--listen HOST:PORT] [--data DIR]
                                  [--admin-token-file FILE]
               ccai sandbox check CONFIG.lua...
               ccai sandbox show [CONFIG.lua]

        serve: serves the platform emulator over HTTP until interrupted (Ctrl-C or
        SIGTERM), then lets requests in progress finish. Prints its base URL on standard
        output. Agent scripts are read and compiled at start: a syntax error stops it.
        With --data, a restart resumes what the last run left under way: chats in progress
        go back to their queues and agents take them again, and post-session virtual
        agents talk again; the apps keep their chats.
        The bearer token of GET /admin/ratings is --admin-token-file's, else the
        configuration's admin_token, else, with --data, the one kept in DIR/admin-token
        (made at the first run, mode 0600), else one made up for this run; a token made
        on this run is printed on standard error.

        check: loads each configuration as serve would (validation, agent scripts read and
        compiled) and prints one line per file; exit status 1 when one fails.

        show: prints the effective configuration as a tree (the built-in company without
        a file): the company, hours, menus with their ids, channels and rules, agents and
        what each does, virtual agents, surveys and forms.

        Options:
          --config FILE       a sandbox configuration (a Lua file returning a table);
                              default: the built-in company (key dev-key, secret dev-secret)
          --listen HOST:PORT  where to listen (default: 127.0.0.1:8787; port 0 picks one)
          --data DIR          keep the sandbox's state in DIR (SQLite); without it the state
                              lives in memory and is gone at exit. DIR belongs to the company
                              that first used it: another company key is refused (exit 1)
          --admin-token-file FILE
                              the admin token: the file's one line (printable ASCII, at most
                              4096 bytes)
        """

    var configurationFile: String?
    var host = "127.0.0.1"
    var port: UInt16 = 8787
    var dataDirectory: String?
    var adminTokenFile: String?

    init(arguments: [String]) throws {
        guard arguments.first == "serve" else {
            throw UsageError(message: arguments.first.map { "unknown sandbox command '\($0)'" }
                                 ?? "sandbox needs a command: serve, check or show", command: "sandbox")
        }
        var reader = ArgumentReader(Array(arguments.dropFirst()), command: "sandbox")
        while let token = reader.next() {
            switch token {
            case .option("--config"):
                let file = try reader.value(for: "--config")
                guard FileManager.default.isReadableFile(atPath: file) else {
                    throw UsageError(message: "--config: cannot read the sandbox configuration '\(file)'", command: "sandbox")
                }
                configurationFile = file
            case .option("--listen"):
                let value = try reader.value(for: "--listen")
                guard let colon = value.lastIndex(of: ":"), let port = UInt16(value[value.index(after: colon)...]),
                    colon != value.startIndex
                else {
                    throw UsageError(message: "--listen expects HOST:PORT, got '\(value)'", command: "sandbox")
                }
                host = String(value[..<colon])
                self.port = port
            case .option("--data"):
                dataDirectory = try reader.value(for: "--data")
            case .option("--admin-token-file"):
                let file = try reader.value(for: "--admin-token-file")
                guard FileManager.default.isReadableFile(atPath: file) else {
                    throw UsageError(message: "--admin-token-file: cannot read '\(file)'", command: "sandbox")
                }
                adminTokenFile = file
            case .option(let option):
                throw reader.unknown(option)
            case .positional(let value):
                throw UsageError(message: "unexpected argument '\(value)'", command: "sandbox")
            }
        }
    }

    func execute() async -> Int32 {
        let sandbox: Sandbox
        let admin: AdminToken
        do {
            var configuration = SandboxConfiguration.builtIn
            if let configurationFile { configuration = try await SandboxConfiguration.load(file: configurationFile) }
            admin = try AdminToken.resolve(file: adminTokenFile, configured: configuration.adminToken, dataDirectory: dataDirectory)
            configuration.adminToken = admin.token
            sandbox = try Sandbox(configuration: configuration, dataDirectory: dataDirectory)
            try await sandbox.resumeChatsLeftOpen()
            try await sandbox.failCallsLeftOpen()
        } catch {
            printError(error)
            return 1
        }
        let server: HTTPServer
        do {
            var limits = HTTPServer.Limits()
            limits.connectionsPerAddress = (sandbox.configuration.limits ?? LimitsConfiguration()).effectiveConnectionsPerAddress
            server = try sandbox.serve(address: host, port: port, limits: limits)
        } catch let error as HTTPError {
            printError("error: \(error.message)")
            return 1
        } catch {
            printError(error)
            return 1
        }
        print(server.baseURL)
        fflush(stdout)
        let company = sandbox.configuration.company
        printError("sandbox: serving \(company.name) on \(server.baseURL) (company key \(company.key))"
            + (dataDirectory.map { "; state in \($0)" } ?? "; state in memory") + ". Ctrl-C stops.")
        printError("sandbox: " + admin.notice)
        await Self.waitForTermination()
        printError("sandbox: stopping")
        await server.stop()
        return 0
    }

    /// Suspends until SIGINT or SIGTERM.
    private static func waitForTermination() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = ResumeOnce(continuation)
            for signalNumber in [SIGINT, SIGTERM] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler { once.resume() }
                source.resume()
                ResumeOnce.sources.append(source)
            }
        }
    }
}

/// Resumes a continuation at most once, from whichever signal comes first.
private final class ResumeOnce: @unchecked Sendable {
    nonisolated(unsafe) static var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?

    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }

    func resume() {
        let waiting: CheckedContinuation<Void, Never>? = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume()
    }
}
