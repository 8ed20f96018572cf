/// A `ccai` command: it declares itself (``spec``), is made from the parsed command line,
/// and runs. It throws what goes wrong; `main` renders it (``ErrorReport``).
protocol Command {
    /// The command's name, arguments, options and help.
    static var spec: CommandSpec { get }
    /// Reads the typed values of `arguments`; a bad one is a ``UsageError``.
    init(_ arguments: ParsedArguments) throws
    /// Runs the command; its exit status.
    func execute() async throws -> ExitStatus
}

extension Command {
    /// Parses `arguments` (the words after the command's name) against ``spec``.
    static func parse(_ arguments: [String]) throws -> Self {
        try Self(ArgumentParser.parse(arguments, for: spec))
    }
}
