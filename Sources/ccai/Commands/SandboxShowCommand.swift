import CCAISandbox
import Foundation

/// `ccai sandbox show [CONFIG]`: the effective configuration as a tree (the built-in
/// company without a file): menus with their ids and channels, hours, agents and what
/// each does, virtual agents, surveys, forms and post-session rules.
struct SandboxShowCommand {
    var file: String?

    init(arguments: [String]) throws {
        if let option = arguments.first(where: { $0.hasPrefix("-") }) {
            throw UsageError(message: "unknown option '\(option)' for 'ccai sandbox show'", command: "sandbox")
        }
        guard arguments.count <= 1 else { throw UsageError(message: "sandbox show takes one configuration file", command: "sandbox") }
        if let file = arguments.first, !FileManager.default.isReadableFile(atPath: file) {
            throw UsageError(message: "cannot read the sandbox configuration '\(file)'", command: "sandbox")
        }
        file = arguments.first
    }

    func execute() async -> Int32 {
        do {
            var configuration = SandboxConfiguration.builtIn
            if let file { configuration = try await SandboxConfiguration.load(file: file) }
            print(ConfigurationOutline.text(configuration), terminator: "")
            return 0
        } catch {
            printError(error)
            return 1
        }
    }
}
