import CCAIScripting
import Foundation

/// The files `ccai run` and `ccai report merge` write a run's results to: `--out
/// json=FILE` (every sample, k6's lines), `--out junit=FILE`, `--out html=FILE`, `--out
/// csv=FILE` (Locust's two stats files) and `--summary-out FILE` (the summary `ccai report
/// merge` reads). `-` for a FILE is standard output, which one output at most may take;
/// the summary then goes to standard error. `--out prometheus=HOST:PORT` is no file: the
/// run serves its metrics there while it lives (``PrometheusEndpoint``).
struct RunOutputs {
    var json: String?
    var junit: String?
    var html: String?
    var csv: String?
    var summary: String?
    var prometheus: ListenAddress?
    /// The command whose help a usage error points to.
    var command = RunCommand.spec

    /// The FILE that means standard output.
    static let standardOutput = "-"

    /// Whether no file is asked for.
    var isEmpty: Bool { json == nil && junit == nil && html == nil && csv == nil && summary == nil }

    /// Whether an output goes to standard output (so that the summary and the script's
    /// prints go to standard error).
    var takesStandardOutput: Bool { [json, junit, html, summary].contains(Self.standardOutput) }

    /// The kinds `--out` takes.
    static let kinds = ["json", "junit", "html", "csv", "prometheus"]

    /// Reads one `--out KIND=FILE` (or `prometheus=HOST:PORT`).
    mutating func add(_ value: String) throws {
        guard let equals = value.firstIndex(of: "="), Self.kinds.contains(String(value[..<equals])) else {
            throw command.usageError("--out expects KIND=FILE with KIND one of \(Self.kinds.joined(separator: ", ")), got '\(value)'")
        }
        let kind = String(value[..<equals])
        if kind == "prometheus" {
            guard prometheus == nil else { throw command.usageError("--out prometheus= is given twice: one address") }
            prometheus = try ListenAddress.parse(String(value[value.index(after: equals)...]), for: "--out prometheus",
                                                 command: command.topic)
            return
        }
        let option = "--out \(kind)"
        let path = try checked(String(value[value.index(after: equals)...]), for: option)
        let slot: WritableKeyPath<RunOutputs, String?> = [\.json, \.junit, \.html, \.csv][Self.kinds.firstIndex(of: kind)!]
        guard self[keyPath: slot] == nil else {
            throw command.usageError("--out \(kind)= is given twice: one file each")
        }
        if kind == "csv", path == Self.standardOutput {
            throw command.usageError("--out csv writes two files, FILE_stats.csv and FILE_stats_history.csv: give it a "
                             + "name, not -")
        }
        self[keyPath: slot] = path
    }

    /// Reads `--summary-out FILE`.
    mutating func setSummary(_ value: String, option: String) throws {
        summary = try checked(value, for: option)
    }

    /// A path for `option`, and at most one `-` among the outputs.
    private func checked(_ path: String, for option: String) throws -> String {
        guard path == Self.standardOutput else { return try self.path(path, for: option) }
        guard !takesStandardOutput else {
            throw command.usageError("\(option)=-: another output already writes to standard output (-); one may")
        }
        return path
    }

    /// A file path for `option`: not empty, in a folder that exists.
    private func path(_ path: String, for option: String) throws -> String {
        guard !path.isEmpty else { throw command.usageError("\(option) needs a file name") }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw command.usageError("\(option): there is no folder '\(folder)' for '\(path)'")
        }
        return path
    }

    /// The samples file of `--out json`, if asked for: standard output, or a file that
    /// gets its name when the run ends.
    func jsonLines() throws -> JSONLinesOutput? {
        guard let json else { return nil }
        return json == Self.standardOutput ? JSONLinesOutput.standardOutput() : try JSONLinesOutput(path: json)
    }

    /// Writes every output asked for; returns what could not be written.
    func write(_ report: ScenarioReport, jsonLines: JSONLinesOutput? = nil) -> [String] {
        var problems: [String] = []
        if let jsonLines {
            do { try jsonLines.finish(with: report) } catch { problems.append("\(error)") }
        }
        guard junit != nil || summary != nil || html != nil || csv != nil else { return problems }
        let snapshot: ScenarioMetrics.Snapshot, options: ScenarioOptions
        do {
            snapshot = try report.snapshot()
            options = try report.options()
        } catch {
            return problems + ["\(error)"]
        }
        var files: [(option: String, path: String?, text: () throws -> Data)] = [
            ("--summary-out", summary, { try report.json() }),
            ("--out junit", junit, {
                Data(JUnitReport.xml(snapshot, options: options, elapsed: report.elapsedSeconds, name: report.script,
                                     abortedBy: report.abortingThreshold()).utf8)
            }),
            ("--out html", html, { Data(Self.htmlPage(report, snapshot: snapshot, options: options).utf8) }),
        ]
        if let csv {
            let names = StatsCSV.fileNames(for: csv)
            files.append(("--out csv", names.stats, { Data(StatsCSV.stats(snapshot, elapsed: report.elapsedSeconds).utf8) }))
            files.append(("--out csv", names.history, { Data(StatsCSV.history(snapshot.timeline).utf8) }))
        }
        for file in files {
            guard let path = file.path else { continue }
            do { try Self.write(try file.text(), to: path) } catch {
                problems.append("\(file.option): cannot write '\(path)': \(error.localizedDescription)")
            }
        }
        return problems
    }

    /// The HTML report of `report` (`--out html`, and the dashboard's at the end).
    static func htmlPage(_ report: ScenarioReport, snapshot: ScenarioMetrics.Snapshot, options: ScenarioOptions) -> String {
        HTMLReport.page(snapshot, options: options, elapsed: report.elapsedSeconds, name: report.script,
                        abortedBy: report.abortingThreshold(), run: report.run)
    }

    /// Writes `data` to `path` whole (to a temporary file renamed), or to standard output.
    static func write(_ data: Data, to path: String) throws {
        guard path != standardOutput else { return FileHandle.standardOutput.write(data) }
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
