import CCAIScripting
import Foundation

/// The live progress of `ccai run` on standard error: on a terminal, one line redrawn in
/// place each second (in colour unless `NO_COLOR` is set); otherwise a plain line each
/// second, for logs. Nothing for a plain script, or with `--quiet`.
///
/// ```
/// running   12s  vus 10/10  iterations 45/100  failed 2  checks 98.00%
/// ```
final class ProgressLine: @unchecked Sendable {
    private let lock = NSLock()
    private let isTerminal: Bool
    private let colours: Bool
    private var task: Task<Void, Never>?
    private var drawn = false

    /// How often the line is drawn, in seconds.
    static let interval = 1.0

    init(isTerminal: Bool = isatty(STDERR_FILENO) == 1, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.isTerminal = isTerminal
        colours = isTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// Draws `progress()` each second until ``stop()``.
    func start(_ progress: @escaping @Sendable () -> ScenarioRunner.Progress?) {
        task = Task { [weak self] in
            while (try? await Task.sleep(nanoseconds: UInt64(Self.interval * 1e9))) != nil {
                guard let self, let now = progress() else { continue }
                self.draw(now)
            }
        }
    }

    /// Stops drawing; on a terminal, the line is cleared for what comes next.
    func stop() {
        task?.cancel()
        lock.withLock {
            if isTerminal, drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            drawn = false
        }
    }

    private func draw(_ progress: ScenarioRunner.Progress) {
        let text = Self.text(progress, colours: colours)
        lock.withLock {
            FileHandle.standardError.write(Data((isTerminal ? "\r\u{1B}[K" + text : text + "\n").utf8))
            drawn = true
        }
    }

    /// The line: elapsed time, VUs taking part of the most, iterations done (of the
    /// planned), failed iterations, and the share of checks that passed.
    static func text(_ progress: ScenarioRunner.Progress, colours: Bool) -> String {
        func paint(_ text: String, _ code: String) -> String { colours ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        var parts = ["running " + String(format: "%5.0fs", progress.elapsed.rounded(.down)),
                     "vus \(progress.activeVUs)/\(progress.peakVUs)",
                     "iterations \(progress.iterations)" + (progress.plannedIterations.map { "/\($0)" } ?? "")]
        let failed = "failed \(progress.failedIterations)"
        parts.append(progress.failedIterations > 0 ? paint(failed, "31") : failed)
        let checks = progress.checkPasses + progress.checkFails
        if checks > 0 {
            let share = String(format: "checks %.2f%%", Double(progress.checkPasses) * 100 / Double(checks))
            parts.append(paint(share, progress.checkFails == 0 ? "32" : "33"))
        }
        return parts.joined(separator: "  ")
    }
}
