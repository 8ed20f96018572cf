import CCAIScripting

/// The thresholds that failed at the end of a run or a merge, as its `error:` line names
/// them (exit status 99).
struct ThresholdFailure {
    var thresholds: [Threshold]

    /// The failed thresholds, else the one that aborted the run; nil when none failed.
    init?(failed: [Threshold], abortedBy: Threshold?) {
        let named = failed.isEmpty ? abortedBy.map { [$0] } ?? [] : failed
        guard !named.isEmpty else { return nil }
        thresholds = named
    }

    /// `thresholds failed: checks: rate > 0.99, ...`.
    var message: String {
        "thresholds failed: " + thresholds.map { "\($0.metric): \($0.source)" }.joined(separator: ", ")
    }
}
