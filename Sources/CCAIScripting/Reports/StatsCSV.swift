import Foundation

/// `--out csv=FILE`: Locust's two CSV files of a run's SDK calls, with Locust's columns, so
/// that the tools reading Locust's `--csv` read ours. `FILE_stats.csv` has a row per SDK
/// method (`Type` the service, `Name` the method) and the `Aggregated` row;
/// `FILE_stats_history.csv` has, for each slice of the run's timeline (a second, or
/// longer in a long run: ``Timeline``), a row per method called so far and the
/// `Aggregated` row. Times are in milliseconds, as Locust's; the SDK's calls have no
/// content size, so `Average Content Size` is 0.
///
/// ```swift
/// let files = StatsCSV.fileNames(for: "results")   // results_stats.csv, results_stats_history.csv
/// try StatsCSV.stats(snapshot, elapsed: 60).write(toFile: files.stats, atomically: true, encoding: .utf8)
/// ```
public enum StatsCSV {
    /// The percentiles both files show, Locust's.
    static let percentiles: [Double] = [50, 66, 75, 80, 90, 95, 98, 99, 99.9, 99.99, 100]
    static var percentileColumns: [String] { percentiles.map { ScenarioSummary.number($0) + "%" } }

    public static var statsColumns: [String] {
        ["Type", "Name", "Request Count", "Failure Count", "Median Response Time", "Average Response Time", "Min Response Time",
         "Max Response Time", "Average Content Size", "Requests/s", "Failures/s"] + percentileColumns
    }

    public static var historyColumns: [String] {
        ["Timestamp", "User Count", "Type", "Name", "Requests/s", "Failures/s"] + percentileColumns
            + ["Total Request Count", "Total Failure Count", "Total Median Response Time", "Total Average Response Time",
               "Total Min Response Time", "Total Max Response Time", "Total Average Content Size"]
    }

    /// The two files of `--out csv=FILE`: `FILE_stats.csv` and `FILE_stats_history.csv`;
    /// a `FILE` ending in `.csv` loses it first (`out.csv` gives `out_stats.csv`).
    public static func fileNames(for path: String) -> (stats: String, history: String) {
        let base = path.lowercased().hasSuffix(".csv") ? String(path.dropLast(4)) : path
        return (base + "_stats.csv", base + "_stats_history.csv")
    }

    /// `FILE_stats.csv`: a row per method, then `Aggregated`, over the run's `elapsed` seconds.
    public static func stats(_ snapshot: ScenarioMetrics.Snapshot, elapsed: Double) -> String {
        var rows = [statsColumns]
        for row in MethodStats.table(snapshot) {
            let digest = row.figures.seconds
            rows.append([row.type, row.name, "\(row.figures.calls)", "\(row.figures.failures)",
                         milliseconds(digest.percentile(50)), milliseconds(digest.average), milliseconds(digest.count > 0 ? digest.min : 0),
                         milliseconds(digest.count > 0 ? digest.max : 0), "0", rate(row.callsPerSecond(over: elapsed)),
                         rate(row.failuresPerSecond(over: elapsed))] + percentiles(of: digest))
        }
        return text(rows)
    }

    /// `FILE_stats_history.csv`: for each slice of `timeline`, stamped with its end (Unix
    /// seconds, on the run's clock), a row per method called so far and `Aggregated`: the
    /// VUs then, the slice's calls and failures a second and percentiles, and the totals so far.
    public static func history(_ timeline: Timeline) -> String {
        var rows = [historyColumns]
        guard let origin = timeline.origin else { return text(rows) }
        var totals: [SDKMethod: SDKCallFigures] = [:]
        var users = 0.0
        for (index, slice) in timeline.slices.enumerated() {
            users = slice.vus ?? users
            totals.merge(slice.calls) { var figures = $0; figures.merge($1); return figures }
            guard !totals.isEmpty else { continue }
            let stamp = Int64(origin.timeIntervalSince1970 + Double(index + 1) * timeline.sliceSeconds)
            let now = Dictionary(uniqueKeysWithValues: MethodStats.rows(slice.calls).map { ($0.method, $0.figures) })
            for total in MethodStats.rows(totals) {
                let current = now[total.method] ?? SDKCallFigures()
                let all = total.figures.seconds
                rows.append(["\(stamp)", ScenarioSummary.number(users), total.type, total.name,
                             rate(Double(current.calls) / timeline.sliceSeconds), rate(Double(current.failures) / timeline.sliceSeconds)]
                            + (current.calls > 0 ? percentiles(of: current.seconds) : Array(repeating: "N/A", count: percentiles.count))
                            + ["\(total.figures.calls)", "\(total.figures.failures)", milliseconds(all.percentile(50)),
                               milliseconds(all.average), milliseconds(all.min), milliseconds(all.max), "0"])
            }
        }
        return text(rows)
    }

    private static func percentiles(of digest: TrendDigest) -> [String] {
        percentiles.map { milliseconds(digest.percentile($0)) }
    }

    /// Seconds as milliseconds, to the microsecond.
    private static func milliseconds(_ seconds: Double) -> String { rate(seconds * 1000) }

    /// A number to three decimals, without trailing zeros: `12.5`, `0.333`, `4`.
    private static func rate(_ value: Double) -> String {
        value.isFinite ? ScenarioSummary.trimmed(String(format: "%.3f", value)) : "0"
    }

    /// Rows as CSV: a field with a comma, a quote or a line break is quoted, its quotes doubled.
    static func text(_ rows: [[String]]) -> String {
        rows.map { row in
            row.map { field in
                guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
                return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            }.joined(separator: ",")
        }.joined(separator: "\n") + "\n"
    }
}
