import CCAIScripting
import Foundation
import TestSupport
import Testing

/// Scenarios through the real executable (LUA-API section 6): VUs, their end users and
/// tokens, shared iterations, durations, setup and teardown, checks, the summary, and the
/// exit statuses of bad options and failed setups.
@Suite struct ScenarioCommandTests {
    private func scenario(_ source: String) throws -> String { try CLI.script(source) }

    /// Seven iterations shared by three VUs: each VU is its own end user with its own
    /// token, counts its own iterations from 1, and together they run exactly seven.
    @Test func sharedIterationsRunOnDistinctEndUsers() async throws {
        let path = try scenario("""
            return {
              options = { vus = 3, iterations = 7 },
              run = function(ctx)
                ccai.company.get()  -- signs the VU's end user in
                local me = ccai.end_user.get_end_user()
                print(string.format("ran %d %d %s %s", ctx.vu, ctx.iteration, me.identifier, ccai.auth.get_auth_token()))
              end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"])
        #expect(output.status == 0, "\(output.stderr)")
        let runs = output.stdout.split(separator: "\n").filter { $0.hasPrefix("ran ") }.map { $0.split(separator: " ") }
        #expect(runs.count == 7, "\(output.stdout)")
        var tokens: [String: String] = [:]
        var iterations: [String: [Int]] = [:]
        for run in runs {
            #expect(run[3] == "vu-\(run[1])", "VU \(run[1]) is end user vu-\(run[1])")
            #expect(tokens[String(run[1])] == nil || tokens[String(run[1])] == String(run[4]))
            tokens[String(run[1])] = String(run[4])
            iterations[String(run[1]), default: []].append(Int(run[2])!)
        }
        #expect(Set(tokens.values).count == tokens.count, "no two VUs share a token: \(tokens)")
        #expect(tokens.count >= 2 && tokens.count <= 3)
        for (_, numbers) in iterations { #expect(numbers.sorted() == Array(1...numbers.count)) }
        #expect(output.stdout.contains("iterations.....................: 7 "), "\(output.stdout)")
        // The gauge's value is its last sample, which may come after some VUs finished;
        // its maximum is the three that took part.
        let gauge = output.stdout.split(separator: "\n").first { $0.contains("vus............................: ") }
        #expect(gauge?.hasSuffix("max=3") == true, "\(output.stdout)")
    }

    /// An iteration that leaves the app in the background, even by failing there, does not
    /// leave the next one without its event stream: each starts in the foreground.
    @Test func eachIterationStartsWithTheAppInTheForeground() async throws {
        let path = try scenario("""
            return {
              options = { vus = 1, iterations = 2 },
              run = function(ctx)
                print(string.format("iteration %d starts in the background: %s", ctx.iteration, tostring(ccai.is_in_background())))
                ccai.set_in_background(true)
                if ctx.iteration == 1 then error("failed while away") end
              end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"])
        #expect(output.stdout.contains("iteration 1 starts in the background: false"), "\(output.stdout)")
        #expect(output.stdout.contains("iteration 2 starts in the background: false"), "\(output.stdout)")
        #expect(output.stdout.contains("iteration_failed...............: 50.00%"), "\(output.stdout)")
    }

    /// `setup` runs once and its result is a fresh copy in every iteration; `teardown`
    /// gets it back unchanged.
    @Test func setupDataIsCopiedIntoEachIterationAndTeardownGetsIt() async throws {
        let path = try scenario("""
            return {
              options = { vus = 2, iterations = 4 },
              setup = function() ccai.company.get() print("setup as " .. ccai.end_user.get_end_user().identifier) return { count = 41 } end,
              run = function(ctx)
                ccai.check(ctx.data.count, { ["data came"] = function(count) return count == 41 end })
                ctx.data.count = 0
              end,
              teardown = function(data) print("teardown " .. data.count) end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.components(separatedBy: "setup as vu-setup").count == 2, "setup ran once: \(output.stdout)")
        #expect(output.stdout.contains("teardown 41"))
        #expect(output.stdout.contains("✓ data came") && output.stdout.contains("✓ 4  ✗ 0"), "\(output.stdout)")
    }

    /// With a duration, each VU loops until it has passed; every iteration that started
    /// ends and is counted.
    @Test func aDurationLoopsEachVU() async throws {
        let path = try scenario("""
            return {
              options = { vus = 2, duration = "1s" },
              run = function(ctx) ccai.sleep(0.1) print("vu " .. ctx.vu) end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"])
        #expect(output.status == 0, "\(output.stderr)")
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.contains("vu 1") && lines.contains("vu 2"), "both VUs looped: \(output.stdout)")
        let ran = lines.filter { $0.hasPrefix("vu ") }.count
        #expect(output.stdout.contains("iterations.....................: \(ran) "), "\(output.stdout)")
        #expect(output.stdout.contains("iteration_failed...............: 0.00%"))
    }

    /// The contact-center metrics of a run against the embedded sandbox: how long an agent
    /// had a chat, the share of chats that ended before anyone took them, and the queue and
    /// busy agents sampled each second.
    @Test func contactCenterMetricsAreRecorded() async throws {
        let sandbox = try scenario("""
            return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Staffed", channels = { chat = {} } }, { id = 2, name = "Unstaffed", channels = { chat = {} } } },
                     agents = { { name = "Ada", menus = { 1 } } } }
            """)
        let path = try scenario("""
            return {
              options = { vus = 1, iterations = 1 },
              run = function()
                ccai.initialize_chat()
                local served = ccai.chat.start{ menu_id = 1 }
                ccai.chat.wait_for("chat_received", { timeout = 10, match = function(c) return c.id == served.id and c.agent ~= nil end })
                ccai.sleep(2.2)                     -- Ada is busy across a sample
                ccai.chat.end_chat()
                ccai.chat.wait_for("chat_received", { timeout = 10, match = function(c) return c.id == served.id and c.status == "ended" end })
                local left = ccai.chat.start{ menu_id = 2 }
                ccai.sleep(2.2)                     -- it waits across a sample, and nobody takes it
                ccai.chat.end_chat()
                ccai.chat.wait_for("chat_received", { timeout = 10, match = function(c) return c.id == left.id and c.status == "ended" end })
                ccai.sleep(0)
              end,
            }
            """)
        let html = FileManager.default.temporaryDirectory.appendingPathComponent("cc-\(UUID().uuidString).html").path
        let points = FileManager.default.temporaryDirectory.appendingPathComponent("cc-\(UUID().uuidString).json").path
        defer { for file in [sandbox, path, html, points] { try? FileManager.default.removeItem(atPath: file) } }
        let output = try await CLI.run(["run", path, "--quiet", "--sandbox", sandbox, "--out", "html=\(html)", "--out", "json=\(points)"])
        #expect(output.status == 0, "\(output.stderr)")
        let lines = output.stdout.split(separator: "\n").map(String.init)
        func row(_ name: String) -> String? { lines.first { $0.hasPrefix("     \(name)..") } }
        #expect(row("abandoned")?.contains("50.00% ✓ 1  ✗ 1") == true, "one of the two chats was abandoned: \(output.stdout)")
        #expect(row("chat_handle_seconds")?.contains("avg=2.") == true, "Ada had the chat some 2.2 s: \(output.stdout)")
        #expect(row("queue_length")?.hasSuffix("max=1") == true, "\(output.stdout)")
        #expect(row("agents_busy")?.hasSuffix("max=1") == true, "\(output.stdout)")
        let report = try String(contentsOfFile: html, encoding: .utf8)
        #expect(report.contains("Queue and agents") && report.contains("Chat wait"), "the HTML report charts them")
        let samples = try String(contentsOfFile: points, encoding: .utf8)
        for metric in ["queue_length", "agents_busy", "chat_handle_seconds", "abandoned"] {
            #expect(samples.contains(#""metric":"\#(metric)","type":"Point""#), "\(metric) in the JSON points")
        }
    }

    /// Failed iterations are counted, and each distinct error is reported once with its
    /// count; checks that failed show how many did. The run itself succeeds.
    @Test func failedIterationsAndChecksAreCountedOnce() async throws {
        let path = try scenario("""
            return {
              options = { vus = 1, iterations = 6 },
              run = function(ctx)
                ccai.check(ctx.iteration % 2 == 1, "odd iteration")
                if ctx.iteration % 2 == 0 then error("even iterations fail") end
              end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("✗ odd iteration") && output.stdout.contains("— ✓ 3 / ✗ 3"), "\(output.stdout)")
        #expect(output.stdout.contains("3× ") && output.stdout.contains("even iterations fail"), "\(output.stdout)")
        #expect(output.stdout.components(separatedBy: "even iterations fail").count == 2, "reported once")
        #expect(output.stdout.contains("iteration_failed...............: 50.00%"))
    }

    @Test func aFailingSetupExitsWithOne() async throws {
        let path = try scenario("""
            return { setup = function() error("no test data") end, run = function() print("ran") end }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"])
        #expect(output.status == 1 && output.stderr.contains("setup failed") && output.stderr.contains("no test data"),
                "\(output.stderr)")
        #expect(!output.stdout.contains("ran"))
    }

    /// `setup`'s data is copied to every VU: a value that cannot be (a function, a coroutine,
    /// a table that contains itself) stops the run, naming where it is, instead of every VU
    /// silently getting nil.
    @Test(arguments: [
        ("{ token = 'x', on_done = function() end }", "cannot convert a function to data (at 'on_done')"),
        ("{ worker = coroutine.create(print) }", "cannot convert a thread to data (at 'worker')"),
        ("(function() local t = {} t.self = t return t end)()", "table contains itself (at 'self')"),
    ])
    func aSetupReturningWhatCannotBeCopiedFailsNamingIt(_ value: String, _ named: String) async throws {
        let path = try scenario("""
            return { setup = function() return \(value) end, run = function(data) print("ran with", data) end }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"])
        #expect(output.status == 1 && output.stderr.contains("setup failed") && output.stderr.contains(named), "\(output.stderr)")
        #expect(!output.stdout.contains("ran with"))
    }

    /// Bad options, in the file or on the command line, are usage errors that name them.
    @Test(arguments: [
        (#"{ vus = 0 }"#, [String](), "options.vus: a whole number from 1"),
        (#"{ duration = "soon" }"#, [], "options.duration: a duration such as"),
        (#"{ stages = {} }"#, [], "options.stages: a list of 1 to 1000"),
        (#"{ stages = { { duration = "1s", target = -1 } } }"#, [], "options.stages[1].target: a whole number from 0"),
        (#"{ stages = { { duration = "1s" } } }"#, [], "options.stages[1]: { duration"),
        (#"{ arrival = { rate = 0, duration = "1s" } }"#, [], "options.arrival.rate: a number of iterations"),
        (#"{ arrival = { rate = 5 } }"#, [], "options.arrival.duration: how long"),
        (#"{ arrival = { rate = 5, duration = "1s", pace = 2 } }"#, [], "options.arrival.pace: unknown field"),
        (#"{ arrival = { rate = 5, duration = "1s", poisson = "yes" } }"#, [], "options.arrival.poisson: a boolean"),
        (#"{ arrival = { rate = 5, duration = "1s" }, iterations = 3 }"#, [], "are different ways to run"),
        (#"{ stages = { { duration = "1s", target = 1 } }, duration = "3s" }"#, [], "are different ways to run"),
        (#"{}"#, ["--segment", "4/3"], "--segment: I/N expected"),
        (#"{ vus = 5, arrival = { rate = 2, duration = "1s", max_vus = 3 } }"#, [], "are more than options.arrival.max_vus (3)"),
        (#"{}"#, ["--timeout", "0"], "--timeout: a duration above 0 expected"),
        (#"{ thresholds = { checks = "rate >= 0x10" } }"#, [], "a number expected after >="),
        (#"{ thresholds = { ["checks{}"] = "rate > 0" } }"#, [], "with a tag at least"),
        (#"{ thresholds = { ["checks{check:a,check:b}"] = "rate > 0" } }"#, [], "the tag check is given twice"),
        (#"{}"#, ["--out", "json=/tmp/a.json", "--out", "json=/tmp/b.json"], "--out json= is given twice"),
        (#"{ thresholds = { latency = "p(95) < 1" } }"#, [], "options.thresholds.latency: no metric named latency"),
        (#"{ thresholds = { checks = "rate is high" } }"#, [], "is not an expression such as"),
        (#"{ thresholds = { checks = "p(95) < 1" } }"#, [], "checks is a rate, its thresholds read rate"),
        (#"{ thresholds = { iterations = "count > many" } }"#, [], "a number expected after >"),
        (#"{ thresholds = { checks = { { threshold = "rate > 0", abort_on_fail = "yes" } } } }"#, [], "abort_on_fail: a boolean"),
        (#"{ vu = 2 }"#, [], "options.vu: unknown option"),
        (#"{ iteratons = 2 }"#, [], "options.iteratons: unknown option (did you mean 'iterations'?)"),
        (#"{ thresholds = { checks = "rate", latency = "p(95) < 1" } }"#, [],
         "error: options.thresholds: 2 thresholds are wrong:\n  options.thresholds.checks: \"rate\" is not an expression"),
        (#"{}"#, ["--duration", "5 minutes"], "--duration: a duration such as"),
        (#"{}"#, ["--vus", "-1"], "--vus expects a whole number"),
        (#"{}"#, ["--timeout", "later"], "--timeout: a duration such as"),
        (#"{ vus = 3, iterations = 2 }"#, [], "3 VUs cannot share 2 iterations"),
        (#"{ timeout = true }"#, [], "options.timeout: a duration such as"),
        (#"{ thresholds = { ["checks{check"] = "rate > 0" } }"#, [], "a sub-metric is written name{tag:value,...}"),
        (#"{ seed = -1 }"#, [], "options.seed: a whole number from 0"),
        (#"{ seed = 1.5 }"#, [], "options.seed: a whole number from 0"),
        (#"{}"#, ["--seed", "lucky"], "--seed: a whole number from 0"),
        (#"{ virtual_time = "yes" }"#, [], "options.virtual_time: a boolean expected, got string"),
        (#"{ start = "tomorrow" }"#, [], "options.start: an ISO 8601 time like 2026-12-07T08:00:00"),
        (#"{ start = 1800000000 }"#, [], "options.start: an ISO 8601 time as a string expected"),
        (#"{ virtual_time = true }"#, ["--loopback"], "options.virtual_time runs the embedded sandbox in the process, and --loopback"),
        (#"{}"#, ["--seed", "9223372036854775808"], "--seed: a whole number from 0"),
    ])
    func badOptionsAreUsageErrors(_ options: String, _ flags: [String], _ message: String) async throws {
        let path = try scenario("return { options = \(options), run = function() end }")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"] + flags)
        #expect(output.status == 2 && output.stderr.contains(message), "\(output.status) \(output.stderr)")
    }

    /// The same seed gives every VU the same `math.random` and `ccai.uuid` draws, run
    /// after run; another seed others; `options.seed` counts when `--seed` is not given,
    /// and a run without either chooses a seed and prints it in the summary. The runs go in
    /// virtual time: on the wall clock which VU takes which of the shared iterations (and
    /// so the draws each iteration sees) depends on the machine's load.
    @Test func theSeedDecidesTheRandomDraws() async throws {
        let path = try scenario("""
            return {
              options = { vus = 2, iterations = 2, seed = 7 },
              run = function(ctx)
                print(string.format("draw %d %d %d %s", ctx.vu, ctx.iteration, math.random(1, 1000000), ccai.uuid()))
              end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        func draws(_ flags: [String]) async throws -> (draws: [String], stdout: String) {
            let output = try await CLI.run(["run", path, "--quiet", "--virtual-time"] + flags)
            #expect(output.status == 0, "\(output.stderr)")
            let lines = output.stdout.split(separator: "\n").filter { $0.hasPrefix("draw ") }.map(String.init).sorted()
            #expect(lines.count == 2, "\(output.stdout)")
            return (lines, output.stdout)
        }
        let first = try await draws(["--seed", "42"])
        #expect(first.stdout.contains(": 42 (replay the run's random draws with --seed 42)"), "\(first.stdout)")
        #expect(try await draws(["--seed", "42"]).draws == first.draws, "the same seed, the same draws")
        #expect(try await draws(["--seed", "43"]).draws != first.draws, "another seed, other draws")
        let fromOptions = try await draws([])
        #expect(fromOptions.stdout.contains(": 7 (replay the run's random draws with --seed 7)"), "options.seed: \(fromOptions.stdout)")
        #expect(try await draws(["--seed", "7"]).draws == fromOptions.draws)
        #expect(Set(first.draws.map { $0.split(separator: " ")[4] }).count == 2, "each VU draws its own uuids: \(first.draws)")

        let unseeded = try scenario("return { options = { vus = 1, iterations = 1 }, run = function() end }")
        defer { try? FileManager.default.removeItem(atPath: unseeded) }
        let chosen = try await CLI.run(["run", unseeded, "--quiet"])
        #expect(chosen.status == 0 && chosen.stdout.contains("     seed....") && chosen.stdout.contains("(replay the run's random draws with --seed "), "\(chosen.stdout)")
    }

    /// A plain chunk runs as before, once; VU flags need a scenario; checks in a plain
    /// chunk print the summary.
    @Test func aPlainChunkRunsOnceAndSummarizesItsChecks() async throws {
        let plain = try scenario(#"print("plain") ccai.check(true, "plain check")"#)
        defer { try? FileManager.default.removeItem(atPath: plain) }
        let output = try await CLI.run(["run", plain, "--quiet"])
        #expect(output.status == 0 && output.stdout.hasPrefix("plain\n"), "\(output.stdout)")
        #expect(output.stdout.contains("✓ plain check") && output.stdout.contains("iterations.....................: 1 "))
        let withVUs = try await CLI.run(["run", plain, "--vus", "3"])
        #expect(withVUs.status == 2 && withVUs.stderr.contains("need a scenario"), "\(withVUs.stderr)")
    }

    /// A predicate's error is raised from `ccai.check`; a predicate that is not a function
    /// is an invalid argument naming it.
    @Test func checkPredicatesAreCheckedThemselves() async throws {
        let path = try scenario("""
            local ok, err = pcall(ccai.check, 1, { ["is one"] = "yes" })
            print(ok, err.code, err.message)
            local raised, message = pcall(ccai.check, 1, { boom = function() error("predicate broke") end })
            print(raised, message)
            print(ccai.check(nil, "nil fails"), ccai.check(0, "zero passes"))
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("false\tinvalid_argument\tbad argument #2 to 'ccai.check' (checks.is one: function expected, got string)"),
                "\(output.stdout)")
        #expect(output.stdout.contains("false\t") && output.stdout.contains("predicate broke"))
        #expect(output.stdout.contains("false\ttrue"))
    }

    /// Thresholds that hold exit 0 and show ✓; one that fails exits 99, shows ✗ with the
    /// value it read, and is named on standard error.
    @Test func thresholdsDecideTheExitStatus() async throws {
        let source = """
            return {
              options = { vus = 2, iterations = 4, thresholds = {
                checks = "rate >= 0.75",
                iterations = { "count == 4", "rate > 0" },
                iteration_duration_seconds = "p(95) < 60",
                vus = "value == 2",
              } },
              run = function(ctx) ccai.check(ctx.iteration < 99, "passes") end,
            }
            """
        let passing = try scenario(source)
        defer { try? FileManager.default.removeItem(atPath: passing) }
        let output = try await CLI.run(["run", passing, "--quiet"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.hasPrefix("\n     thresholds:\n"), "thresholds come first: \(output.stdout)")
        #expect(output.stdout.contains("✓ iterations: count == 4 (count=4)") && output.stdout.contains("✓ vus: value == 2 (value=2)"))
        let failing = try scenario(source.replacingOccurrences(of: "rate >= 0.75", with: "rate == 1")
            .replacingOccurrences(of: "ctx.iteration < 99", with: "ctx.iteration > 99"))
        defer { try? FileManager.default.removeItem(atPath: failing) }
        let failed = try await CLI.run(["run", failing, "--quiet"])
        #expect(failed.status == 99, "\(failed.status) \(failed.stderr)")
        #expect(failed.stdout.contains("✗ checks: rate == 1 (rate=0.00%)"), "\(failed.stdout)")
        #expect(failed.stderr.contains("thresholds failed: checks: rate == 1"))
    }

    /// A threshold with abort_on_fail stops a run meant to last a minute as soon as it
    /// fails: no new iteration starts, the one running gets graceful_stop, the summary
    /// says why, and the exit status is 99.
    @Test func abortOnFailStopsTheRunEarly() async throws {
        let path = try scenario("""
            return {
              options = { vus = 1, duration = "60s", graceful_stop = "5s",
                          thresholds = { checks = { { threshold = "rate > 0.5", abort_on_fail = true } } } },
              run = function() ccai.check(false, "always fails") ccai.sleep(0.05) end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"], timeout: 40)
        #expect(output.status == 99, "\(output.status) \(output.stderr)")
        #expect(output.stdout.contains("the run was aborted when checks: rate > 0.5 failed (abort_on_fail)"), "\(output.stdout)")
        #expect(output.stdout.contains("iteration_failed...............: 0.00%"), "the running iteration finished within graceful_stop")
    }

    /// `--timeout` stops a plain script that never ends, and `options.timeout` a scenario
    /// meant to last a minute: every VU is stopped, the scenario's summary of what ran is
    /// printed, and the exit status is 1.
    @Test func aTimeoutStopsARunThatNeverEnds() async throws {
        let endless = try scenario("while true do ccai.sleep(0.05) end")
        defer { try? FileManager.default.removeItem(atPath: endless) }
        let summary = endless + ".summary.json"
        defer { try? FileManager.default.removeItem(atPath: summary) }
        let plain = try await CLI.run(["run", endless, "--quiet", "--timeout", "1s", "--summary-out", summary], timeout: 40)
        #expect(plain.status == 1 && plain.stderr.contains("the run timed out"), "\(plain.status) \(plain.stderr)")
        #expect(try ScenarioReport.read(summary).snapshot().errors.map(\.message)
                == ["stopped when the run ended (its graceful_stop had passed, it timed out or it was interrupted)"],
                "the plain script's one iteration says why it stopped, not that its Lua state closed")

        let spinning = try scenario("while true do end")
        defer { try? FileManager.default.removeItem(atPath: spinning) }
        let unbudgeted = try await CLI.run(["run", spinning, "--quiet", "--timeout", "1s", "--time-limit", "0",
                                            "--instruction-limit", "0"], timeout: 40)
        #expect(unbudgeted.status == 1 && unbudgeted.stderr.contains("the run timed out"),
                "a loop that never yields stops too: \(unbudgeted.status) \(unbudgeted.stderr)")

        let long = try scenario("""
            return {
              options = { vus = 2, duration = "60s", timeout = "1s" },
              run = function() ccai.sleep(0.05) end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: long) }
        let output = try await CLI.run(["run", long, "--quiet"], timeout: 40)
        #expect(output.status == 1 && output.stderr.contains("the run timed out"), "\(output.status) \(output.stderr)")
        #expect(output.stdout.contains("iterations.....................: "), "the summary of what ran: \(output.stdout)")
    }

    /// Ctrl-C while the VUs are still being made stops making them: the run ends with those
    /// there are, its summary printed, exit 130.
    @Test func anInterruptStopsMakingVUs() async throws {
        let many = try scenario("""
            print("made " .. ccai.env.MARK)
            return { options = { stages = { { duration = "0s", target = 3000 }, { duration = "1m", target = 3000 } } },
                     run = function() ccai.sleep(60) end }
            """)
        defer { try? FileManager.default.removeItem(atPath: many) }
        let (status, output) = try await offThePool { () -> (Int32, String) in
            let process = try ChildProcess(CLI.binary.path, ["run", many, "--env", "MARK=x", "--quiet"], output: .pipe, errors: .null)
            var seen = ""
            while !seen.contains("made x\nmade x\n"), let byte = try process.standardOutput?.read(upToCount: 1), !byte.isEmpty {
                seen += String(decoding: byte, as: UTF8.self)
            }
            kill(process.pid, SIGINT)
            let rest = try process.standardOutput?.readToEnd() ?? Data()
            return (process.wait(), seen + String(decoding: rest, as: UTF8.self))
        }
        let made = output.components(separatedBy: "made x").count - 1
        #expect(status == 130 && made < 3000 && output.contains("vus............................: "), "\(made) made: \(output.suffix(600))")
    }

    /// A scenario whose two VUs each start a chat, print "in chat N" and sit in it.
    private func sittingInChats(gracefulStop: String) throws -> String {
        try scenario("""
            ccai.initialize_chat()
            return {
              options = { vus = 2, duration = "10m", graceful_stop = "\(gracefulStop)" },
              run = function(ctx)
                ccai.chat.start{ menu_id = 7 }
                print("in chat " .. ctx.vu)
                ccai.sleep(600)
              end,
            }
            """)
    }

    /// A run in which vu-1 and vu-2 each start a chat and end it on the platform of
    /// `connection`: it passes only if no chat of theirs was left active.
    private func chatsStartAgain(_ connection: [String]) async throws -> CLI.Output {
        let again = try scenario("""
            ccai.initialize_chat()
            return {
              options = { vus = 2, iterations = 2, thresholds = { iteration_failed = "rate == 0" } },
              run = function() ccai.chat.start{ menu_id = 7 } ccai.chat.end_chat() end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: again) }
        return try await CLI.run(["run", again, "--quiet"] + connection)
    }

    /// Ctrl-C (or SIGTERM) while VUs sit in chats on a served sandbox: no new iteration
    /// starts, the running ones get graceful_stop, the chats are ended (the same end users
    /// can start chats again at once), the summary of what ran is printed, and the exit
    /// status is 130 (143).
    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func anInterruptedRunEndsItsChatsAndSummarizes(_ signalNumber: Int32, _ expected: Int32) async throws {
        let server = try await SandboxCommandTests.Server.start([])
        defer { server.terminate() }
        let connection = ["--host", server.url, "--company-key", "dev-key", "--company-secret", "dev-secret"]
        let sitting = try sittingInChats(gracefulStop: "1s")
        defer { try? FileManager.default.removeItem(atPath: sitting) }
        let (status, output) = try await offThePool { () -> (Int32, String) in
            let process = try ChildProcess(CLI.binary.path, ["run", sitting, "--quiet"] + connection, output: .pipe, errors: .null)
            var seen = ""
            while !(seen.contains("in chat 1") && seen.contains("in chat 2")),
                let byte = try process.standardOutput?.read(upToCount: 1), !byte.isEmpty {
                seen += String(decoding: byte, as: UTF8.self)
            }
            kill(process.pid, signalNumber)
            let rest = try process.standardOutput?.readToEnd() ?? Data()
            return (process.wait(), seen + String(decoding: rest, as: UTF8.self))
        }
        #expect(status == expected, "\(output)")
        #expect(output.contains("iterations.....................: 2 "), "the two iterations that ran: \(output)")
        let next = try await chatsStartAgain(connection)
        #expect(next.status == 0, "vu-1 and vu-2 start chats again: \(next.stdout) \(next.stderr)")
    }

    /// A second Ctrl-C stops the iterations at once instead of waiting out their
    /// graceful_stop, and the run still writes what it measured (the summary, the JSON
    /// lines, JUnit, the summary file) and ends its open chats; it once exited at once with
    /// nothing written and the chats left active (issue 38, item 5).
    @Test func aSecondInterruptStopsAtOnceAndStillWritesWhatRan() async throws {
        let server = try await SandboxCommandTests.Server.start([])
        defer { server.terminate() }
        let connection = ["--host", server.url, "--company-key", "dev-key", "--company-secret", "dev-secret"]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("second-interrupt-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sitting = try sittingInChats(gracefulStop: "10m")
        defer { try? FileManager.default.removeItem(atPath: sitting) }
        let outputs = ["--out", "json=\(folder)/points.json", "--out", "junit=\(folder)/junit.xml", "--summary-out", "\(folder)/summary.json"]
        let (status, output) = try await offThePool { () -> (Int32, String) in
            let process = try ChildProcess(CLI.binary.path, ["run", sitting, "--quiet"] + connection + outputs, output: .pipe,
                                           errors: .pipe)
            var seen = ""
            while !(seen.contains("in chat 1") && seen.contains("in chat 2")),
                let byte = try process.standardOutput?.read(upToCount: 1), !byte.isEmpty {
                seen += String(decoding: byte, as: UTF8.self)
            }
            kill(process.pid, SIGINT)
            var told = ""
            while !told.contains("graceful_stop"), let byte = try process.standardError?.read(upToCount: 1), !byte.isEmpty {
                told += String(decoding: byte, as: UTF8.self)
            }
            kill(process.pid, SIGINT)
            let rest = try process.standardOutput?.readToEnd() ?? Data()
            return (process.wait(), seen + String(decoding: rest, as: UTF8.self))
        }
        #expect(status == 130, "\(output)")
        #expect(output.contains("iterations.....................: "), "the summary of what ran: \(output)")
        let points = try String(contentsOfFile: folder + "/points.json", encoding: .utf8)
        #expect(points.contains(#""type":"Summary""#), "the JSON lines end with their summary")
        #expect(!FileManager.default.fileExists(atPath: folder + "/points.json.partial"))
        let summary = try String(contentsOfFile: folder + "/summary.json", encoding: .utf8)
        #expect(summary.contains("interrupted"), "the cut-off iterations fail as interrupted: \(summary.prefix(400))")
        #expect(FileManager.default.fileExists(atPath: folder + "/junit.xml"))
        let next = try await chatsStartAgain(connection)
        #expect(next.status == 0, "the chats were ended: vu-1 and vu-2 start chats again: \(next.stdout) \(next.stderr)")
    }

    /// The scenario's own metrics: each kind summarized, thresholds on them and on tagged
    /// sub-metrics, and declarations that cannot be.
    @Test func customMetricsAreSummarizedAndThresholded() async throws {
        let path = try scenario("""
            local wait = ccai.metrics.trend("queue_wait_seconds")
            local sent = ccai.metrics.counter("messages_sent")
            local answered = ccai.metrics.rate("answered")
            local depth = ccai.metrics.gauge("queue_depth")
            for _, bad in ipairs({ { "trend", "checks" }, { "rate", "messages_sent" }, { "gauge", "1st" } }) do
              local ok, err = pcall(ccai.metrics[bad[1]], bad[2])
              print("declare " .. bad[2] .. ": " .. tostring(ok) .. " " .. err.message)
            end
            return {
              options = { vus = 1, iterations = 4, thresholds = {
                ["queue_wait_seconds{queue:billing}"] = "max < 1",
                ["queue_wait_seconds{queue:sales}"] = "max < 1",
                messages_sent = "count == 8",
                answered = "rate == 0.5",
                queue_depth = "value == 4",
              } },
              run = function(ctx)
                wait:add(ctx.iteration / 10, { queue = "billing" })
                wait:add(5, { queue = "sales" })
                sent:add(2)
                answered:add(ctx.iteration % 2 == 1)
                depth:add(ctx.iteration)
              end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"])
        #expect(output.status == 99, "only the sales sub-metric fails: \(output.stdout) \(output.stderr)")
        #expect(output.stdout.contains("declare checks: false") && output.stdout.contains("checks is a built-in metric"))
        #expect(output.stdout.contains("messages_sent is already a counter"))
        #expect(output.stdout.contains("declare 1st: false") && output.stdout.contains("a metric name is a letter"))
        #expect(output.stdout.contains("✓ queue_wait_seconds{queue:billing}: max < 1 (max=400ms)"), "\(output.stdout)")
        #expect(output.stdout.contains("✗ queue_wait_seconds{queue:sales}: max < 1 (max=5s)"))
        #expect(output.stdout.contains("✓ messages_sent: count == 8") && output.stdout.contains("✓ answered: rate == 0.5"))
        #expect(output.stdout.contains("✓ queue_depth: value == 4"))
        #expect(output.stdout.contains("answered.......................: 50.00% ✓ 2  ✗ 2"))
        #expect(output.stderr.contains("thresholds failed: queue_wait_seconds{queue:sales}: max < 1"))
        let undeclared = try scenario(#"return { options = { thresholds = { latency = "avg < 1" } }, run = function() end }"#)
        defer { try? FileManager.default.removeItem(atPath: undeclared) }
        let refused = try await CLI.run(["run", undeclared, "--quiet"])
        #expect(refused.status == 2 && refused.stderr.contains("declared with ccai.metrics: none"), "\(refused.stderr)")
    }

    /// `ccai.data.csv` and `ccai.data.json` read the script's folder once per run; each VU
    /// reads the rows it needs, which are read-only; bad files are clear errors.
    @Test func dataFilesFeedTheVUs() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("data-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "\u{FEFF}name,utterance\r\nAna,\"Hello, I need help\"\r\nBob,\"He said \"\"hi\"\"\"\n"
            .write(to: folder.appendingPathComponent("customers.csv"), atomically: true, encoding: .utf8)
        try #"{ "greeting": "Welcome" }"#.write(to: folder.appendingPathComponent("bot.json"), atomically: true, encoding: .utf8)
        try "name,age\nAna\n".write(to: folder.appendingPathComponent("short.csv"), atomically: true, encoding: .utf8)
        try "name\n\"Ana\n".write(to: folder.appendingPathComponent("open.csv"), atomically: true, encoding: .utf8)
        try "name\nA\"na\n".write(to: folder.appendingPathComponent("stray.csv"), atomically: true, encoding: .utf8)
        let script = folder.appendingPathComponent("bots.lua")
        try """
            local customers = ccai.data.csv("customers.csv")
            local bot = ccai.data.json("bot.json")
            for _, bad in ipairs({ "short.csv", "open.csv", "stray.csv", "../customers.csv", "none.csv" }) do
              local ok, err = pcall(ccai.data.csv, bad)
              print("bad " .. bad .. ": " .. err.message)
            end
            return {
              options = { vus = 2, iterations = 2 },
              run = function(ctx)
                local me = customers[ctx.vu]
                print(string.format("vu %d %s says %s to %s (%d rows)", ctx.vu, me.name, me.utterance, bot.greeting, #customers))
                local ok = pcall(function() customers[1] = {} end)
                ccai.check(not ok, "rows are read-only")
              end,
            }
            """.write(to: script, atomically: true, encoding: .utf8)
        let output = try await CLI.run(["run", script.path, "--quiet"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("vu 1 Ana says Hello, I need help to Welcome (2 rows)"), "\(output.stdout)")
        #expect(output.stdout.contains(#"vu 2 Bob says He said "hi" to Welcome (2 rows)"#))
        #expect(output.stdout.contains("bad short.csv: short.csv: row 1 has 1 fields, the header 2"))
        #expect(output.stdout.contains("bad open.csv: open.csv:3: a quoted field is not closed"), "\(output.stdout)")
        #expect(output.stdout.contains("bad stray.csv: stray.csv:2: a quote inside an unquoted field"))
        #expect(output.stdout.contains("bad ../customers.csv: ") && output.stdout.contains("paths stay inside the script's folder"))
        #expect(output.stdout.contains("bad none.csv: ") && output.stdout.contains("no such file"))
        #expect(output.stdout.contains("✓ rows are read-only"))
    }

    /// What a review found: a huge trend value, a gauge's last sample across tag sets, an
    /// abort_on_fail threshold before any sample, a teardown error after the summary,
    /// and the bounds on what checks keep.
    @Test func edgesOfTheSummaryHold() async throws {
        let path = try scenario("""
            local wait = ccai.metrics.trend("wait_seconds")
            local depth = ccai.metrics.gauge("depth")
            return {
              options = { thresholds = { depth = "value == 1",
                                         checks = { { threshold = "rate > 0.5", abort_on_fail = true } } } },
              run = function()
                wait:add(1e300)
                depth:add(5, { q = "b" })
                depth:add(1, { q = "a" })
                ccai.sleep(1.5)   -- past the first abort check, with no check recorded yet
                ccai.check(true, "late check")
                local ok, err = pcall(ccai.check, true, ("x"):rep(300))
                print("long name: " .. err.message)
              end,
              teardown = function() error("teardown broke") end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"])
        #expect(output.status == 1, "teardown failed after the summary: \(output.status) \(output.stderr)")
        #expect(output.stderr.contains("teardown failed") && output.stderr.contains("teardown broke"))
        #expect(output.stdout.contains("✓ depth: value == 1 (value=1)"), "the newest sample: \(output.stdout)")
        #expect(output.stdout.contains("✓ checks: rate > 0.5") && !output.stdout.contains("aborted"))
        #expect(output.stdout.contains("wait_seconds...................: avg=1e+300s"))
        #expect(output.stdout.contains("long name: ") && output.stdout.contains("at most 256 bytes"))
    }
}
