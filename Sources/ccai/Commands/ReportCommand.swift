import CCAIScripting
import CCAIWire
import Foundation

/// `ccai report merge FILE...`: the summaries of a run's segments (`ccai run --segment
/// I/N --summary-out FILE`) as one, with its thresholds evaluated again on the whole.
struct ReportCommand {
    static let help = """
        Usage: ccai report merge FILE... [--summary-out FILE] [--out junit=FILE] [--partial] [--quiet]

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
        refused.

        Options:
          --summary-out FILE   write the merged summary (which can be merged again)
          --out junit=FILE     write the merged thresholds and checks as JUnit XML
          --partial            merge though segments are missing (a warning names them)
          --quiet              print nothing but errors

        Exit status: 0 every threshold held, 99 a threshold failed (or one aborted a
        segment), 1 a summary cannot be read or merged or segments are missing, 2
        usage error.
        """

    var files: [String] = []
    var outputs = RunOutputs()
    var quiet = false
    /// `--partial`: merge the summaries there are, though segments are missing.
    var partial = false

    init(arguments: [String]) throws {
        guard arguments.first == "merge" else {
            throw UsageError(message: arguments.first.map { "unknown report command '\($0)': the one there is, is merge" }
                             ?? "report needs a command: merge", command: "report")
        }
        var reader = ArgumentReader(Array(arguments.dropFirst()), command: "report")
        while let token = reader.next() {
            switch token {
            case .positional(let file):
                files.append(file)
            case .option("--summary-out"):
                outputs.summary = try RunOutputs.path(try reader.value(for: "--summary-out"), for: "--summary-out")
            case .option("--out"):
                try outputs.add(try reader.value(for: "--out"), allowing: ["junit"])
            case .option("--quiet"), .option("-q"):
                quiet = true
            case .option("--partial"):
                partial = true
            case .option(let option):
                throw reader.unknown(option)
            }
        }
        guard !files.isEmpty else { throw UsageError(message: "report merge needs the summary files to merge", command: "report") }
        guard files.count <= ScenarioReport.maximumFiles else {
            throw UsageError(message: "report merge takes at most \(ScenarioReport.maximumFiles) files", command: "report")
        }
    }

    func execute() -> Int32 {
        let merged: ScenarioReport, snapshot: ScenarioMetrics.Snapshot, options: ScenarioOptions
        do {
            merged = try ScenarioReport.merge(try files.map(ScenarioReport.read), sources: files)
            snapshot = try merged.snapshot()
            options = try merged.options()
        } catch {
            printError("error: \(error)")
            return 1
        }
        let abortedBy = merged.abortingThreshold()
        if !quiet {
            let summary = ScenarioSummary.text(snapshot, options: options, elapsed: merged.elapsedSeconds, abortedBy: abortedBy)
            FileHandle.standardOutput.write(Data(TerminalText.escaped(summary, keepingNewlines: true).utf8))
        }
        let missing = merged.missingSegments
        if !missing.isEmpty {
            guard partial else {
                printError("error: segments \(missing.joined(separator: ", ")) are not in the merge: give every segment's "
                           + "summary, or --partial to merge those there are")
                return 1
            }
            printError("warning: segments \(missing.joined(separator: ", ")) are not in the merge (--partial)")
        }
        var status: Int32 = 0
        for problem in outputs.write(merged) {
            printError("error: \(problem)")
            status = 1
        }
        let failed = ScenarioSummary.failedThresholds(snapshot, options: options, elapsed: merged.elapsedSeconds)
        if !failed.isEmpty || abortedBy != nil {
            printError("error: thresholds failed: " + (failed.isEmpty ? [abortedBy!] : failed)
                .map { "\($0.metric): \($0.source)" }.joined(separator: ", "))
            return status == 0 ? RunCommand.thresholdsFailedStatus : status
        }
        return status
    }
}
