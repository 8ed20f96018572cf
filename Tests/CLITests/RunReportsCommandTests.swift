import CCAIScripting
import Foundation
import TestSupport
import Testing

/// What `ccai run` and `ccai report merge` write for people and tools: the full summary
/// with the SDK calls by method, Locust's CSV files, the HTML report's facts and simulated
/// clock, outputs on standard output, and a merge that writes every output a run can.
@Suite struct RunReportsCommandTests {
    private let scratch = ScratchFolder("reports")

    private func file(_ name: String, _ text: String? = nil) throws -> String { try scratch.file(name, text) }

    /// Four iterations of two SDK calls, in virtual time from 08:00 in the built-in
    /// company's time zone (America/Los_Angeles: 16:00 UTC).
    private func script() throws -> String {
        try file("calls.lua", """
            return {
              options = { vus = 2, iterations = 4, thresholds = { ["sdk_call_seconds{method:get}"] = "max < 10" } },
              run = function(ctx)
                ccai.company.get()
                ccai.sleep(2)
                ccai.company.get()
                print("iteration " .. ctx.iteration)
              end,
            }
            """)
    }

    private let clock = ["--virtual-time", "--start", "2026-12-07T08:00", "--seed", "5"]

    @Test func theFullSummaryCSVAndHTMLShowTheCallsAndTheRun() async throws {
        let html = try file("report.html"), csv = try file("results.csv")
        let output = try await CLI.run(["run", try script(), "--quiet", "--summary-mode", "full", "--out", "html=\(html)",
                                        "--out", "csv=\(csv)"] + clock)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("SDK calls by method:") && output.stdout.contains("Aggregated"), "\(output.stdout)")
        let row = output.stdout.split(separator: "\n").first { $0.contains("company") && $0.contains("get") }
        #expect(row?.split(separator: " ").dropFirst(2).first == "8", "8 calls of company.get: \(output.stdout)")
        let stats = try String(contentsOfFile: try file("results_stats.csv"))
        #expect(stats.hasPrefix("Type,Name,Request Count,Failure Count,Median Response Time,"), "\(stats)")
        #expect(stats.contains("\ncompany,get,8,0,") && stats.contains("\n,Aggregated,8,0,"), "\(stats)")
        let history = try String(contentsOfFile: try file("results_stats_history.csv")).split(separator: "\n")
        #expect(history.first?.hasPrefix("Timestamp,User Count,Type,Name,Requests/s,Failures/s,50%") == true)
        // 16:00 UTC on 2026-12-07 is 1796659200: the rows are stamped on the simulated clock.
        #expect(history.dropFirst().allSatisfy { $0.hasPrefix("17966592") }, "\(history)")
        #expect(history.last?.contains(",Aggregated,") == true && history.last?.contains(",8,0,") == true, "\(history)")
        let page = try String(contentsOfFile: html)
        for expected in ["2026-12-07T16:00:00Z (simulated)", "<b>5</b>", "ccai ", "options.iterations", "print(&quot;iteration &quot;",
                         "SDK calls by method", "{method:get}", "tag set</summary>", ">08:00:00<", "the simulated clock, America/Los_Angeles"] {
            #expect(page.contains(expected), "the report shows \(expected)")
        }
    }

    /// `--out KIND=-` writes to standard output, not to a file named `-`; the summary and
    /// the script's prints go to standard error; one output at most takes standard output.
    @Test func anOutputOnStandardOutput() async throws {
        let output = try await CLI.run(["run", try script(), "--quiet", "--out", "json=-"] + clock, directory: scratch.url)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("-").path))
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("{") } && lines.last?.contains("\"type\":\"Summary\"") == true, "\(output.stdout)")
        #expect(output.stderr.contains("iterations.....") && output.stderr.contains("iteration 1"), "\(output.stderr)")
        let junit = try await CLI.run(["run", try script(), "--quiet", "--out", "junit=-"] + clock)
        #expect(junit.stdout.hasPrefix("<?xml") && junit.stdout.contains("<testcase classname=\"thresholds\""), "\(junit.stdout)")
        let two = try await CLI.run(["run", try script(), "--out", "json=-", "--out", "junit=-"])
        #expect(two.status == 2 && two.stderr.contains("another output already writes to standard output"), "\(two.stderr)")
        let csv = try await CLI.run(["run", try script(), "--out", "csv=-"])
        #expect(csv.status == 2 && csv.stderr.contains("--out csv writes two files"), "\(csv.stderr)")
        let mode = try await CLI.run(["run", try script(), "--summary-mode", "long"])
        #expect(mode.status == 2 && mode.stderr.contains("--summary-mode expects compact or full, got 'long'"), "\(mode.stderr)")
    }

    /// The two halves of a run merge into every output: the HTML report with the whole
    /// run's charts and facts, Locust's CSV files, JUnit and the Summary line.
    @Test func aMergeWritesEveryOutput() async throws {
        let parts = try (1...2).map { try file("part\($0).json") }
        for (index, part) in parts.enumerated() {
            let run = try await CLI.run(["run", try script(), "--quiet", "--segment", "\(index + 1)/2", "--summary-out", part] + clock)
            #expect(run.status == 0, "\(run.stderr)")
        }
        let html = try file("merged.html"), csv = try file("merged"), junit = try file("merged.xml")
        let merged = try await CLI.run(["report", "merge"] + parts + ["--out", "html=\(html)", "--out", "csv=\(csv)",
                                                                    "--out", "junit=\(junit)", "--out", "json=-", "--summary-mode", "full"])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout.split(separator: "\n").count == 1 && merged.stdout.hasPrefix("{\"data\":{"), "\(merged.stdout)")
        #expect(merged.stderr.contains("SDK calls by method:"), "the summary went to standard error: \(merged.stderr)")
        let page = try String(contentsOfFile: html)
        #expect(page.contains("<polyline") && page.contains(">08:00:00<") && page.contains("options.iterations"), "charts and facts")
        #expect(try String(contentsOfFile: try file("merged_stats.csv")).contains("\ncompany,get,8,0,"))
        let history = try String(contentsOfFile: try file("merged_stats_history.csv"))
        let last = history.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.contains(",Aggregated,") && last.contains(",8,0,"), "the whole run's 8 calls: \(history)")
        let xml = try String(contentsOfFile: junit)
        #expect(xml.contains("tests=\"1\" failures=\"0\""), "\(xml)")
        let wrong = try await CLI.run(["report", "merge"] + parts + ["--out", "xml=\(junit)"])
        #expect(wrong.status == 2 && wrong.stderr.contains("KIND one of json, junit, html, csv")
                && wrong.stderr.contains("Run 'ccai help report'"), "\(wrong.stderr)")
        #expect(try XMLDocumentCheck.isWellFormed(xml))
    }
}
