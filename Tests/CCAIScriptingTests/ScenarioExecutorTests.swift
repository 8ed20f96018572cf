@testable import CCAIScripting
import Foundation
import LuaRuntime
import Testing
import Timekeeping

/// The executors' arithmetic, segments, and the reports a run writes and merges: what
/// needs no platform.
@Suite struct ScenarioExecutorTests {
    /// A ramp makes before it starts only the VUs it wants then (at least one); the others
    /// are made when the ramp first wants them, so a ramp to 100,000 VUs does not spend
    /// minutes making them before its first stage (issue 38, item 6). Other executors make
    /// all of theirs first.
    @Test func aRampMakesItsVUsWhenItWantsThem() throws {
        func initial(_ table: LuaValue, segment: ScenarioSegment = .whole) throws -> [Int] {
            let options = try ScenarioOptions(table: table)
            return Workload(scenario: options.workloads[0], index: 0, offset: 0, segment: segment).initial
        }
        let rampFromZero: LuaValue = ["stages": [["duration": "10s", "target": 100_000]]]
        #expect(try initial(rampFromZero) == [1])
        let rampFromThree: LuaValue = ["vus": 3, "stages": [["duration": "10s", "target": 50]]]
        #expect(try initial(rampFromThree) == [1, 2, 3])
        #expect(try initial(rampFromThree, segment: try ScenarioSegment("2/2")) == [2])
        #expect(try initial(["vus": 4, "duration": "1m"]) == [1, 2, 3, 4])
    }

