import Foundation

/// Ctrl-C (SIGINT) and SIGTERM during `ccai run`, in three stages: the first calls
/// `onFirst` (no new iterations; those running get `graceful_stop`), the second
/// `onSecond` (those running stop at once, and the run still writes what it measured and
/// ends its open chats within a short deadline), a third exits at once with 128 + its
/// number.
///
/// ```swift
/// let interruption = Interruption(onFirst: { _ in runner.interrupt() }, onSecond: { _ in runner.stopNow() })
/// defer { interruption.cancel() }
/// ```
final class Interruption: @unchecked Sendable {
    private let lock = NSLock()
    private var sources: [DispatchSourceSignal] = []
    private var received: Int32?
    private var count = 0
    private let onFirst: @Sendable (Int32) -> Void
    private let onSecond: @Sendable (Int32) -> Void

    init(onFirst: @escaping @Sendable (Int32) -> Void, onSecond: @escaping @Sendable (Int32) -> Void) {
        self.onFirst = onFirst
        self.onSecond = onSecond
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.handle(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops the run as a Ctrl-C does (the dashboard's Stop button): the first time
    /// gracefully, the second at once; never a third (the process does not exit from here).
    func interrupt() {
        guard lock.withLock({ count < 2 }) else { return }
        handle(SIGINT)
    }

    /// The exit status the run ends with: 130 after Ctrl-C, 143 after SIGTERM (the first
    /// signal's); nil when no signal came.
    var exitStatus: ExitStatus? { lock.withLock { received.map(ExitStatus.signalled) } }

    /// Whether a second signal asked to stop at once: what is left to do gets a short deadline.
    var isHurried: Bool { lock.withLock { count >= 2 } }

    /// Stops listening; the signals' default actions are back.
    func cancel() {
        for source in sources { source.cancel() }
        for number in [SIGINT, SIGTERM] { signal(number, SIG_DFL) }
    }

    private func handle(_ number: Int32) {
        let stage: Int = lock.withLock {
            if received == nil { received = number }
            count += 1
            return count
        }
        switch stage {
        case 1:
            printError("interrupted: no new iterations; those running get graceful_stop (again to stop them at once)")
            onFirst(number)
        case 2:
            printError("interrupted again: stopping the iterations at once; writing what was measured and ending open chats "
                       + "(again to quit without them)")
            onSecond(number)
        default:
            exit(128 + number)
        }
    }
}
