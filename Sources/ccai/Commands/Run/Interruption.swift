import Foundation

/// Ctrl-C (SIGINT) and SIGTERM during `ccai run`: the first one calls `onFirst` (the run
/// stops gracefully), a second one exits at once with 128 + its number.
///
/// ```swift
/// let interruption = Interruption { _ in runner.interrupt() }
/// defer { interruption.cancel() }
/// ```
final class Interruption: @unchecked Sendable {
    private let lock = NSLock()
    private var sources: [DispatchSourceSignal] = []
    private var received: Int32?

    init(onFirst: @escaping @Sendable (Int32) -> Void) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.handle(number, onFirst) }
            source.resume()
            sources.append(source)
        }
    }

    /// The exit status the run ends with: 130 after Ctrl-C, 143 after SIGTERM; nil when
    /// no signal came.
    var exitStatus: ExitStatus? { lock.withLock { received.map(ExitStatus.signalled) } }

    /// Stops listening; the signals' default actions are back.
    func cancel() {
        for source in sources { source.cancel() }
        for number in [SIGINT, SIGTERM] { signal(number, SIG_DFL) }
    }

    private func handle(_ number: Int32, _ onFirst: @Sendable (Int32) -> Void) {
        let isFirst: Bool = lock.withLock {
            defer { if received == nil { received = number } }
            return received == nil
        }
        if isFirst {
            printError("interrupted: no new iterations; those running get graceful_stop (again to stop at once)")
            onFirst(number)
        } else {
            exit(128 + number)
        }
    }
}
