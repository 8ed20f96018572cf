import CSpawnShim
import Foundation

/// Another program, started with `posix_spawn`: the host's `--jwt-command`, and the tools
/// tests and benchmarks run. Foundation's `Process.run()` is avoided on purpose: on this
/// toolchain it reads past a buffer while listing `/proc/self/fd` and crashes now and
/// then when the process has many descriptors open (swift-corelibs-foundation pull
/// request 5472). The child gets the three standard streams and no other descriptor.
///
/// ```swift
/// let result = try ChildProcess.run("/bin/sh", ["-c", "echo hi"])
/// print(result.status, String(decoding: result.output, as: UTF8.self))   // 0 hi
/// ```
public final class ChildProcess: @unchecked Sendable {
    /// Where a standard stream of the child goes.
    public enum Stream: Sendable {
        /// A pipe to this process (``standardInput``, ``standardOutput``, ``standardError``).
        case pipe
        /// `/dev/null`.
        case null
        /// This process's own stream.
        case inherit
    }

    /// What a run to the end gave.
    public struct Result: Sendable {
        /// The exit status, or 128 plus the signal that ended the child.
        public var status: Int32
        public var output: Data
        public var errors: Data
    }

    public let pid: pid_t
    /// The write end of the child's standard input, when it is a pipe.
    public let standardInput: FileHandle?
    /// The read end of the child's standard output, when it is a pipe.
    public let standardOutput: FileHandle?
    /// The read end of the child's standard error, when it is a pipe.
    public let standardError: FileHandle?

    private let lock = NSLock()
    private var exitStatus: Int32?

    /// Starts `executable` (a path) with `arguments`, in `directory` (default: this
    /// process's), with `environment` (default: this process's).
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
                input: Stream = .null, output: Stream = .pipe, errors: Stream = .inherit) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32?] = [nil, nil, nil]
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        for (target, stream) in [(Int32(0), input), (1, output), (2, errors)] {
            switch stream {
            case .inherit:
                continue
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard cspawn_pipe_cloexec(&ends) == 0 else {
                    parentEnds.compactMap { $0 }.forEach { close($0) }
                    throw ChildProcessError(message: "cannot make a pipe: \(String(cString: strerror(errno)))")
                }
                let (childEnd, parentEnd) = target == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
                childEnds.append(childEnd)
                parentEnds[Int(target)] = parentEnd
            }
        }
        cspawn_actions_close_from(&actions, 3)
        if let directory { cspawn_actions_chdir(&actions, directory) }
        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        // The child starts with no signal blocked and every signal's default action, whatever
        // the spawning thread blocks or the host ignores (SIGPIPE, say).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let started = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard started == 0 else {
            parentEnds.compactMap { $0 }.forEach { close($0) }
            throw ChildProcessError(message: "cannot run \(executable): \(String(cString: strerror(started)))")
        }
        pid = child
        standardInput = parentEnds[0].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardOutput = parentEnds[1].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardError = parentEnds[2].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
    }

    /// Waits for the child to end; its exit status, or 128 plus the signal that ended it.
    /// The wait itself leaves the ended child in place (`WNOWAIT`); it is reaped under the
    /// lock, so that ``terminate()`` never signals a process id the system has reused.
    @discardableResult
    public func wait() -> Int32 {
        if let status = lock.withLock({ exitStatus }) { return status }
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        return lock.withLock {
            if let status = exitStatus { return status }
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
            let status = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
            exitStatus = status
            return status
        }
    }

    /// Asks the child to stop (`SIGTERM`, or `signal`) if it has not been reaped.
    public func terminate(signal: Int32 = SIGTERM) {
        lock.withLock {
            guard exitStatus == nil else { return }
            kill(pid, signal)
        }
    }

    /// Runs a program to its end: writes `input` to it, collects what it writes to its
    /// standard output and (unless `errorsTo` says otherwise) error, and stops it
    /// (`SIGTERM`) after `timeout` seconds.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           directory: String? = nil, input: Data? = nil, timeout: TimeInterval? = nil,
                           errorsTo errors: Stream = .pipe) throws -> Result {
        let child = try ChildProcess(executable, arguments, environment: environment, directory: directory,
                                     input: input == nil ? .null : .pipe, output: .pipe, errors: errors)
        let timer = timeout.map { seconds in
            let item = DispatchWorkItem { child.terminate() }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
            return item
        }
        defer { timer?.cancel() }
        // The other stream and the input get threads of their own: a blocking read must not
        // hold one of the few threads of dispatch's shared queues.
        let readers = DispatchGroup()
        let collected = Collected()
        if let reader = child.standardError {
            readers.enter()
            Thread {
                collected.data = reader.readDataToEndOfFile()
                readers.leave()
            }.start()
        }
        if let input, let writer = child.standardInput {
            readers.enter()
            Thread {
                try? writer.write(contentsOf: input)
                try? writer.close()
                readers.leave()
            }.start()
        }
        let output = child.standardOutput?.readDataToEndOfFile() ?? Data()
        readers.wait()
        return Result(status: child.wait(), output: output, errors: collected.data)
    }
}

extension ChildProcess {
    /// ``run(_:_:environment:directory:input:timeout:errorsTo:)`` on a thread of its own,
    /// so that waiting for the program never holds a thread of Swift's small cooperative
    /// pool (on a 2-core machine, two such waits would stall every task of the process).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           directory: String? = nil, input: Data? = nil, timeout: TimeInterval? = nil,
                           errorsTo errors: Stream = .pipe) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result {
                    try run(executable, arguments, environment: environment, directory: directory, input: input,
                            timeout: timeout, errorsTo: errors) as Result
                })
            }.start()
        }
    }
}

/// A program could not be started.
public struct ChildProcessError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}

/// Bytes one reader thread hands to another (read after the group is waited for).
private final class Collected: @unchecked Sendable {
    var data = Data()
}
