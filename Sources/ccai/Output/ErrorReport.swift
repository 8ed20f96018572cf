import CCAISandbox
import CCAIScripting
import LuaRuntime

/// The one place an error becomes what the user reads and the exit status `ccai` ends
/// with (swift-argument-parser's design): commands throw, `main` renders.
///
/// | error                         | standard error                                   | status |
/// |-------------------------------|--------------------------------------------------|--------|
/// | ``UsageError``                | `error: ...` and `Run 'ccai help run' for usage.` | 2      |
/// | a scenario's bad options      | `error: ...`                                     | 2      |
/// | a script's or setup's error   | `error: ...` and its traceback                   | 1      |
/// | a run over `max_memory`       | `error: ...`                                     | 1      |
/// | ``CommandFailure``            | an `error: ...` line per message                 | its own |
/// | anything else                 | `error: ` and the error as a sentence            | 1      |
enum ErrorReport {
    /// Writes `error` to standard error; the exit status it means.
    @discardableResult
    static func render(_ error: Error) -> ExitStatus {
        switch error {
        case let usage as UsageError:
            printError("error: \(usage.message)")
            printError("Run 'ccai help\(usage.command.map { " " + $0 } ?? "")' for usage.")
            return .usage
        case ScenarioRunner.Failure.options(let message):
            // A list of problems (every bad threshold) keeps its lines.
            printError("error: \(message)", lines: true)
            return .usage
        case ScenarioRunner.Failure.setup(let script):
            printScriptError(script, as: "setup failed: \(script.message)")
            return .failure
        case ScenarioRunner.Failure.memory(let message):
            printError("error: \(message)")
            return .failure
        case let script as LuaScriptError:
            printScriptError(script, as: script.message)
            return .failure
        case let failure as CommandFailure:
            for message in failure.messages { printError("error: \(message)") }
            return failure.status
        case let http as HTTPError:
            printError("error: \(http.message)")
            return .failure
        default:
            printError(error)
            return .failure
        }
    }

    /// The one-line message of a run that could not start or finish (exit status 1), for
    /// the outputs that report it (a JUnit file); nil for a usage error.
    static func failureMessage(_ error: Error) -> String? {
        switch error {
        case is UsageError, ScenarioRunner.Failure.options: return nil
        case ScenarioRunner.Failure.setup(let script): return "setup failed: \(script.message)"
        case ScenarioRunner.Failure.memory(let message): return message
        case let script as LuaScriptError: return script.message
        default: return ErrorText.sentence(error)
        }
    }

    private static func printScriptError(_ error: LuaScriptError, as message: String) {
        printError("error: \(message)")
        if let traceback = error.traceback, !traceback.isEmpty { printError(traceback, lines: true) }
    }
}
