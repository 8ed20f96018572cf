/// A usage mistake on the command line: reported with a hint, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    /// The command whose help the hint points to.
    var command: String?

    var description: String { message }
}

/// Reads `--name value`, `--name=value` and positional arguments, in order.
struct ArgumentReader {
    private var arguments: [String]
    private var index = 0
    let command: String

    init(_ arguments: [String], command: String) {
        self.arguments = arguments
        self.command = command
    }

    enum Token: Equatable {
        case option(String)
        case positional(String)
    }

    /// The next option name (without its value) or positional argument.
    mutating func next() -> Token? {
        guard index < arguments.count else { return nil }
        let argument = arguments[index]
        index += 1
        if argument == "--" {
            return index < arguments.count ? .positional(arguments[index]) : nil
        }
        guard argument.hasPrefix("-"), argument.count > 1 else { return .positional(argument) }
        if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
            arguments.insert(String(argument[argument.index(after: equals)...]), at: index)
            return .option(String(argument[..<equals]))
        }
        return .option(argument)
    }

    /// The value of the option just read.
    mutating func value(for option: String) throws -> String {
        guard index < arguments.count else {
            throw UsageError(message: "\(option) needs a value", command: command)
        }
        index += 1
        return arguments[index - 1]
    }

    func unknown(_ option: String) -> UsageError {
        UsageError(message: "unknown option '\(option)' for 'ccai \(command)'", command: command)
    }
}
