import CCAISandbox
import CCAIWire
import Foundation

/// `ccai sandbox check CONFIG...`: loads each sandbox configuration as `sandbox serve`
/// would (validation, agent scripts read and compiled) and says what is wrong, without
/// serving.
struct SandboxCheckCommand {
    var files: [String]

    init(arguments: [String]) throws {
        files = arguments
        if let option = files.first(where: { $0.hasPrefix("-") }) {
            throw UsageError(message: "unknown option '\(option)' for 'ccai sandbox check'", command: "sandbox")
        }
        guard !files.isEmpty else { throw UsageError(message: "sandbox check needs a configuration file", command: "sandbox") }
    }

    func execute() async -> Int32 {
        var failed = 0
        for file in files {
            do {
                let configuration = try await SandboxConfiguration.load(file: file)
                _ = try Sandbox(configuration: configuration, log: { _ in })
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
        return failed == 0 ? 0 : 1
    }
}