    /// `options.max_memory`: bytes, or a size with a unit (powers of 1,000 or of 1,024), at
    /// least 64 MiB; anything else names the option. Without it, the machine's default.
    @Test func maxMemoryReadsBytesAndSizes() throws {
        let sizes: [(LuaValue, Int)] = [(.integer(1 << 30), 1 << 30), (.string("4GiB"), 4 << 30), (.string("512MB"), 512_000_000),
                                        (.string("1.5 GiB"), 3 << 29), (.number(1e9), 1_000_000_000)]
        for (value, bytes) in sizes {
            #expect(try ScenarioOptions(table: ["max_memory": value]).memory == RunMemory(limit: bytes), "\(value)")
        }
        for bad: LuaValue in [.string("lots"), .string("10 parsecs"), .integer(1 << 20), .number(-1), .boolean(true), .string("")] {
            #expect(throws: ScenarioOptions.Problem.self, "\(bad)") { try ScenarioOptions(table: ["max_memory": bad]) }
        }
        let machine = RunMemory.machineDefault.limit
        #expect(try ScenarioOptions(table: nil).memory.limit == machine && machine >= 64 << 20)
        #expect(RunMemory(limit: 256 << 20).problem(resident: 300 << 20, during: "while it ran")?
            .contains("held 300 MiB while it ran, over options.max_memory (256 MiB)") == true)
        #expect(RunMemory(limit: 256 << 20).problem(resident: 200 << 20, during: "while it ran") == nil)
    }

    /// Ramping VUs move linearly between targets, and a VU waiting for its turn is woken
    /// at the moment the ramp reaches it.
    @Test func rampsReachEachTargetLinearly() {
        let schedule = RampingSchedule(startVUs: 1, stages: [.init(duration: 10, target: 11), .init(duration: 5, target: 11),
                                                            .init(duration: 0, target: 3), .init(duration: 5, target: 0)])
        #expect(schedule.target(at: 0) == 1 && schedule.target(at: 5) == 6 && schedule.target(at: 9.99) == 10)
        #expect(schedule.target(at: 10) == 11 && schedule.target(at: 14.9) == 11)
        #expect(schedule.target(at: 15) == 3 && schedule.target(at: 17.5) == 1, "a stage of no time jumps")
        #expect(schedule.target(at: 20) == 0 && schedule.target(at: 99) == 0)
        #expect(schedule.activation(of: 1, from: 0) == 0)
        #expect(schedule.activation(of: 6, from: 0) == 5)
        #expect(schedule.activation(of: 11, from: 12) == 12)
        #expect(schedule.activation(of: 11, from: 15) == nil, "after the ramp down it is never wanted again")
        #expect(schedule.activation(of: 12, from: 0) == nil)
        for second in stride(from: 0.0, to: 10, by: 0.25) {
            let wanted = schedule.target(at: second)
            if let next = schedule.activation(of: wanted + 1, from: second) { #expect(schedule.target(at: next) >= wanted + 1) }
        }
    }

    /// For any N the slices are disjoint and together the whole run: every VU in exactly
    /// one, the iterations adding up to the total, each slice with VUs getting at least
    /// as many iterations as VUs.
    @Test func segmentsTogetherAreTheWholeRun() throws {
        for count in 1...7 {
            for vus in 1...12 {
                let total = vus + 5
                let slices = try (1...count).map { try ScenarioSegment("\($0)/\(count)") }
                let numbers = slices.flatMap { $0.vus(upTo: vus) }
                #expect(numbers.sorted() == Array(1...vus), "\(count) slices of \(vus) VUs")
                #expect(slices.map { $0.iterations(of: total, vus: vus) }.reduce(0, +) == total)
                for slice in slices where !slice.vus(upTo: vus).isEmpty {
                    #expect(slice.iterations(of: total, vus: vus) >= slice.vus(upTo: vus).count)
                }
                #expect((1...40).filter { number in slices.filter { $0.owns(arrival: number) }.count == 1 }.count == 40)
            }
        }
        for bad in ["0/3", "4/3", "1/0", "a/b", "1/", "2", "-1/2", "1/100001"] {
            #expect(throws: ScenarioSegment.Problem.self, "\(bad)") { try ScenarioSegment(bad) }
        }
    }

    /// A Poisson process from the run's seed: the same arrivals for the same seed, others
    /// for another, averaging the rate; evenly spaced ones at whole intervals.
    @Test func poissonArrivalsAreReproducibleAndAverageTheRate() {
        let arrival = ScenarioOptions.Arrival(rate: 2, duration: 10_000, poisson: true)
        func offsets(_ seed: UInt64, _ count: Int) -> [Double] {
            var schedule = ArrivalSchedule(arrival, seed: RandomSeed(seed))
            return (0..<count).compactMap { _ in schedule.next() }
        }
        let times = offsets(9, 19_000)
        #expect(times == offsets(9, 19_000))
        #expect(times.prefix(10) != offsets(10, 10)[...])
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        let mean = gaps.reduce(0, +) / Double(gaps.count)
        #expect(abs(mean - 0.5) < 0.02, "\(mean)")
        #expect(times.first == 0 && gaps.allSatisfy { $0 > 0 && $0.isFinite })
        var even = ArrivalSchedule(ScenarioOptions.Arrival(rate: 4, duration: 1), seed: RandomSeed(9))
        #expect((0..<5).map { _ in even.next() } == [0, 0.25, 0.5, 0.75, nil])
    }

    /// The plan counts every arrival once: 200 a minute for a minute is 200 (not 201, as
    /// 60 / 0.3 is 200.00000000000003), and a run ending early hands out the rest to be
    /// counted as dropped, each slice its own share.
    @Test func theArrivalPlanCountsEveryArrivalOnce() {
        let newcomer = ScenarioOptions.Arrival(rate: 200, timeUnit: 60, duration: 60)
        var all = ArrivalSchedule(newcomer, seed: RandomSeed(1))
        var count = 0
        while all.next() != nil { count += 1 }
        #expect(count == 200)
        for poisson in [false, true] {
            let arrival = ScenarioOptions.Arrival(rate: 20, duration: 1, poisson: poisson)
            var whole = ArrivalSchedule(arrival, seed: RandomSeed(3))
            var planned = 0
            while whole.next() != nil { planned += 1 }
            let slices = (1...3).map { try! ScenarioSegment("\($0)/3") }
            let shares = slices.map { slice -> Int in
                var schedule = ArrivalSchedule(arrival, seed: RandomSeed(3))
                var started = 0
                for number in 1...7 where schedule.next() != nil && slice.owns(arrival: number) { started += 1 }
                return started + schedule.skipRest(ownedBy: slice)
            }
            #expect(shares.reduce(0, +) == planned, "\(shares) of \(planned)")
        }
        #expect(ScenarioSegment.whole.arrivals(from: 1, through: 10) == 10)
        #expect(try! ScenarioSegment("2/3").arrivals(from: 2, through: 8) == 3)
    }

    /// A ramping rate: from 0 to 60 a minute over a minute, then 60 a minute for a minute,
    /// is 30 + 60 arrivals, coming faster as the rate rises.
    @Test func aRampingRateSpacesArrivalsByTheRate() {
        var arrival = ScenarioOptions.Arrival(rate: 1, timeUnit: 60, duration: 120)
        arrival.stages = [.init(duration: 60, target: 60), .init(duration: 60, target: 60)]
        var schedule = ArrivalSchedule(arrival, seed: RandomSeed(1))
        var times: [Double] = []
        while let time = schedule.next() { times.append(time) }
        #expect(times.count == 90, "\(times.count)")
        #expect(abs(times[1] - (2 * 60.0).squareRoot()) < 1e-9, "\(times[1])")
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.prefix(29).elementsEqual(gaps.prefix(29).sorted(by: >)))
        #expect(gaps.suffix(50).allSatisfy { abs($0 - 1) < 1e-9 })
    }

    /// A seed's streams are apart from one another, and its UUIDs are version 4.
    @Test func aSeedsStreamsDifferAndItsUUIDsAreVersionFour() {
        var vu1 = RandomSeed(5).generator(stream: 1), vu2 = RandomSeed(5).generator(stream: 2)
        #expect((0..<8).map { _ in vu1.next() } != (0..<8).map { _ in vu2.next() })
        var again = RandomSeed(5).generator(stream: 1)
        _ = (0..<8).map { _ in again.next() }
        let uuid = vu1.uuid().uuidString
        #expect(uuid == again.uuid().uuidString)
        #expect(Array(uuid)[14] == "4" && "89AB".contains(Array(uuid)[19]), "\(uuid)")
        #expect(RandomSeed(parsing: "9223372036854775807")?.value == UInt64(Int64.max))
        #expect(RandomSeed(parsing: "-1") == nil && RandomSeed(parsing: "9223372036854775808") == nil && RandomSeed(parsing: "x") == nil)
    }

    /// Three recorders' summaries written as files, read back and merged: the same
    /// figures as one recorder that saw everything, thresholds evaluated on the whole.
    @Test func mergedSummariesEqualOneRunOfEverything() throws {
        let whole = ScenarioMetrics()
        let parts = [ScenarioMetrics(), ScenarioMetrics(), ScenarioMetrics()]
        for metrics in parts + [whole] { _ = metrics.declare("wait_seconds", kind: .trend) }
        for index in 0..<300 {
            let part = parts[index % 3]
            let seconds = index < 270 ? Double(index) / 1000 : 5 + Double(index) / 100
            let queue = index % 2 == 0 ? "billing" : "sales"
            for metrics in [part, whole] {
                metrics.recordIteration(seconds: seconds, error: index % 50 == 0 ? "boom" : nil)
                metrics.recordCheck("fast", passed: seconds < 1)
                metrics.add("wait_seconds", value: seconds, tags: ["queue": queue])
                metrics.record(.sdkCall, seconds, tags: ["service": "chat", "method": "start", "status": "ok"])
            }
        }
        let options = try ScenarioOptions(table: ["thresholds": [
            "checks": "rate > 0.95", "wait_seconds{queue:billing}": "p(95) < 1", "iterations": "count == 300",
        ]], declared: ["wait_seconds": .trend])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [String] = []
        for (index, part) in parts.enumerated() {
            let report = ScenarioReport(part.snapshot(), options: options, elapsed: Double(10 + index), script: "load.lua",
                                        segment: try ScenarioSegment("\(index + 1)/3"))
            let path = folder.appendingPathComponent("part\(index + 1).json").path
            try report.json().write(to: URL(fileURLWithPath: path))
            files.append(path)
        }
        let merged = try ScenarioReport.merge(try files.map(ScenarioReport.read), sources: files)
        let expected = ScenarioReport(whole.snapshot(), options: options, elapsed: 12, script: "load.lua", segment: .whole)
        #expect(merged.metrics.map(\.name) == expected.metrics.map(\.name))
        for (got, want) in zip(merged.metrics, expected.metrics) {
            #expect(got.series.map(\.tags) == want.series.map(\.tags), "\(got.name)")
            for (a, b) in zip(got.series, want.series) {
                // Exact but for the order floating-point sums were added in (and a gauge's last value).
                #expect(a.count == b.count && a.trues == b.trues && a.min == b.min && a.max == b.max, "\(got.name)")
                #expect(abs(a.sum - b.sum) < 1e-9 && a.digest?.positive == b.digest?.positive && a.digest?.zeros == b.digest?.zeros)
            }
        }
        #expect(merged.checks == expected.checks && merged.errors == expected.errors)
        #expect(merged.segment == "1/3,2/3,3/3" && merged.missingSegments.isEmpty && merged.elapsedSeconds == 12)
        let snapshot = try merged.snapshot(), mergedOptions = try merged.options()
        let held = mergedOptions.thresholds.map { $0.evaluate(snapshot, elapsed: 12).holds }
        #expect(held == [false, true, false], "checks 90% fail, iterations are 300, billing's p(95) is 5.x s")
        #expect(mergedOptions.thresholds.map { $0.evaluate(snapshot, elapsed: 12).holds }
            == options.thresholds.map { $0.evaluate(whole.snapshot(), elapsed: 12).holds })
        #expect(throws: ScenarioReport.Problem.self) { try ScenarioReport.merge([merged, merged]) }
        #expect(try ScenarioReport.merge([try ScenarioReport.read(files[0])]).missingSegments == ["2/3", "3/3"])
    }

    /// What a merge refuses (a whole run twice, slices of different cuts, what is not a
    /// slice) and what it folds as a run does (errors past the distinct ones kept); tags
    /// with empty values come back from a file as they went.
    @Test func mergesRefuseWhatIsNotOneRunAndFoldWhatARunWould() throws {
        func report(_ segment: String, errors: Range<Int>, seed: UInt64 = 0) -> ScenarioReport {
            let metrics = ScenarioMetrics()
            _ = metrics.declare("hits", kind: .counter)
            metrics.add("hits", value: 1, tags: ["q": ""])
            metrics.add("hits", value: 1, tags: [:])
            for index in errors { metrics.recordIteration(seconds: 0.1, error: "boom \(index)") }
            var options = ScenarioOptions()
            options.seed = RandomSeed(seed)
            var made = ScenarioReport(metrics.snapshot(), options: options, elapsed: 1, script: "s.lua", segment: .whole)
            made.segment = segment
            return made
        }
        let first = report("1/2", errors: 0..<60), second = report("2/2", errors: 60..<120)
        let read = try JSONDecoder().decode(ScenarioReport.self, from: try first.json())
        #expect(try read.snapshot().metric(named: "hits")?.series.keys.sorted() == ["", "q:"], "an empty tag value round-trips")
        let merged = try ScenarioReport.merge([first, second])
        #expect(merged.seed == 0 && read.seed == 0, "the seed is recorded and kept by the merge")
        #expect(merged.errors.count == ScenarioMetrics.distinctErrors + 1 && merged.errors.last?.message == "other errors")
        #expect(merged.errors.reduce(0) { $0 + $1.count } == 120)
        for (pair, message) in [([report("1/1", errors: 0..<1), report("1/1", errors: 0..<1)], "already in the merge"),
                                ([report("1/2", errors: 0..<1), report("2/3", errors: 0..<1)], "cut in 3, the others in 2"),
                                ([report("1/2", errors: 0..<1), report("x", errors: 0..<1)], "is not a segment"),
                                ([report("1/2", errors: 0..<1), report("2/2", errors: 0..<1, seed: 3)], "its seed (3) differs")] {
            #expect(throws: ScenarioReport.Problem.self) { try ScenarioReport.merge(pair) }
            do { _ = try ScenarioReport.merge(pair) } catch let problem as ScenarioReport.Problem {
                #expect(problem.message.contains(message), "\(problem.message)")
            }
        }
    }

    /// What a script names its checks reaches the summary escaped: no line of it can be forged.
    @Test func theSummaryEscapesWhatScriptsName() {
        let metrics = ScenarioMetrics()
        metrics.recordCheck("x\n     ✓ forged line\u{1B}[2J", passed: true)
        metrics.recordIteration(seconds: 0.1, error: "bad\nERROR forged")
        let text = ScenarioSummary.text(metrics.snapshot(), options: ScenarioOptions(), elapsed: 1)
        #expect(!text.contains("\n     ✓ forged line") && text.contains("x\\n     ✓ forged line\\u{1b}[2J"), "\(text)")
        #expect(text.contains("bad\\nERROR forged") && !text.contains("\u{1B}"))
    }

    /// A summary file whose figures do not add up, or that is not a summary, is refused
    /// with what is wrong; none of it traps.
    @Test func badSummaryFilesAreRefused() throws {
        let metrics = ScenarioMetrics()
        metrics.recordIteration(seconds: 0.5, error: nil)
        let report = ScenarioReport(metrics.snapshot(), options: ScenarioOptions(), elapsed: 1, script: "s.lua", segment: .whole)
        let text = String(decoding: try report.json(pretty: false), as: UTF8.self)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases: [(String, String)] = [
            ("not json", "not a summary"),
            (text.replacingOccurrences(of: "\"count\":1,", with: "\"count\":2,"), "digest"),
            (text.replacingOccurrences(of: "\"count\":1,", with: "\"count\":9223372036854775807,"), "not what a run records"),
            (text.replacingOccurrences(of: "\"version\":1", with: "\"version\":7"), "version 7"),
            (text.replacingOccurrences(of: "\"format\":\"ccai-scenario-summary\"", with: "\"format\":\"k6\""), "format 'k6'"),
            (text.replacingOccurrences(of: "\"kind\":\"counter\"", with: "\"kind\":\"gauge\""), "is a counter"),
            (text.replacingOccurrences(of: "\"thresholds\":[]",
                                       with: "\"thresholds\":[{\"metric\":\"checks\",\"threshold\":\"rate ~ 1\",\"abort_on_fail\":false}]"),
             "is not an expression"),
        ]
        for (index, (content, message)) in cases.enumerated() {
            let path = folder.appendingPathComponent("\(index).json").path
            try content.write(toFile: path, atomically: true, encoding: .utf8)
            do {
                _ = try ScenarioReport.read(path)
                Issue.record("case \(index) was read")
            } catch let problem as ScenarioReport.Problem {
                #expect(problem.message.contains(message), "case \(index): \(problem.message)")
            }
        }
    }

    /// Outputs written by hand are well-formed: JSON strings escape what JSON needs,
    /// timestamps are RFC 3339, JUnit escapes markup, chart ticks are round.
    @Test func outputsEscapeWhatTheyWrite() {
        #expect(JSONText.string("a\"b\\c\n\u{1}\u{2028}é") == #""a\"b\\c\n\u0001\u2028é""#)
        #expect(JSONText.number(4) == "4" && JSONText.number(0.25) == "0.25" && JSONText.number(.infinity) == "null")
        #expect(JSONText.timestamp(Date(timeIntervalSince1970: 1_764_649_893.538_12)) == "2025-12-02T04:31:33.538120Z")
        #expect(MarkupText.escaped("a<b & \"c\"\u{1}\n") == "a&lt;b &amp; &quot;c&quot;&#10;")
        #expect(MarkupText.escaped("<script>x</script>") == "&lt;script&gt;x&lt;/script&gt;")
        #expect(MarkupText.escaped("invoice\u{202E}fdp.exe \u{2066}x\u{2069}\u{200B}\u{2028}\u{85}é")
                    == #"invoice\u{202e}fdp.exe \u{2066}x\u{2069}\u{200b}\u{2028}\u{85}é"#,
                "bidi overrides, isolates, zero-width characters, separators and C1 controls are shown, never obeyed")
        #expect(SVGChart.ticks(upTo: 7) == [0, 2, 4, 6, 8] && SVGChart.ticks(upTo: 0.03) == [0, 0.01, 0.02, 0.03])
        #expect(SVGChart.ticks(upTo: 0) == [0, 1])
    }

    /// The timeline keeps at most its slices: a long run's slices double in length and
    /// keep every count.
    @Test func aLongTimelineCoarsens() {
        var timeline = Timeline()
        let start = Date(timeIntervalSince1970: 0)
        for second in 0..<5_000 {
            timeline.record(.iterations, 1, at: start.addingTimeInterval(Double(second)))
            timeline.record(.iterationFailed, second % 10 == 0 ? 1 : 0, at: start.addingTimeInterval(Double(second)))
        }
        #expect(timeline.slices.count <= Timeline.maximumSlices && timeline.sliceSeconds == 8)
        #expect(timeline.slices.reduce(0) { $0 + $1.iterations } == 5_000)
        #expect(timeline.slices.reduce(0) { $0 + $1.failedIterations } == 500)
    }

    /// Built-in metrics take tags and thresholds on them; a script cannot add to one.
    @Test func builtInMetricsAreTaggedAndClosedToScripts() throws {
        let metrics = ScenarioMetrics()
        metrics.record(.sdkCall, 0.2, tags: ["service": "chat", "method": "start", "status": "ok"])
        metrics.record(.sdkCall, 3, tags: ["service": "chat", "method": "send_message", "status": "ok"])
        metrics.add("sdk_call_seconds", value: 100, tags: [:])
        let start = try Threshold(metric: "sdk_call_seconds{method:start}", expression: "max < 1")
        let all = try Threshold(metric: "sdk_call_seconds", expression: "max < 1")
        #expect(start.evaluate(metrics.snapshot(), elapsed: 1).holds && !all.evaluate(metrics.snapshot(), elapsed: 1).holds)
        #expect(metrics.snapshot().metric(.sdkCall).total.count == 2)
        #expect(metrics.declare("sdk_call_seconds", kind: .trend) == "sdk_call_seconds is a built-in metric")
        // Without a sample a trend has no value and its threshold fails; a counter counts 0.
        let wait = try Threshold(metric: "chat_wait_seconds", expression: "p(80) < 20").evaluate(metrics.snapshot(), elapsed: 1)
        #expect(!wait.holds && wait.observed.isNaN)
        #expect(try Threshold(metric: "dropped_iterations", expression: "count == 0").evaluate(metrics.snapshot(), elapsed: 1).holds)
    }
}
