/// What a command declares about itself: its name, its positional arguments, its options
/// and the prose of its help. The usage line, `--help`, the command list of `ccai help`
/// and the parser all read from it (``HelpText``, ``ArgumentParser``).
struct CommandSpec: Sendable {
    /// The words after `ccai`: `["run"]`, `["sandbox", "serve"]`.
    var path: [String]
    /// The positional arguments as the usage line shows them: `SCRIPT`, `FILE...`, `[CONFIG.lua]`.
    var arguments: String
    /// One line for the command list of `ccai help`.
    var abstract: String
    /// The paragraphs of the help before its options.
    var discussion: String
    /// The options, in the order the help lists them.
    var options: [OptionSpec]
    /// The paragraphs of the help after its options (exit statuses, ...).
    var epilogue: String

    init(_ path: [String], arguments: String = "", abstract: String, discussion: String = "", options: [OptionSpec] = [],
         epilogue: String = "") {
        self.path = path
        self.arguments = arguments
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.epilogue = epilogue
    }

    /// `run`, `sandbox serve`: the command as messages name it after `ccai`.
    var name: String { path.joined(separator: " ") }

    /// The help topic the command belongs to (`ccai help TOPIC`): its first word.
    var topic: String { path[0] }

    /// The usage line after `ccai`: the name, the arguments, the required options, and
    /// `[options]` when there are others.
    var synopsis: String {
        let required = options.filter(\.isRequired).map(\.synopsis)
        let optional = options.contains { !$0.isRequired } ? ["[options]"] : []
        return ([name, arguments] + required + optional).filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The option `spelling` names (its name or an alias), or nil.
    func option(named spelling: String) -> OptionSpec? {
        options.first { $0.spellings.contains(spelling) }
    }
}

extension CommandSpec {
    /// A usage mistake in this command's arguments: its hint points to the command's help.
    func usageError(_ message: String) -> UsageError { UsageError(message: message, command: topic) }
}
