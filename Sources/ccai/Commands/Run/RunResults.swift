import CCAIScripting
import CCAIWire
import Foundation

/// What a run shows when it gets through: the summary on standard output, the files of
/// `--out` and `--summary-out`, and on standard error what failed (a teardown, an output,
/// the thresholds). Its exit status is the worst of them.
struct RunResults {
    var thresholds: ThresholdFailure?
    var teardownFailed = false
    var outputFailed = false

    /// Reports `outcome` of `scenario` (the script `script`, `elapsed` seconds long).
    static func report(_ outcome: ScenarioRunner.Outcome, of scenario: ScenarioRunner, options: RunOptions.Values,
                       platform: PlatformConnection.Platform, elapsed: Double, jsonLines: JSONLinesOutput?,
                       interrupted: Bool) -> RunResults {
        let snapshot = scenario.metrics.snapshot()
        var results = RunResults()
        switch outcome {
        case .scenario(var scenarioOptions, let abortedBy):
            if let simulation = platform.simulation {
                scenarioOptions.virtualTime = true
                scenarioOptions.start = ScenarioStart(simulation.start)
            }
            let report = ScenarioReport(snapshot, options: scenarioOptions, elapsed: elapsed, script: options.script,
                                        segment: options.segment, abortedBy: abortedBy)
            results.write(report, options.outputs, timeline: snapshot.timeline, jsonLines: jsonLines)
            printSummary(ScenarioSummary.text(snapshot, options: scenarioOptions, elapsed: elapsed, abortedBy: abortedBy))
            if let failure = scenario.teardownError {
                printError("error: teardown failed: \(failure.message)")
                if let traceback = failure.traceback, !traceback.isEmpty { printError(traceback, lines: true) }
                results.teardownFailed = true
            }
            results.thresholds = ThresholdFailure(
                failed: ScenarioSummary.failedThresholds(snapshot, options: scenarioOptions, elapsed: elapsed), abortedBy: abortedBy)
            if let thresholds = results.thresholds { printError("error: " + thresholds.message) }
        case .plainChunk:
            if !options.outputs.isEmpty {
                let report = ScenarioReport(snapshot, options: ScenarioOptions(), elapsed: elapsed, script: options.script,
                                            segment: options.segment)
                results.write(report, options.outputs, timeline: snapshot.timeline, jsonLines: jsonLines)
            }
            guard !snapshot.checks.isEmpty || interrupted else { break }
            printSummary(ScenarioSummary.text(snapshot, options: ScenarioOptions(), elapsed: elapsed))
        }
        return results
    }

    /// The exit status of a run that got through with `status`.
    func status(_ status: ExitStatus) -> ExitStatus {
        guard status == .success else { return status }
        if teardownFailed || outputFailed { return .failure }
        return thresholds == nil ? .success : .thresholdsFailed
    }

    private mutating func write(_ report: ScenarioReport, _ outputs: RunOutputs, timeline: Timeline?, jsonLines: JSONLinesOutput?) {
        for problem in outputs.write(report, timeline: timeline, jsonLines: jsonLines) {
            printError("error: \(problem)")
            outputFailed = true
        }
    }

    private static func printSummary(_ summary: String) {
        FileHandle.standardOutput.write(Data(("\n" + TerminalText.escaped(summary, keepingNewlines: true)).utf8))
    }

    /// A run that did not get through still leaves CI its JUnit file: one test in error.
    static func writeJUnitError(_ failure: String, options: RunOptions.Values) {
        guard let junit = options.outputs.junit else { return }
        do { try Data(JUnitReport.error(failure, name: options.script).utf8).write(to: URL(fileURLWithPath: junit), options: .atomic) }
        catch { printError("error: --out junit: cannot write '\(junit)': \(error.localizedDescription)") }
    }
}
