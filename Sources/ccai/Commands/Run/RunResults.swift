import CCAIScripting
import CCAIWire
import Foundation
import LuaRuntime

/// What a run shows when it gets through: the summary on standard output (on standard
/// error when an output takes standard output), the files of `--out` and `--summary-out`,
/// and on standard error what failed (a teardown, an output, the thresholds). Its exit
/// status is the worst of them.
struct RunResults {
    var thresholds: ThresholdFailure?
    var teardownFailed = false
    /// `handle_summary` raised, returned what cannot be used, or its files could not be written.
    var summaryFailed = false
    var outputFailed = false
    /// What the outputs were written from (a scenario's run only).
    var report: ScenarioReport?

    /// Reports `outcome` of `scenario` (the script `script`, `elapsed` seconds long).
    static func report(_ outcome: ScenarioRunner.Outcome, of scenario: ScenarioRunner, options: RunOptions.Values,
                       platform: PlatformConnection.Platform, started: Date, elapsed: Double, jsonLines: JSONLinesOutput?,
                       interrupted: Bool, liveChanges: [String] = []) async -> RunResults {
        let snapshot = scenario.metrics.snapshot()
        let script = try? String(contentsOfFile: options.script, encoding: .utf8)
        func facts(_ scenario: ScenarioOptions?) -> RunFacts {
            RunFacts(startedAt: started, version: HelpCommand.versionText, options: scenario,
                     virtualTime: platform.simulation != nil, timeZone: platform.timeZone, scriptText: script,
                     liveChanges: liveChanges)
        }
        let printSummary = { (summary: String) in Self.printSummary(summary, toStandardError: options.outputs.takesStandardOutput) }
        var results = RunResults()
        switch outcome {
        case .scenario(var scenarioOptions, let abortedBy):
            if let simulation = platform.simulation {
                scenarioOptions.virtualTime = true
                scenarioOptions.start = ScenarioStart(simulation.start)
            }
            let report = ScenarioReport(snapshot, options: scenarioOptions, elapsed: elapsed, script: options.script,
                                        segment: options.segment, abortedBy: abortedBy, run: facts(scenarioOptions))
            results.write(report, options.outputs, jsonLines: jsonLines)
            results.report = report
            if await !results.handleSummary(report, of: scenario, options: options) {
                printSummary(ScenarioSummary.text(snapshot, options: scenarioOptions, elapsed: elapsed, abortedBy: abortedBy,
                                                  mode: options.summaryMode))
            }
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
                                            segment: options.segment, run: facts(nil))
                results.write(report, options.outputs, jsonLines: jsonLines)
            }
            guard !snapshot.checks.isEmpty || interrupted else { break }
            printSummary(ScenarioSummary.text(snapshot, options: ScenarioOptions(), elapsed: elapsed, mode: options.summaryMode))
        }
        return results
    }

    /// The exit status of a run that got through with `status`.
    func status(_ status: ExitStatus) -> ExitStatus {
        guard status == .success else { return status }
        if teardownFailed || outputFailed || summaryFailed { return .failure }
        return thresholds == nil ? .success : .thresholdsFailed
    }

    /// Runs the scenario's `handle_summary` and shows what it returned instead of the
    /// summary (its files in the output folder); false when it has none, or it failed (said
    /// on standard error: the run then exits 1 and shows the default summary).
    private mutating func handleSummary(_ report: ScenarioReport, of scenario: ScenarioRunner, options: RunOptions.Values) async
        -> Bool
    {
        do {
            guard let outputs = try await scenario.handleSummary(report) else { return false }
            let written = try outputs.writeFiles(to: try SDKContext.outputFolder(root: options.outputDirectory))
            // An output that writes to standard output (--out KIND=-) keeps it: handle_summary's goes to standard error.
            let output = options.outputs.takesStandardOutput ? FileHandle.standardError : FileHandle.standardOutput
            if let text = outputs.standardOutput { output.write(Data(TerminalText.escaped(text, keepingNewlines: true).utf8)) }
            if let text = outputs.standardError { FileHandle.standardError.write(Data(TerminalText.escaped(text, keepingNewlines: true).utf8)) }
            for path in written { printError("handle_summary wrote \(path)") }
            return true
        } catch {
            let message = (error as? LuaScriptError)?.message ?? (error as? ConfinedFolder.Refusal)?.message ?? "\(error)"
            printError("error: handle_summary failed: \(message)")
            summaryFailed = true
            return false
        }
    }

    private mutating func write(_ report: ScenarioReport, _ outputs: RunOutputs, jsonLines: JSONLinesOutput?) {
        for problem in outputs.write(report, jsonLines: jsonLines) {
            printError("error: \(problem)")
            outputFailed = true
        }
    }

    /// Prints the summary on standard output, or on standard error when an output takes
    /// standard output.
    static func printSummary(_ summary: String, toStandardError: Bool) {
        let text = Data(("\n" + TerminalText.escaped(summary, keepingNewlines: true)).utf8)
        (toStandardError ? FileHandle.standardError : FileHandle.standardOutput).write(text)
    }

    /// A run that did not get through still leaves CI its JUnit file: one test in error.
    static func writeJUnitError(_ failure: String, options: RunOptions.Values) {
        guard let junit = options.outputs.junit else { return }
        do { try RunOutputs.write(Data(JUnitReport.error(failure, name: options.script).utf8), to: junit) }
        catch { printError("error: --out junit: cannot write '\(junit)': \(error.localizedDescription)") }
    }
}
