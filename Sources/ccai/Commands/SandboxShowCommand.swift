import CCAISandbox
import Foundation

/// `ccai sandbox show [CONFIG]`: the effective configuration as a tree (the built-in
/// company without a file): menus with their ids and channels, hours, agents and what
/// each does, virtual agents, surveys, forms and post-session rules.
struct SandboxShowCommand: Command {
    static let spec = CommandSpec(
        ["sandbox", "show"], arguments: "[CONFIG.lua]", abstract: "print the effective sandbox configuration as a tree",
        discussion: """
            prints the effective configuration as a tree (the built-in company without
            a file): the company, hours, menus with their ids, channels and rules, agents and
            what each does (its shifts among the rest), virtual agents, surveys and forms.
            """,
        options: [EnvironmentOption.spec])

    var file: String?
    /// `--env`: what the configuration reads as `env`.
    var environment: [String: String]

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count <= 1 else { throw Self.spec.usageError("sandbox show takes one configuration file") }
        file = arguments.positionals.first
        environment = try EnvironmentOption.values(in: arguments, for: Self.spec)
        if let file, !FileManager.default.isReadableFile(atPath: file) {
            throw Self.spec.usageError("cannot read the sandbox configuration '\(file)'")
        }
    }

    func execute() async throws -> ExitStatus {
        var configuration = SandboxConfiguration.builtIn
        if let file { configuration = try await SandboxConfiguration.load(file: file, environment: environment) }
        print(ConfigurationOutline.text(configuration), terminator: "")
        return .success
    }
}
