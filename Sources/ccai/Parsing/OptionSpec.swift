/// One option of a command, declared once: its names, the value it takes and its help.
/// Parsing (``ArgumentParser``), the usage line and the help text (``HelpText``) and the
/// "did you mean" of a misspelt option are all read from it.
///
/// ```swift
/// static let seed = OptionSpec("--seed", value: "N", help: "the seed of the run's random numbers")
/// static let quiet = OptionSpec("--quiet", aliases: ["-q"], help: "print nothing but errors")
/// ```
struct OptionSpec: Sendable, Equatable {
    /// The name the option is known by, `--seed`; messages name it so.
    var name: String
    /// Other spellings, `-q` for `--quiet`.
    var aliases: [String]
    /// What the value is called in the help, `N`, `KEY=VALUE`; nil for a flag, which takes none.
    var value: String?
    /// One row of help per documented form of the value (most options have one).
    var forms: [Form]
    /// Whether the command cannot run without it: its usage line shows it outside brackets.
    var isRequired: Bool
    /// Whether its value may be left out (`--dashboard [HOST:PORT]`): it is then given as
    /// `--name=VALUE`, or apart when the next argument reads as `HOST:PORT` (a port after
    /// its last colon), so that `--dashboard script.lua` leaves the script alone.
    var valueIsOptional = false

    /// A documented way to give the option: its value's name and what it does.
    struct Form: Sendable, Equatable {
        var value: String?
        var help: String
    }

    init(_ name: String, aliases: [String] = [], value: String? = nil, help: String, required: Bool = false) {
        self.init(name, aliases: aliases, value: value, forms: [Form(value: value, help: help)], required: required)
    }

    /// An option documented by several forms of its value, as `--out json=FILE` and
    /// `--out junit=FILE`; `value` names the value in messages and the usage line.
    init(_ name: String, aliases: [String] = [], value: String?, forms: [Form], required: Bool = false) {
        self.name = name
        self.aliases = aliases
        self.value = value
        self.forms = forms
        isRequired = required
    }

    /// Whether the option takes a value.
    var takesValue: Bool { value != nil }

    /// Every spelling of the option: its name and its aliases.
    var spellings: [String] { [name] + aliases }

    /// How the usage line shows it: `--out DIR`, `--quiet`, `--dashboard [HOST:PORT]`.
    var synopsis: String { value.map { valueIsOptional ? "\(name) [\($0)]" : "\(name) \($0)" } ?? name }

    /// A copy whose value may be left out.
    func optionalValue() -> OptionSpec {
        var spec = self
        spec.valueIsOptional = true
        return spec
    }
}
