import CCAIScripting
import Foundation
import Testing

/// Several scenarios in one file, each with its own executor, function, tags and start
/// time; groups; in virtual time, so that nothing depends on the machine's speed.
@Suite struct MultipleScenarioTests {
    /// A constant arrival of customers and a ramping one of callers, started 10 s later:
    /// each runs its own function on VUs of its own, tagged with its name; every arrival of
    /// each is accounted for. Scenarios go in the order of their names: the callers' VUs are
    /// 1 to 5, the customers' 6 to 10.
    @Test func twoScenariosRunTheirOwnExecutorsAndFunctions() async throws {
        let (output, snapshot) = try await CLI.runScenario("""
            return {
              options = { scenarios = {
                customers = { executor = "constant_arrival", rate = 60, time_unit = "1m", duration = "30s", max_vus = 5,
                              tags = { team = "chat" } },
                callers = { executor = "ramping_arrival", start_rate = 0, time_unit = "1m", max_vus = 5, exec = "call",
                            stages = { { target = 120, duration = "10s" }, { target = 120, duration = "10s" } }, start_time = "10s" },
              } },
              run = function(ctx)
                ccai.check(ctx.scenario == "customers" and ctx.vu > 5, "customers run on their VUs")
                ccai.sleep(1)
              end,
              call = function(ctx)
                ccai.check(ctx.scenario == "callers" and ctx.vu <= 5, "callers run on theirs")
                ccai.sleep(1)
              end,
            }
            """)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(snapshot.checks.allSatisfy { $0.fails == 0 } && snapshot.checks.count == 2, "\(snapshot.checks)")
        let iterations = snapshot.metric(.iterations), dropped = snapshot.metric(.droppedIterations)
        let customers = iterations.matching(["scenario": "customers", "team": "chat"]).count
        let callers = iterations.matching(["scenario": "callers"]).count
        // 60 a minute for 30 s; 0 to 120 a minute over 10 s then 120 a minute for 10 s: 10 + 20.
        #expect(customers + Int(dropped.matching(["scenario": "customers"]).sum) == 30, "\(iterations.series) \(dropped.series)")
        #expect(callers + Int(dropped.matching(["scenario": "callers"]).sum) == 30, "\(iterations.series) \(dropped.series)")
        #expect(customers == 30 && callers == 30, "a VU is free for every arrival: \(iterations.series)")
        #expect(dropped.matching(["scenario": "customers"]).count >= 1 && dropped.matching(["scenario": "callers"]).count >= 1,
                "each scenario's dropped arrivals carry its name: \(dropped.series)")
    }

    /// The example of docs/scenarios.md: chatters at a constant rate and callers ramping up
    /// from 30 s in, groups, and a handle_summary that prints its own report and writes the
    /// summary to the output folder instead of the default summary.
    @Test func theMixedExampleRunsBothScenariosAndItsOwnSummary() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try await CLI.run(["run", "examples/load/mixed.lua", "--virtual-time", "--quiet", "--out-dir", folder.path])
        #expect(output.status == 0, "\(output.stdout) \(output.stderr)")
        #expect(output.stdout.contains("iterations {") && !output.stdout.contains("checks.........."), "\(output.stdout)")
        let data = try Data(contentsOf: folder.appendingPathComponent("mixed-summary.json"))
        let summary = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let metrics = (summary["metrics"] as? [[String: Any]]) ?? []
        let iterations = metrics.first { $0["name"] as? String == "iterations" }?["series"] as? [[String: Any]] ?? []
        func count(_ scenario: String) -> Int {
            iterations.filter { ($0["tags"] as? [String: String])?["scenario"] == scenario }.reduce(0) { $0 + (($1["count"] as? Int) ?? 0) }
        }
        // 6 a minute for 2 minutes; 0 to 4 a minute over a minute, then 4 a minute for 30 s.
        #expect(count("chatters") == 12 && count("callers") == 4, "\(iterations)")
        let checks = (summary["checks"] as? [[String: Any]]) ?? []
        #expect(Set(checks.compactMap { $0["group"] as? String }) == ["::chat", "::call"], "\(checks)")
        #expect(checks.allSatisfy { ($0["fails"] as? Int) == 0 }, "\(checks)")
    }

    /// Groups tag what runs in them, nest, time themselves, and leave on an error.
    @Test func groupsTagWhatTheyRecordAndTimeThemselves() async throws {
        let (output, snapshot) = try await CLI.runScenario("""
            return {
              options = { iterations = 2 },
              run = function()
                local answer = ccai.group("checkout", function()
                  ccai.check(true, "in checkout")
                  ccai.group("payment", function()
                    ccai.sleep(2)
                    ccai.check(true, "paid")
                  end)
                  return 42
                end)
                ccai.check(answer == 42, "the group returns what its function does")
                local ok = pcall(ccai.group, "failing", function() error("no") end)
                ccai.check(not ok, "an error leaves the group and goes on up")
                ccai.check(true, "outside")
              end,
            }
            """)
        #expect(output.status == 0, "\(output.stderr)")
        let checks = Dictionary(uniqueKeysWithValues: snapshot.checks.map { ("\($0.group ?? "")/\($0.name)", $0.passes) })
        #expect(checks == ["::checkout/in checkout": 2, "::checkout::payment/paid": 2, "/the group returns what its function does": 2,
                           "/an error leaves the group and goes on up": 2, "/outside": 2], "\(snapshot.checks)")
        let durations = snapshot.metric(.groupDuration)
        #expect(durations.matching(["group": "::checkout::payment"]).count == 2)
        #expect(durations.matching(["group": "::checkout"]).min >= 2, "\(durations.series)")
        #expect(durations.matching(["group": "::failing"]).count == 2)
        #expect(output.stdout.contains("     █ checkout\n       ✓ in checkout\n       █ payment\n         ✓ paid"), "the summary lists checks by group: \(output.stdout)")
        let bad = try await CLI.runScenario("return { run = function() ccai.group(\"a::b\", function() end) end }")
        #expect(bad.1.errors.first?.message.contains("a group name is 1 to 256 bytes without '::'") == true, "\(bad.1.errors)")
    }

    /// `--segment` cuts each scenario as it would a run of it alone: the slices together run
    /// exactly the whole of each. `--iterations` replaces the scenarios with one that calls `run`.
    @Test func segmentsAddUpAndTheCommandLineReplacesTheScenarios() async throws {
        let source = """
            return {
              options = { scenarios = {
                a = { executor = "shared_iterations", vus = 3, iterations = 10 },
                b = { executor = "constant_arrival", rate = 10, duration = "2s", max_vus = 4 },
              } },
              run = function() ccai.sleep(0.1) end,
            }
            """
        var shared = 0, arrivals = 0
        for slice in ["1/2", "2/2"] {
            let (output, snapshot) = try await CLI.runScenario(source, ["--segment", slice])
            #expect(output.status == 0, "\(output.stderr)")
            shared += snapshot.metric(.iterations).matching(["scenario": "a"]).count
            arrivals += snapshot.metric(.iterations).matching(["scenario": "b"]).count
                + Int(snapshot.metric(.droppedIterations).matching(["scenario": "b"]).sum)
        }
        #expect(shared == 10 && arrivals == 20, "\(shared) shared iterations, \(arrivals) arrivals")
        let (replaced, snapshot) = try await CLI.runScenario(source, ["--iterations", "3"])
        #expect(replaced.status == 0 && snapshot.iterations == 3, "\(replaced.stderr)")
        #expect(snapshot.metric(.iterations).matching(["scenario": "a"]).count == 0)
    }

    /// What cannot run is a usage error naming where it is.
    @Test func badScenariosAreUsageErrors() async throws {
        for (options, expected) in [
            (#"{ scenarios = { a = { executor = "fast", vus = 1 } } }"#, "options.scenarios.a.executor: one of shared_iterations"),
            (#"{ scenarios = { a = { executor = "constant_vus", vus = 1 } } }"#, "options.scenarios.a.duration: a constant_vus scenario needs it"),
            (#"{ scenarios = { a = { executor = "constant_arrival", rate = 1, duration = "1s", stages = {} } } }"#,
             "options.scenarios.a.stages: unknown field of a constant_arrival scenario"),
            (#"{ scenarios = { a = { executor = "shared_iterations", exec = "missing" } } }"#,
             "options.scenarios.a.exec: the scenario table has no function 'missing'"),
            (#"{ vus = 2, scenarios = { a = { executor = "shared_iterations" } } }"#, "options.vus: options.scenarios say how each"),
            (#"{ arrival = { start_rate = 1, rate = 2, duration = "1s" } }"#, "options.arrival.start_rate: start_rate begins a ramping rate"),
            (#"{ scenarios = { a = { executor = "shared_iterations", vus = 3, iterations = 2 } } }"#,
             "scenario a: 3 VUs cannot share 2 iterations"),
            (#"{ scenarios = { a = { executor = "constant_vus", vus = 1, duraton = "1s" } } }"#, "did you mean 'duration'?"),
        ] {
            let path = try CLI.script("return { options = \(options), run = function() end }")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let output = try await CLI.run(["run", path, "--quiet"])
            #expect(output.status == 2 && output.stderr.contains(expected), "\(options): \(output.stderr)")
        }
    }
}
