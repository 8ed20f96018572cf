import Foundation

/// `--out junit=FILE`: the run as JUnit XML, which CI systems show as tests: one testcase
/// per threshold (failed when it does not hold: the expression and the value it read) and
/// one per check (failed when any call of it failed: the counts); a failure's text adds the
/// first errors that failed iterations, with their counts, so that CI shows why.
///
/// ```xml
/// <testsuites name="load.lua" tests="3" failures="2">
///   <testsuite name="thresholds" tests="1" failures="1">
///     <testcase classname="thresholds" name="iteration_duration_seconds: p(95) &lt; 5">
///       <failure message="p(95) &lt; 5: got 7.2s">p(95) &lt; 5: got 7.2s&#10;errors that failed iterations: ...</failure>
///     </testcase>
///   </testsuite>
///   <testsuite name="checks" tests="2" failures="1">
///     <testcase classname="checks" name="agent answered"><failure message="1 of 10 failed (90.00% passed)">...</failure></testcase>
///   ...
/// ```
public enum JUnitReport {
    /// The most errors a failure's text lists.
    static let errorsShown = 5

    public static func xml(_ snapshot: ScenarioMetrics.Snapshot, options: ScenarioOptions, elapsed: Double, name: String,
                           abortedBy: Threshold? = nil) -> String {
        let errors = errorLines(snapshot.errors)
        let thresholds = options.thresholds.map { threshold -> TestCase in
            let (holds, observed) = threshold.evaluate(snapshot, elapsed: elapsed)
            let aborted = abortedBy == threshold ? " (it aborted the run)" : ""
            let failure = "\(threshold.source): got \(ScenarioSummary.shown(observed, of: threshold))\(aborted)"
            return TestCase(name: "\(threshold.metric): \(threshold.source)", failure: holds ? nil : failure)
        }
        let checks = snapshot.checks.map { check -> TestCase in
            let total = check.passes + check.fails
            let failure = "\(check.fails) of \(total) failed (\(ScenarioSummary.percent(check.passes, of: total)) passed)"
            return TestCase(name: check.name, failure: check.fails == 0 ? nil : failure)
        }
        let tests = thresholds.count + checks.count
        let failures = (thresholds + checks).filter { $0.failure != nil }.count
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                     "<testsuites name=\"\(MarkupText.escaped(name))\" tests=\"\(tests)\" failures=\"\(failures)\" time=\"\(String(format: "%.3f", elapsed))\">"]
        lines += suite("thresholds", thresholds, errors: errors)
        lines += suite("checks", checks, errors: errors)
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A testcase: its name, and what failed, if it did.
    private struct TestCase {
        var name: String
        var failure: String?
    }

    private static func suite(_ name: String, _ cases: [TestCase], errors: [String]) -> [String] {
        let failures = cases.filter { $0.failure != nil }.count
        var lines = ["  <testsuite name=\"\(name)\" tests=\"\(cases.count)\" failures=\"\(failures)\">"]
        for test in cases {
            let title = "    <testcase classname=\"\(name)\" name=\"\(MarkupText.escaped(test.name))\""
            guard let failure = test.failure else {
                lines.append(title + "/>")
                continue
            }
            let text = ([failure] + errors).joined(separator: "\n")
            lines.append(title + "><failure message=\"\(MarkupText.escaped(failure))\">\(MarkupText.escaped(text))</failure></testcase>")
        }
        lines.append("  </testsuite>")
        return lines
    }

    /// The first ``errorsShown`` errors that failed iterations, with their counts, and how
    /// many more there are.
    static func errorLines(_ errors: [ScenarioMetrics.ErrorCount]) -> [String] {
        guard !errors.isEmpty else { return [] }
        var lines = ["errors that failed iterations:"] + errors.prefix(errorsShown).map { "  \($0.count)× \($0.message)" }
        if errors.count > errorsShown { lines.append("  and \(errors.count - errorsShown) more") }
        return lines
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
