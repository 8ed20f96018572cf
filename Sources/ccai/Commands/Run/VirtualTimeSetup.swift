import Foundation
import Timekeeping

/// What `ccai run --virtual-time` sets up before the first `await` of the process: the
/// simulation every asynchronous job runs on (``VirtualTime``), in a process whose
/// hashing does not vary from run to run. Swift seeds its hashing per process unless
/// `SWIFT_DETERMINISTIC_HASHING` is set, and a simulation must replay alike, the order of
/// its dictionaries included: without it, the process starts itself again with it.
enum VirtualTimeSetup {
    static let hashingVariable = "SWIFT_DETERMINISTIC_HASHING"

    /// Installs the simulation when `arguments` (the command line after `ccai`) are a
    /// valid `run --virtual-time`; a run with bad arguments is left to report them.
    static func prepare(_ arguments: [String]) throws {
        guard arguments.first == "run", let command = try? RunCommand.parse(Array(arguments.dropFirst())),
            command.options.virtualTime
        else { return }
        if ProcessInfo.processInfo.environment[hashingVariable] != "1" { try restart(with: Array(arguments.dropFirst())) }
        _ = try VirtualTime.install()
    }

    /// Replaces the process with `ccai run` and `arguments`, with deterministic hashing
    /// (a scenario whose options ask for virtual time or a start it was not given: only its
    /// first VU's top level has run); returns only by throwing. Signals a run ignores (it
    /// handles Ctrl-C itself) must have their default action back first: an ignored signal
    /// stays ignored in the program `exec` starts.
    static func restart(with arguments: [String]) throws {
        var environment = ProcessInfo.processInfo.environment
        environment[hashingVariable] = "1"
        let argv = ([CommandLine.arguments.first ?? "ccai", "run"] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        fflush(stdout)
        execve("/proc/self/exe", argv, envp)
        let reason = String(cString: strerror(errno))
        (argv + envp).forEach { free($0) }
        throw Failure(reason: reason)
    }

    struct Failure: Error, CustomStringConvertible {
        var reason: String
        var description: String { "cannot start the run again: \(reason)" }
    }

    /// A run in virtual time whose process did not install the simulation first.
    struct NotInstalled: Error, CustomStringConvertible {
        var description: String { "virtual time is set up when ccai starts (VirtualTimeSetup.prepare), and was not" }
    }
}
