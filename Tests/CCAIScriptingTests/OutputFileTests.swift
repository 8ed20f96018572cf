@testable import CCAIScripting
import Foundation
import Testing

/// A run's output files are written where the operator said, never through a link
/// someone placed beside them (docs/security.md).
@Suite struct OutputFileTests {
    /// `--out json=F` wrote its lines through a symlink placed at `F.partial` (issue 38,
    /// item 8): the link is replaced by a file of its own, and what it pointed at is untouched.
    @Test func theJSONLinesNeverFollowALinkAtThePartialFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("output-file-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let victim = folder + "/victim.txt"
        try Data("KEEP".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: folder + "/points.json.partial", withDestinationPath: victim)

        let output = try JSONLinesOutput(path: folder + "/points.json")
        let kind = try FileManager.default.attributesOfItem(atPath: folder + "/points.json.partial")[.type] as? FileAttributeType
        #expect(kind == .typeRegular, "the partial file is a file of its own, not the link")
        output.abandon()
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "KEEP")
        #expect(!FileManager.default.fileExists(atPath: folder + "/points.json.partial"))
    }

    /// Iterations failing in a loop wrote `--out json` without bound (issue 38, item 12:
    /// 67 MB in 8 s): past its most bytes of points the file takes no more, the Summary
    /// line counts those left out, and one warning says so.
    @Test func theJSONLinesStopAtTheirMostBytesOfPointsAndCountTheRest() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("output-cap-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let warnings = Warnings()
        let output = try JSONLinesOutput(path: folder + "/points.json", maximumPointBytes: 64 << 10, warn: { warnings.add($0) })
        for n in 0..<10_000 {
            output.write(ScenarioMetrics.Sample(metric: n.isMultiple(of: 2) ? "iterations" : "iteration_failed", kind: .counter,
                                                time: Date(), value: 1, tags: ["reason": "error"]))
        }
        try output.finish(with: ScenarioReport(ScenarioMetrics().snapshot(), options: ScenarioOptions(), elapsed: 1,
                                               script: "loop.lua", segment: .whole))
        let text = try String(contentsOfFile: folder + "/points.json", encoding: .utf8)
        let lines = text.split(separator: "\n")
        let points = lines.filter { $0.contains("\"type\":\"Point\"") }
        #expect(text.utf8.count < 80 << 10, "\(text.utf8.count) bytes")
        #expect(lines.filter { $0.contains("\"type\":\"Metric\"") }.count == 2, "both metrics described")
        #expect(lines.last?.contains("\"points_dropped\":\(10_000 - points.count)") == true, "\(lines.last ?? "")")
        #expect(warnings.all.count == 1 && warnings.all[0].contains("64 KiB of points") && warnings.all[0].contains("points_dropped"),
                "\(warnings.all)")
    }
}

/// Warnings an output gave.
private final class Warnings: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    var all: [String] { lock.withLock { list } }
    func add(_ warning: String) { lock.withLock { list.append(warning) } }
}
