import Foundation
import Testing

@Suite struct LogSafetyTests {
    /// What a script writes to the log cannot fake a line or send escape sequences to the
    /// terminal; a traceback keeps its lines; `print` is the script's standard output.
    @Test func controlCharactersInLogsAreEscaped() async throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("log-injection-\(UUID().uuidString).lua")
        try #"""
            ccai.log.info("one\n00:00:00.000 ERROR forged", { ["key\n"] = "v\27[2J", other = "\27]0;title\7" })
            print("printed\27[31m red")
            error("boom\n00:00:00.000 INFO forged too")
            """#.write(to: script, atomically: true, encoding: .utf8)
        let output = try await CLI.run(["run", script.path])
        #expect(output.status == 1)
        #expect(!output.stderr.contains("\u{1b}") && !output.stderr.contains("\u{7}"), "no raw ESC or BEL")
        let lines = output.stderr.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("00:00:00.000") }, "no forged line: \(output.stderr)")
        #expect(output.stderr.contains(#"one\n00:00:00.000 ERROR forged"#))
        #expect(output.stdout == "printed\u{1b}[31m red\n", "print writes the script's own output, as stock Lua does")
        #expect(output.stderr.contains("stack traceback:\n"), "a traceback keeps its lines")
    }
}
