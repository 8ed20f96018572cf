import CCAIScripting
import Foundation

/// The files `ccai run` and `ccai report merge` write a run's results to: `--out
/// json=FILE` (every sample, k6's lines), `--out junit=FILE`, `--out html=FILE` and
/// `--summary-out FILE` (the summary `ccai report merge` reads).
struct RunOutputs {
    var json: String?
    var junit: String?
    var html: String?
    var summary: String?

    var isEmpty: Bool { json == nil && junit == nil && html == nil && summary == nil }

    /// The kinds `--out` takes.
    static let kinds = ["json", "junit", "html"]

    /// Reads one `--out KIND=FILE`.
    mutating func add(_ value: String, allowing kinds: [String] = Self.kinds) throws {
        guard let equals = value.firstIndex(of: "="), kinds.contains(String(value[..<equals])) else {
            throw UsageError(message: "--out expects KIND=FILE with KIND one of \(kinds.joined(separator: ", ")), got '\(value)'",
                             command: RunCommand.spec.topic)
        }
        let kind = String(value[..<equals])
        let path = try Self.path(String(value[value.index(after: equals)...]), for: "--out \(kind)")
        guard [json, junit, html][Self.kinds.firstIndex(of: kind)!] == nil else {
            throw UsageError(message: "--out \(kind)= is given twice: one file each", command: RunCommand.spec.topic)
        }
        switch kind {
        case "json": json = path
        case "junit": junit = path
        default: html = path
        }
    }

    /// A file path for `option`: not empty, in a folder that exists.
    static func path(_ path: String, for option: String) throws -> String {
        guard !path.isEmpty else { throw UsageError(message: "\(option) needs a file name", command: RunCommand.spec.topic) }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw UsageError(message: "\(option): there is no folder '\(folder)' for '\(path)'", command: RunCommand.spec.topic)
        }
        return path
    }

    /// Writes every output asked for (the HTML report's charts from `timeline`, which a
    /// summary file does not keep); returns what could not be written.
    func write(_ report: ScenarioReport, timeline: Timeline? = nil, jsonLines: JSONLinesOutput? = nil) -> [String] {
        var problems: [String] = []
        if let jsonLines {
            do { try jsonLines.finish(with: report) } catch { problems.append("\(error)") }
        }
        guard junit != nil || summary != nil || html != nil else { return problems }
        let snapshot: ScenarioMetrics.Snapshot, options: ScenarioOptions
        do {
            snapshot = try report.snapshot()
            options = try report.options()
        } catch {
            return problems + ["\(error)"]
        }
        if let summary {
            do { try Self.write(try report.json(), to: summary) } catch { problems.append("--summary-out: cannot write '\(summary)': \(error.localizedDescription)") }
        }
        if let junit {
            let xml = JUnitReport.xml(snapshot, options: options, elapsed: report.elapsedSeconds, name: report.script,
                                      abortedBy: report.abortingThreshold())
            do { try Self.write(Data(xml.utf8), to: junit) } catch { problems.append("--out junit: cannot write '\(junit)': \(error.localizedDescription)") }
        }
        if let html {
            let page = HTMLReport.page(timeline.map { var full = snapshot; full.timeline = $0; return full } ?? snapshot,
                                       options: options, elapsed: report.elapsedSeconds, name: report.script,
                                       abortedBy: report.abortingThreshold())
            do { try Self.write(Data(page.utf8), to: html) } catch { problems.append("--out html: cannot write '\(html)': \(error.localizedDescription)") }
        }
        return problems
    }

    private static func write(_ data: Data, to path: String) throws {
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
