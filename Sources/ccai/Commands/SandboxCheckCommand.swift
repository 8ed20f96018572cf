import CCAIBridge
import CCAISandbox
import CCAIWire
import Foundation

/// `ccai sandbox check CONFIG...`: loads each sandbox configuration as `sandbox serve`
/// would (validation, agent scripts read and compiled) and says what is wrong, without
/// serving.
struct SandboxCheckCommand: Command {
    static let spec = CommandSpec(
        ["sandbox", "check"], arguments: "CONFIG.lua...",
        abstract: "validate sandbox configurations and compile their agent scripts",
        discussion: """
            loads each configuration as serve would (validation, agent scripts read and
            compiled) and prints one line per file; exit status 1 when one fails.
            """,
        options: [EnvironmentOption.spec])

    var files: [String]
    /// `--env`: what the configurations read as `env`.
    var environment: [String: String]

    init(_ arguments: ParsedArguments) throws {
        files = arguments.positionals
        guard !files.isEmpty else { throw Self.spec.usageError("sandbox check needs a configuration file") }
        environment = try EnvironmentOption.values(in: arguments, for: Self.spec)
    }

    func execute() async -> ExitStatus {
        var failed = 0
        for file in files {
            do {
                let configuration = try await SandboxConfiguration.load(file: file, environment: environment)
                _ = try Sandbox(configuration: configuration, webhookTransport: CurlWebhookTransport.for(configuration), log: { _ in })
                let menus = configuration.allMenus.count, agents = configuration.agents?.count ?? 0
                let scripts = (configuration.agents ?? []).filter { $0.script != nil }.count
                    + (configuration.virtualAgents ?? [:]).values.filter { $0.script != nil }.count
                print("ok    \(file): \(configuration.company.name), \(menus) queue(s), \(agents) agent(s), \(scripts) script(s) compiled")
            } catch let error as ConfigurationError {
                failed += 1
                let escapedFile = TerminalText.escaped(file)
                print("FAIL  " + (error.message.hasPrefix(escapedFile) ? error.message : "\(escapedFile): \(error.message)"))
            } catch {
                failed += 1
                print("FAIL  \(file): " + ErrorText.sentence(error))
            }
        }
        return failed == 0 ? .success : .failure
    }
}
