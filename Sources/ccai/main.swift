import CCAIWire
import Foundation

/// Entry point: dispatches to a command and exits with its status.
func main(_ arguments: [String]) async -> Int32 {
    guard let command = arguments.first else {
        print(HelpCommand.overview)
        return 2
    }
    do {
        // `ccai run -h`, `ccai sandbox serve --help`: the command's own help.
        if command != "help", arguments.dropFirst().contains(where: { $0 == "-h" || $0 == "--help" }),
            let text = HelpCommand.text(for: command)
        {
            print(text)
            return 0
        }
        switch command {
        case "run":
            return try await RunCommand(arguments: Array(arguments.dropFirst())).execute()
        case "sandbox":
            if arguments.dropFirst().first == "check" {
                return try await SandboxCheckCommand(arguments: Array(arguments.dropFirst(2))).execute()
            }
            if arguments.dropFirst().first == "show" {
                return try await SandboxShowCommand(arguments: Array(arguments.dropFirst(2))).execute()
            }
            return try await SandboxCommand(arguments: Array(arguments.dropFirst())).execute()
        case "plugins":
            return try await PluginsCommand(arguments: Array(arguments.dropFirst())).execute()
        case "types":
            return try TypesCommand(arguments: Array(arguments.dropFirst())).execute()
        case "reference":
            return try ReferenceCommand(arguments: Array(arguments.dropFirst())).execute()
        case "report":
            return try ReportCommand(arguments: Array(arguments.dropFirst())).execute()
        case "jwt":
            return try JWTCommand(arguments: Array(arguments.dropFirst())).execute()
        case "help", "-h", "--help":
            let topic = command == "help" ? arguments.dropFirst().first : nil
            guard let text = HelpCommand.text(for: topic) else {
                throw UsageError(message: "unknown command '\(topic ?? "")'")
            }
            print(text)
            return 0
        case "--version", "version":
            print(HelpCommand.versionText)
            return 0
        default:
            throw UsageError(message: "unknown command '\(command)'")
        }
    } catch let error as UsageError {
        printError("error: \(error.message)")
        printError("Run 'ccai help\(error.command.map { " " + $0 } ?? "")' for usage.")
        return 2
    } catch {
        printError(error)
        return 1
    }
}

// Before libcurl or anything else starts OpenSSL: no clean-up at exit under running threads.
CryptoLibrary.prepare()
let arguments = Array(CommandLine.arguments.dropFirst())
// Before the first await: in virtual time every asynchronous job runs on the simulation.
do { try VirtualTimeSetup.prepare(arguments) } catch {
    printError(error)
    exit(1)
}
exit(await main(arguments))
