import CCAIScripting
import CCAIWire
import Foundation

/// `ccai report merge FILE...`: the summaries of a run's segments (`ccai run --segment
/// I/N --summary-out FILE`) as one, with its thresholds evaluated again on the whole, and
/// every output a run writes (`--out json|junit|html|csv`, `--summary-out`).
struct ReportCommand: Command {
    static let summaryOut = OptionSpec("--summary-out", value: "FILE", help: "write the merged summary (which can be "
                                       + "merged again); - for standard output")
    static let out = OptionSpec("--out", value: "KIND=FILE", forms: [
        .init(value: "json=FILE", help: "the merged summary as the Summary line of k6's JSON lines (the samples are not "
              + "in the summaries: only a run writes them)"),
        .init(value: "junit=FILE", help: "the merged thresholds and checks as JUnit XML testcases"),
        .init(value: "html=FILE", help: "the HTML report of the whole run, its charts over time the segments' added up"),
        .init(value: "csv=FILE", help: "Locust's FILE_stats.csv and FILE_stats_history.csv of the whole run"),
        .init(value: "KIND=-", help: "json, junit or html to standard output (one at most; the summary then goes to "
              + "standard error)"),
    ])
    static let partialOption = OptionSpec("--partial", help: "merge though segments are missing (a warning names them)")
    static let quietOption = OptionSpec("--quiet", aliases: ["-q"], help: "print nothing but errors")

    static let spec = CommandSpec(
        ["report", "merge"], arguments: "FILE...", abstract: "merge the summaries of a run's segments into one",
        discussion: """
            Merges the summaries that `ccai run --segment I/N --summary-out FILE` wrote, one
            per segment of a run (the processes or Kubernetes pods that ran it), into the
            summary of the whole run: counts add up, rates are recomputed from the merged
            counts, and trends merge their digests, so percentiles are those of all the
            samples (within 1%), not averages of the segments' percentiles. The run lasted
            as long as its longest segment, and its VUs (the vus gauge) are the segments'
            added up. The thresholds, which every summary carries, are evaluated again on
            the merged figures and the summary is printed as `ccai run` prints it. A
            missing segment (1/3 and 2/3 without 3/3) is an error unless --partial; a
            segment given twice, or a summary of another scenario (other thresholds), is
            refused. The merge writes every output a run writes: its HTML report charts the
            segments' timelines added up moment by moment and shows the first summary's
            version, options and script with the earliest start, and its CSV files are
            Locust's stats of the whole run.
            """,
        options: [summaryOut, out, RunOptions.summaryMode, partialOption, quietOption],
        epilogue: """
            Exit status: 0 every threshold held, 99 a threshold failed (or one aborted a
            segment), 1 a summary cannot be read or merged or segments are missing, 2
            usage error.
            """)

    var files: [String]
    var outputs = RunOutputs()
    var quiet: Bool
    var summaryMode: ScenarioSummary.Mode
    /// `--partial`: merge the summaries there are, though segments are missing.
    var partial: Bool

    init(_ arguments: ParsedArguments) throws {
        files = arguments.positionals
        outputs.command = Self.spec
        for value in arguments.values(Self.out) { try outputs.add(value) }
        if outputs.prometheus != nil {
            throw Self.spec.usageError("--out prometheus serves a run's metrics while it lives: 'report merge' writes files only")
        }
        if let file = arguments.last(Self.summaryOut) { try outputs.setSummary(file, option: Self.summaryOut.name) }
        summaryMode = try RunOptions.summaryMode(arguments, of: Self.spec)
        quiet = arguments.has(Self.quietOption)
        partial = arguments.has(Self.partialOption)
        guard !files.isEmpty else { throw Self.spec.usageError("report merge needs the summary files to merge") }
        guard files.count <= ScenarioReport.maximumFiles else {
            throw Self.spec.usageError("report merge takes at most \(ScenarioReport.maximumFiles) files")
        }
    }

    func execute() throws -> ExitStatus {
        let merged = try ScenarioReport.merge(try files.map(ScenarioReport.read), sources: files)
        let snapshot = try merged.snapshot(), options = try merged.options()
        let abortedBy = merged.abortingThreshold()
        if !quiet {
            let summary = ScenarioSummary.text(snapshot, options: options, elapsed: merged.elapsedSeconds, abortedBy: abortedBy,
                                               mode: summaryMode)
            RunResults.printSummary(summary, toStandardError: outputs.takesStandardOutput)
        }
        let missing = merged.missingSegments
        if !missing.isEmpty {
            guard partial else {
                throw CommandFailure("segments \(missing.joined(separator: ", ")) are not in the merge: give every segment's "
                                     + "summary, or --partial to merge those there are")
            }
            printError("warning: segments \(missing.joined(separator: ", ")) are not in the merge (--partial)")
        }
        let problems = outputs.write(merged, jsonLines: try outputs.jsonLines())
        let failed = ScenarioSummary.failedThresholds(snapshot, options: options, elapsed: merged.elapsedSeconds)
        let thresholds = ThresholdFailure(failed: failed, abortedBy: abortedBy)
        guard problems.isEmpty, thresholds == nil else {
            throw CommandFailure(messages: problems + [thresholds?.message].compactMap { $0 },
                                 status: problems.isEmpty ? .thresholdsFailed : .failure)
        }
        return .success
    }
}
