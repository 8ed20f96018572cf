import CCAIScripting
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
}
