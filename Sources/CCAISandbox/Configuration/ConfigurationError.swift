import CCAIWire
import LuaRuntime

/// A configuration that cannot be used, with the field at fault; a file with several
/// mistakes gives one error listing them all.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// The whole text: the one problem, or `config.lua: 3 problems:` and one line each.
    public var message: String
    /// Each problem on its own, naming its field (one entry for a single problem).
    public var problems: [String]
    public var description: String { message }

    /// One problem; control characters are escaped for the terminal (``TerminalText``).
    public init(message: String) {
        self.message = TerminalText.escaped(message)
        problems = [message]
    }

    /// Several problems at once, each naming its field:
    ///
    /// ```text
    /// config.lua: 2 problems:
    ///   - company.time_zone: 'Mars/Olympus' is not an IANA time zone (e.g. America/Los_Angeles)
    ///   - agent: unknown field (did you mean 'agents'?)
    /// ```
    ///
    /// Each problem is escaped for the terminal (``TerminalText``), so the message's only
    /// line breaks are those between problems.
    init(problems: [String], in file: String? = nil) {
        self.problems = problems
        let escaped = problems.map { TerminalText.escaped($0) }
        let list = escaped.count == 1 ? escaped[0]
            : "\(escaped.count) problems:\n" + escaped.map { "  - " + $0 }.joined(separator: "\n")
        message = file.map { TerminalText.escaped($0) + ": " + list } ?? list
    }
}
