import Foundation

/// `--out junit=FILE`: the run as JUnit XML, which CI systems show as tests: one testcase
/// per threshold (failed when it does not hold, with the value it read) and one per check
/// (failed when any call of it failed, with the counts).
///
/// ```xml
/// <testsuites name="load.lua" tests="3" failures="1">
///   <testsuite name="thresholds" tests="1" failures="0">
///     <testcase classname="thresholds" name="checks: rate &gt; 0.99"/>
///   </testsuite>
///   <testsuite name="checks" tests="2" failures="1">
///     <testcase classname="checks" name="agent answered"><failure message="9 of 10 passed (90.00%)"/></testcase>
///   ...
/// ```
public enum JUnitReport {
    public static func xml(_ snapshot: ScenarioMetrics.Snapshot, options: ScenarioOptions, elapsed: Double, name: String,
                           abortedBy: Threshold? = nil) -> String {
        var thresholdCases: [String] = []
        var thresholdFailures = 0
        for threshold in options.thresholds {
            let (holds, observed) = threshold.evaluate(snapshot, elapsed: elapsed)
            let title = MarkupText.escaped("\(threshold.metric): \(threshold.source)")
            if holds {
                thresholdCases.append("    <testcase classname=\"thresholds\" name=\"\(title)\"/>")
            } else {
                thresholdFailures += 1
                let aborted = abortedBy == threshold ? " (it aborted the run)" : ""
                let message = MarkupText.escaped("\(threshold.aggregation)=\(ScenarioSummary.shown(observed, of: threshold))\(aborted)")
                thresholdCases.append("    <testcase classname=\"thresholds\" name=\"\(title)\"><failure message=\"\(message)\"/></testcase>")
            }
        }
        var checkCases: [String] = []
        var checkFailures = 0
        for check in snapshot.checks {
            let title = MarkupText.escaped(check.name)
            if check.fails == 0 {
                checkCases.append("    <testcase classname=\"checks\" name=\"\(title)\"/>")
            } else {
                checkFailures += 1
                let total = check.passes + check.fails
                let message = "\(check.passes) of \(total) passed (\(ScenarioSummary.percent(check.passes, of: total)))"
                checkCases.append("    <testcase classname=\"checks\" name=\"\(title)\"><failure message=\"\(message)\"/></testcase>")
            }
        }
        let tests = thresholdCases.count + checkCases.count, failures = thresholdFailures + checkFailures
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                     "<testsuites name=\"\(MarkupText.escaped(name))\" tests=\"\(tests)\" failures=\"\(failures)\" time=\"\(String(format: "%.3f", elapsed))\">"]
        lines.append("  <testsuite name=\"thresholds\" tests=\"\(thresholdCases.count)\" failures=\"\(thresholdFailures)\">")
        lines += thresholdCases
        lines.append("  </testsuite>")
        lines.append("  <testsuite name=\"checks\" tests=\"\(checkCases.count)\" failures=\"\(checkFailures)\">")
        lines += checkCases
        lines.append("  </testsuite>")
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A run that could not start or finish (a setup or top-level error): one testcase,
    /// `run`, in error with the message, so that CI shows why there are no results.
    public static func error(_ message: String, name: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="\(MarkupText.escaped(name))" tests="1" failures="0" errors="1">
          <testsuite name="run" tests="1" failures="0" errors="1">
            <testcase classname="run" name="\(MarkupText.escaped(name))"><error message="\(MarkupText.escaped(message))"/></testcase>
          </testsuite>
        </testsuites>

        """
    }
}
