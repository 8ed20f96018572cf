import CCAIScripting
import Foundation
import Testing

@testable import ccai

/// The parsing core in process: value forms, suggestions, missing values, and help texts
/// generated from the declarations.
@Suite struct ArgumentParserTests {
    static let spec = CommandSpec(["demo"], arguments: "FILE", abstract: "a command to parse with", options: [
        OptionSpec("--seed", value: "N", help: "a seed"),
        OptionSpec("--quiet", aliases: ["-q"], help: "say less"),
        OptionSpec("--env", aliases: ["-e"], value: "KEY=VALUE", help: "a parameter (repeatable)"),
    ])
    static let seed = spec.options[0], quiet = spec.options[1], env = spec.options[2]

    @Test(arguments: [
        (["--seed", "7", "a.lua"], "7", ["a.lua"]),
        (["--seed=7", "a.lua"], "7", ["a.lua"]),
        (["a.lua", "--seed", "-7"], "-7", ["a.lua"]),
        (["--seed=", "a.lua"], "", ["a.lua"]),
        (["--seed", "1", "--seed=7", "--", "-a.lua"], "7", ["-a.lua"]),
    ])
    func eachValueFormParses(_ arguments: [String], _ seed: String, _ positionals: [String]) throws {
        let parsed = try ArgumentParser.parse(arguments, for: Self.spec)
        #expect(parsed.last(Self.seed) == seed)
        #expect(parsed.positionals == positionals)
        #expect(try ArgumentParser.parse(parsed.commandLine, for: Self.spec) == parsed, "the command line parses back")
    }

    @Test func aliasesFlagsAndRepeatsReadByDeclaration() throws {
        let parsed = try ArgumentParser.parse(["-q", "-e", "A=1", "--env=B=2", "a.lua"], for: Self.spec)
        #expect(parsed.has(Self.quiet) && !parsed.has(Self.seed))
        #expect(parsed.values(Self.env) == ["A=1", "B=2"])
        #expect(parsed.occurrences.map(\.option) == ["--quiet", "--env", "--env"], "aliases read as the option's name")
    }

    @Test func aMisspeltOptionSuggestsTheDeclaredOne() {
        #expect(throws: UsageError(message: "unknown option '--sed' for 'ccai demo' (did you mean '--seed'?)", command: "demo")) {
            try ArgumentParser.parse(["a.lua", "--sed", "1"], for: Self.spec)
        }
        #expect(throws: UsageError(message: "unknown option '--bogus' for 'ccai demo'", command: "demo")) {
            try ArgumentParser.parse(["--bogus"], for: Self.spec)
        }
        let run = #expect(throws: UsageError.self) { try RunCommand.parse(["x.lua", "--seeed", "1"]) }
        #expect(run?.message.hasSuffix("(did you mean '--seed'?)") == true, "\(String(describing: run))")
    }

    @Test func aMissingValueIsAUsageError() {
        #expect(throws: UsageError(message: "--seed needs a value", command: "demo")) {
            try ArgumentParser.parse(["a.lua", "--seed"], for: Self.spec)
        }
        #expect(throws: UsageError(message: "--env needs a value", command: "demo")) {
            try ArgumentParser.parse(["-e"], for: Self.spec)
        }
    }

    @Test func aMisspeltCommandSuggestsOne() {
        #expect(throws: UsageError(message: "unknown command 'rum' (did you mean 'run'?)")) { try CommandTable.command(for: ["rum"]) }
        #expect(throws: UsageError(message: "unknown sandbox command 'serv' (did you mean 'serve'?)", command: "sandbox")) {
            try CommandTable.command(for: ["sandbox", "serv"])
        }
    }

    @Test func generatedHelpListsEveryDeclaredOption() {
        let help = HelpText.text(for: [Self.spec])
        #expect(help.hasPrefix("Usage: ccai demo FILE [options]\n"))
        for label in ["--seed N", "-q, --quiet", "-e, --env KEY=VALUE"] {
            #expect(help.contains("\n  \(label)  "), "\(label) in\n\(help)")
        }
    }

    /// Every topic's help lists exactly the options its commands declare, one row per form.
    @Test func eachCommandsHelpListsExactlyItsDeclarations() throws {
        for commands in CommandTable.topics {
            let topic = commands[0].spec.topic
            let help = try #require(HelpCommand.text(for: topic))
            let listed = help.split(separator: "\n").filter { $0.hasPrefix("  -") }
                .map { $0.dropFirst(2).components(separatedBy: "  ")[0] }
            let declared = commands.flatMap { $0.spec.options.flatMap(HelpText.rows(of:)).map(\.label) }
            #expect(listed == declared, "ccai help \(topic)")
            #expect(help.hasPrefix("Usage: ccai \(topic)"))
        }
    }

    /// `ccai COMMAND --help` prints the help generated from the declarations, and the
    /// overview names every command.
    @Test func theBinaryPrintsTheGeneratedHelp() async throws {
        for topic in CommandTable.topicNames {
            let output = try await CLI.run([topic, "--help"])
            #expect(output.status == 0 && output.stdout == (CommandTable.help(for: topic) ?? "") + "\n", "\(topic)")
        }
        let overview = try await CLI.run(["help"])
        for commands in CommandTable.topics {
            for command in commands { #expect(overview.stdout.contains("  \(command.spec.name)"), "\(command.spec.name)") }
        }
    }

    @Test func runOptionsReadTypedValues() throws {
        let script = try CLI.script("print('hi')")
        defer { try? FileManager.default.removeItem(atPath: script) }
        let run = try RunCommand.parse([script, "--seed=42", "-e", "A=1", "--quiet", "--log-level", "debug", "--vus", "3"])
        #expect(run.options.seed == RandomSeed(42))
        #expect(run.options.environment == ["A": "1"] && run.options.logLevel == .debug && run.options.quiet)
        #expect(run.options.overrides.vus == 3)
        #expect(try RunCommand.parse([script, "--log-level", "debug", "-q"]).options.logLevel == .warn, "the last of the two counts")
    }
}
