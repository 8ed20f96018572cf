import CCAIWire
import Foundation
import LuaRuntime

/// Entry point: runs the command `arguments` name; what goes wrong is rendered in one
/// place (``ErrorReport``), which also gives the exit status.
func main(_ arguments: [String]) async -> ExitStatus {
    guard let name = arguments.first else {
        print(HelpCommand.overview)
        return .usage
    }
    do {
        // `ccai run -h`, `ccai sandbox serve --help`: the command's own help.
        if name != "help", arguments.dropFirst().contains(where: { $0 == "-h" || $0 == "--help" }),
            let text = HelpCommand.text(for: name)
        {
            print(text)
            return .success
        }
        switch name {
        case "help", "-h", "--help":
            let topic = name == "help" ? arguments.dropFirst().first : nil
            guard let text = HelpCommand.text(for: topic) else {
                throw UsageError(message: "unknown command '\(topic ?? "")'"
                                 + Suggestion.didYouMean(topic ?? "", among: CommandTable.topicNames))
            }
            print(text)
            return .success
        case "--version", "version":
            print(HelpCommand.versionText)
            return .success
        default:
            return try await CommandTable.command(for: arguments).execute()
        }
    } catch {
        return ErrorReport.render(error)
    }
}

// Before any thread allocates: one heap a core and at least two, not eight a core (``ProcessMemory``).
ProcessMemory.limitArenas()
// Before libcurl or anything else starts OpenSSL: no clean-up at exit under running threads.
CryptoLibrary.prepare()
// Blocks of 1 MiB or more (a VU's large strings and buffers) are mapped for themselves and
// given back to the system when freed. glibc's default raises this threshold after each such
// free and then keeps what is freed, which a run's budget (options.max_memory, measured as the
// resident set) would go on counting.
LuaMemoryPool.mapLargeBlocks()
let arguments = Array(CommandLine.arguments.dropFirst())
// Before the first await: in virtual time every asynchronous job runs on the simulation.
do { try VirtualTimeSetup.prepare(arguments) } catch {
    exit(ErrorReport.render(error).rawValue)
}
exit(await main(arguments).rawValue)
