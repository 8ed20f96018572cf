@testable import CCAIScripting
import Foundation
import LuaRuntime
import Testing
import Timekeeping

/// Locust's stats table and CSV files, the timeline a summary file keeps and merges, the
/// run's facts, JUnit's failure texts, and the options' errors (every bad threshold at
/// once, "did you mean").
@Suite struct RunReportsTests {
    /// Two chat starts (one refused) and a company get over three seconds of a manual clock.
    private func recorded() -> (ScenarioMetrics, ManualClock) {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let metrics = ScenarioMetrics(clock: clock)
        metrics.record(.vus, 2)
        metrics.record(.sdkCall, 0.010, tags: ["service": "chat", "method": "start", "status": "ok"])
        clock.advance(by: 1)
        metrics.record(.sdkCall, 0.030, tags: ["service": "chat", "method": "start", "status": "limit_exceeded"])
        metrics.record(.sdkCall, 0.002, tags: ["service": "company", "method": "get", "status": "ok"])
        clock.advance(by: 1.5)
        metrics.record(.sdkCall, 0.004, tags: ["service": "company", "method": "get", "status": "ok"])
        return (metrics, clock)
    }

    @Test func theStatsTableHasARowPerMethodAndAggregated() {
        let table = MethodStats.table(recorded().0.snapshot())
        #expect(table.map(\.type) == ["chat", "company", ""])
        #expect(table.map(\.name) == ["start", "get", "Aggregated"])
        #expect(table.map(\.figures.calls) == [2, 2, 4])
        #expect(table.map(\.figures.failures) == [1, 0, 1])
        #expect(abs(table[0].figures.seconds.max - 0.030) < 1e-9)
        #expect(table[2].callsPerSecond(over: 2) == 2)
        #expect(MethodStats.table(ScenarioMetrics().snapshot()).isEmpty, "no call, no table")
        let text = ScenarioSummary.text(recorded().0.snapshot(), options: ScenarioOptions(), elapsed: 2, mode: .full)
        let rows = text.split(separator: "\n").map(String.init)
        let header = rows.firstIndex(of: "     SDK calls by method:") ?? rows.count - 2
        #expect(rows[header + 1].contains("type") && rows[header + 1].contains("calls/s"), "\(text)")
        #expect(rows.contains { $0.contains("chat") && $0.contains("start") && $0.contains("30ms") && $0.hasSuffix("1.00") }, "\(text)")
        #expect(rows.contains { $0.contains("Aggregated") && $0.hasSuffix("2.00") }, "\(text)")
        #expect(!ScenarioSummary.text(recorded().0.snapshot(), options: ScenarioOptions(), elapsed: 2).contains("SDK calls"),
                "the compact summary has no table")
    }

    /// Locust's column names, exactly; the rows in milliseconds; one history row per
    /// method and Aggregated for each second once calls were made.
    @Test func theCSVFilesHaveLocustsColumns() throws {
        let snapshot = recorded().0.snapshot()
        let stats = StatsCSV.stats(snapshot, elapsed: 2).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(stats[0] == ["Type", "Name", "Request Count", "Failure Count", "Median Response Time", "Average Response Time",
                             "Min Response Time", "Max Response Time", "Average Content Size", "Requests/s", "Failures/s",
                             "50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%", "99.9%", "99.99%", "100%"])
        #expect(stats.count == 4)
        #expect(Array(stats[1].prefix(4)) == ["chat", "start", "2", "1"] && stats[1][6] == "10" && stats[1][7] == "30", "\(stats[1])")
        #expect(stats[1][9] == "1" && stats[1][10] == "0.5")
        #expect(Array(stats[3].prefix(4)) == ["", "Aggregated", "4", "1"])
        let history = StatsCSV.history(snapshot.timeline).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(history[0] == ["Timestamp", "User Count", "Type", "Name", "Requests/s", "Failures/s", "50%", "66%", "75%", "80%",
                               "90%", "95%", "98%", "99%", "99.9%", "99.99%", "100%", "Total Request Count", "Total Failure Count",
                               "Total Median Response Time", "Total Average Response Time", "Total Min Response Time",
                               "Total Max Response Time", "Total Average Content Size"])
        // Second 1: chat start and Aggregated; seconds 2 and 3: both methods and Aggregated.
        #expect(history.dropFirst().map { "\($0[0]) \($0[2]) \($0[3])" } == [
            "1800000001 chat start", "1800000001  Aggregated",
            "1800000002 chat start", "1800000002 company get", "1800000002  Aggregated",
            "1800000003 chat start", "1800000003 company get", "1800000003  Aggregated",
        ])
        let second = history[3]
        #expect(second[1] == "2" && second[4] == "1" && second[5] == "1" && second[6] == "30" && second[17] == "2" && second[18] == "1",
                "\(second)")
        #expect(history[6][4] == "0" && history[6][6] == "N/A" && history[6][17] == "2", "no chat start in second 3: \(history[6])")
        #expect(StatsCSV.fileNames(for: "out/run") == ("out/run_stats.csv", "out/run_stats_history.csv"))
        #expect(StatsCSV.fileNames(for: "run.CSV") == ("run_stats.csv", "run_stats_history.csv"))
        #expect(StatsCSV.text([["a,b", "say \"hi\"", "c"]]) == "\"a,b\",\"say \"\"hi\"\"\",c\n")
    }

    /// The summary file keeps the timeline and the run's facts; segments that ran at once
    /// merge their timelines moment by moment, their VUs added.
    @Test func theTimelineGoesThroughTheSummaryAndMerges() throws {
        let (metrics, _) = recorded()
        var options = ScenarioOptions()
        options.vus = 2
        options.seed = RandomSeed(7)
        let facts = RunFacts(startedAt: Date(timeIntervalSince1970: 1_800_000_000), version: "ccai test", options: options,
                             scriptText: "return {}")
        let first = ScenarioReport(metrics.snapshot(), options: options, elapsed: 3, script: "a.lua", segment: try ScenarioSegment("1/2"),
                                   run: facts)
        let read = try JSONDecoder().decode(ScenarioReport.self, from: try first.json())
        #expect(read == first)
        #expect(try read.snapshot().timeline == metrics.snapshot().timeline)
        #expect(read.run?.startedAt == "2027-01-15T08:00:00Z" && read.run?.options["vus"] == "2" && read.run?.options["seed"] == "7")
        let later = ManualClock(Date(timeIntervalSince1970: 1_800_000_001))
        let other = ScenarioMetrics(clock: later)
        other.record(.vus, 3)
        other.record(.sdkCall, 0.5, tags: ["service": "chat", "method": "start", "status": "ok"])
        let second = ScenarioReport(other.snapshot(), options: options, elapsed: 1, script: "a.lua", segment: try ScenarioSegment("2/2"))
        let merged = try ScenarioReport.merge([first, second])
        let timeline = try merged.snapshot().timeline
        #expect(timeline.origin == Date(timeIntervalSince1970: 1_800_000_000) && timeline.slices.count == 3)
        #expect(timeline.slices[0].vus == 2 && timeline.slices[1].vus == 3, "2 VUs, then the second segment's 3 (the first sampled none)")
        #expect(timeline.slices[1].calls[SDKMethod(service: "chat", method: "start")]?.calls == 2)
        #expect(merged.run?.version == "ccai test")
        var broken = first
        broken.timeline?.sliceSeconds = 3
        #expect(throws: ScenarioReport.Problem.self) { try broken.snapshot() }
    }

    /// A failed threshold says what it expected and what came, a failed check its counts,
    /// both with the first errors that failed iterations.
    @Test func junitFailuresSayWhatCame() throws {
        let metrics = ScenarioMetrics()
        metrics.recordIteration(seconds: 7.2, error: "chat refused: <limit_exceeded>")
        metrics.recordCheck("agent answered", passed: false)
        metrics.recordCheck("agent answered", passed: true)
        var options = ScenarioOptions()
        options.thresholds = [try Threshold(metric: "iteration_duration_seconds", expression: "p(95) < 5")]
        let xml = JUnitReport.xml(metrics.snapshot(), options: options, elapsed: 8, name: "load.lua")
        #expect(xml.contains("<failure message=\"p(95) &lt; 5: got 7.2s\">p(95) &lt; 5: got 7.2s&#10;errors that failed iterations:"
                             + "&#10;  1× chat refused: &lt;limit_exceeded&gt;</failure>"), "\(xml)")
        #expect(xml.contains("name=\"agent answered\"><failure message=\"1 of 2 failed (50.00% passed)\">"), "\(xml)")
        let many = (1...7).map { ScenarioMetrics.ErrorCount(message: "error \($0)", count: $0) }
        #expect(JUnitReport.errorLines(many).count == 7 && JUnitReport.errorLines(many).last == "  and 2 more")
    }

    @Test func everyBadThresholdIsReportedAtOnce() {
        let table: LuaValue = ["thresholds": ["checks": "rate", "latency": "p(95) < 1", "iterations": "count >= 10"]]
        #expect {
            try ScenarioOptions(table: table)
        } throws: { error in
            guard let problem = error as? ScenarioOptions.Problem else { return false }
            return problem.option == "options.thresholds" && problem.message.hasPrefix("2 thresholds are wrong:")
                && problem.message.contains("options.thresholds.checks: \"rate\"")
                && problem.message.contains("options.thresholds.latency: no metric named latency")
        }
        let misspelt: LuaValue = ["thresholds": ["chat_wait_second": "p(80) < 20"]]
        do {
            _ = try ScenarioOptions(table: misspelt)
            Issue.record("a misspelt metric was taken")
        } catch let problem as ScenarioOptions.Problem {
            #expect(problem.option == "options.thresholds.chat_wait_second", "\(problem)")
            #expect(problem.message.contains("(did you mean 'chat_wait_seconds'?)"), "\(problem)")
        } catch { Issue.record("\(error)") }
    }

    @Test func aMisspeltOptionGetsDidYouMean() {
        for (table, expected) in [(["iteratons": 3] as LuaValue, "options.iteratons: unknown option (did you mean 'iterations'?)"),
                                  (["arrival": ["rate": 1, "duration": "1s", "max_vu": 2]], "options.arrival.max_vu: unknown field (did you mean 'max_vus'?)"),
                                  (["zzzzzz": 1], "options.zzzzzz: unknown option (known: vus,")] {
            do {
                _ = try ScenarioOptions(table: table)
                Issue.record("\(table) was taken")
            } catch {
                #expect("\(error)".hasPrefix(expected), "\(error)")
            }
        }
    }
}
