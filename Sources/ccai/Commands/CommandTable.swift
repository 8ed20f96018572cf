import CCAIWire

/// Every command of `ccai`, once: dispatch, `ccai help`'s command list and each topic's
/// help are read from this table. A topic is the first word of its commands' names
/// (`sandbox` for `sandbox serve`, `check`, `show`).
enum CommandTable {
    static let topics: [[any Command.Type]] = [
        [RunCommand.self],
        [SandboxServeCommand.self, SandboxCheckCommand.self, SandboxShowCommand.self],
        [PluginsCommand.self],
        [ReportCommand.self],
        [JWTCommand.self],
        [TypesCommand.self],
        [ReferenceCommand.self],
    ]

    /// The topics' names: `run`, `sandbox`, ...
    static var topicNames: [String] { topics.map { $0[0].spec.topic } }

    /// The commands of the topic `name`, or nil.
    static func commands(of name: String) -> [any Command.Type]? {
        topics.first { $0[0].spec.topic == name }
    }

    /// The help of the topic `name`, or nil when there is no such topic.
    static func help(for name: String) -> String? {
        guard let commands = commands(of: name) else { return nil }
        return HelpText.text(for: commands.map { $0.spec })
    }

    /// The command `arguments` name (after `ccai`), made from the rest of them.
    static func command(for arguments: [String]) throws -> any Command {
        let name = arguments.first ?? ""
        guard let commands = commands(of: name) else {
            throw UsageError(message: "unknown command '\(name)'" + Suggestion.didYouMean(name, among: topicNames))
        }
        if commands.count == 1, commands[0].spec.path.count == 1 { return try commands[0].parse(Array(arguments.dropFirst())) }
        let names = commands.map { $0.spec.path[1] }
        guard let subcommand = arguments.dropFirst().first else {
            throw UsageError(message: "\(name) needs a command: " + list(names), command: name)
        }
        guard let chosen = commands.first(where: { $0.spec.path[1] == subcommand }) else {
            let suggestion = Suggestion.didYouMean(subcommand, among: names)
            let hint = suggestion.isEmpty && names.count == 1 ? ": the one there is, is \(names[0])" : suggestion
            throw UsageError(message: "unknown \(name) command '\(subcommand)'" + hint, command: name)
        }
        return try chosen.parse(Array(arguments.dropFirst(2)))
    }

    /// `serve, check or show`.
    private static func list(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}
