import CCAIWire

/// `--env KEY=VALUE`, declared and parsed once for every command that takes it: `ccai run`
/// (a scenario reads `ccai.env.KEY`, its sandbox configuration `env.KEY`) and the sandbox
/// commands that load a configuration (`serve`, `show`, `check`).
///
/// ```swift
/// let environment = try EnvironmentOption.values(in: arguments, for: Self.spec)   // ["AGENTS": "8"]
/// ```
enum EnvironmentOption {
    static let spec = OptionSpec("--env", aliases: ["-e"], value: "KEY=VALUE",
                                 help: "a parameter a scenario reads as ccai.env.KEY and a sandbox configuration as "
                                 + "env.KEY (repeatable; a later KEY wins)")

    /// Each `--env` given, by key; one without `=` or without a key is a usage error of `command`.
    static func values(in arguments: ParsedArguments, for command: CommandSpec) throws -> [String: String] {
        var environment: [String: String] = [:]
        for pair in arguments.values(spec) {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw command.usageError("--env expects KEY=VALUE, got '\(TerminalText.escaped(pair))'")
            }
            environment[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return environment
    }
}
