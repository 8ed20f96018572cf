import LuaRuntime

/// `ccai help [COMMAND]` and `ccai --version`: the overview lists every command of
/// ``CommandTable`` from its declaration.
enum HelpCommand {
    static let version = "0.1.0"

    /// `ccai help` itself, as the command list shows it.
    static let spec = CommandSpec(["help"], arguments: "[COMMAND]", abstract: "show help for ccai or for one command")

    /// The options `ccai` takes without a command.
    static let options = [
        OptionSpec("--version", help: "print the version"),
        OptionSpec("--help", aliases: ["-h"], help: "show this help"),
    ]

    static var overview: String {
        let commands = CommandTable.topics.joined().map { $0.spec } + [spec]
        let rows = commands.map { command in
            (label: ([command.name, command.arguments] + command.options.filter(\.isRequired).map(\.synopsis))
                .filter { !$0.isEmpty }.joined(separator: " "), help: command.abstract)
        }
        return """
            ccai: a scripting host for Contact Center AI Platform automation (Lua 5.4).

            Usage: ccai COMMAND [options]

            Commands:
            \(HelpText.rows(rows))

            Options:
            \(HelpText.rows(options.flatMap(HelpText.rows(of:))))

            Run 'ccai help run' for the options of a command.
            """
    }

    static var versionText: String { "ccai \(version) (\(LuaState.luaRelease))" }

    /// The help text of `topic` (nil or `help`: the overview), or nil when there is no such command.
    static func text(for topic: String?) -> String? {
        guard let topic, topic != "help" else { return overview }
        return CommandTable.help(for: topic)
    }
}
