import CCAIWire

/// Reads a command line against a command's declarations (``CommandSpec``): `--name value`,
/// `--name=value`, flags, aliases, and positional arguments; `--` makes the argument after
/// it positional whatever it looks like. An unknown option or a missing value is a
/// ``UsageError``, a misspelt one with the option it was probably meant to be.
///
/// ```swift
/// let parsed = try ArgumentParser.parse(["x.lua", "--seed=7"], for: RunOptions.spec)
/// parsed.positionals            // ["x.lua"]
/// parsed.last(RunOptions.seed)  // "7"
/// ```
enum ArgumentParser {
    static func parse(_ arguments: [String], for spec: CommandSpec) throws -> ParsedArguments {
        var parsed = ParsedArguments()
        var pending = arguments[...]
        while let argument = pending.popFirst() {
            if argument == "--" {
                if let next = pending.popFirst() { parsed.positionals.append(next) }
                continue
            }
            guard argument.hasPrefix("-"), argument.count > 1 else {
                parsed.positionals.append(argument)
                continue
            }
            var spelling = argument, joined = false
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                spelling = String(argument[..<equals])
                joined = true
                // The value is read next, as if given apart (a flag's then reads as an argument).
                pending.insert(String(argument[argument.index(after: equals)...]), at: pending.startIndex)
            }
            guard let option = spec.option(named: spelling) else { throw unknown(spelling, for: spec) }
            var value: String?
            if option.valueIsOptional {
                if joined || pending.first.map(readsAsAddress) == true { value = pending.popFirst() }
            } else if option.takesValue {
                guard let given = pending.popFirst() else {
                    throw UsageError(message: "\(option.name) needs a value", command: spec.topic)
                }
                value = given
            }
            parsed.occurrences.append(ParsedArguments.Occurrence(option: option.name, value: value))
        }
        return parsed
    }

    /// Whether `argument` reads as `HOST:PORT`: digits after its last colon.
    private static func readsAsAddress(_ argument: String) -> Bool {
        guard let colon = argument.lastIndex(of: ":") else { return false }
        let port = argument[argument.index(after: colon)...]
        return !port.isEmpty && port.allSatisfy(\.isASCII) && port.allSatisfy(\.isNumber)
    }

    /// `unknown option '--sed' for 'ccai run' (did you mean '--seed'?)`.
    static func unknown(_ spelling: String, for spec: CommandSpec) -> UsageError {
        UsageError(message: "unknown option '\(spelling)' for 'ccai \(spec.name)'"
                   + Suggestion.didYouMean(spelling, among: spec.options.flatMap(\.spellings)),
                   command: spec.topic)
    }
}

/// A command line as ``ArgumentParser`` read it: the options given, in order, and the
/// positional arguments. A command reads its typed values from it by declaration.
struct ParsedArguments: Sendable, Equatable {
    /// One option given: its name (never an alias) and its value (nil for a flag).
    struct Occurrence: Sendable, Equatable {
        var option: String
        var value: String?
    }

    var occurrences: [Occurrence] = []
    var positionals: [String] = []

    /// Every value given to `option`, in order (a repeatable option's).
    func values(_ option: OptionSpec) -> [String] {
        occurrences.filter { $0.option == option.name }.compactMap(\.value)
    }

    /// The value given last to `option` (the one that counts), or nil.
    func last(_ option: OptionSpec) -> String? { values(option).last }

    /// Whether `option` (a flag or not) was given.
    func has(_ option: OptionSpec) -> Bool { occurrences.contains { $0.option == option.name } }

    /// `transform` of every value given to `option`, in order: the first value it refuses
    /// stops the parse with its error.
    func each<T>(_ option: OptionSpec, _ transform: (String) throws -> T) throws -> [T] {
        try values(option).map(transform)
    }

    /// `transform` of the last value given to `option`, or nil when it was not given;
    /// every value given is checked.
    func last<T>(_ option: OptionSpec, _ transform: (String) throws -> T) throws -> T? {
        try each(option, transform).last
    }

    /// Where `option` was last given among the options (to tell which of two that undo
    /// each other came last), or nil.
    func position(_ option: OptionSpec) -> Int? { occurrences.lastIndex { $0.option == option.name } }
}

extension ParsedArguments {
    /// A command line that parses back to these arguments: each option as `--name value`,
    /// in order, then the positional arguments (one that looks like an option after `--`).
    var commandLine: [String] {
        occurrences.flatMap { [$0.option] + ($0.value.map { [$0] } ?? []) }
            + positionals.flatMap { $0.hasPrefix("-") && $0.count > 1 || $0 == "--" ? ["--", $0] : [$0] }
    }
}
