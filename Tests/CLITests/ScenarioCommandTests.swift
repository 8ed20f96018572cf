import Foundation
import Testing

/// Scenarios through the real executable (LUA-API section 6): VUs, their end users and
/// tokens, shared iterations, durations, setup and teardown, checks, the summary, and the
/// exit statuses of bad options and failed setups.
@Suite struct ScenarioCommandTests {
    private func scenario(_ source: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString).lua")
        try source.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

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
        #expect(output.stdout.contains("vus............................: 3"))
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

    /// Bad options, in the file or on the command line, are usage errors that name them.
    @Test(arguments: [
        (#"{ vus = 0 }"#, [String](), "options.vus: a whole number from 1"),
        (#"{ duration = "soon" }"#, [], "options.duration: a duration such as"),
        (#"{ vus = 2, thresholds = {} }"#, [], "options.thresholds: not supported"),
        (#"{ vu = 2 }"#, [], "options.vu: unknown option"),
        (#"{}"#, ["--duration", "5 minutes"], "--duration: a duration such as"),
        (#"{}"#, ["--vus", "-1"], "--vus expects a whole number"),
    ])
    func badOptionsAreUsageErrors(_ options: String, _ flags: [String], _ message: String) async throws {
        let path = try scenario("return { options = \(options), run = function() end }")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"] + flags)
        #expect(output.status == 2 && output.stderr.contains(message), "\(output.status) \(output.stderr)")
    }

    /// A plain chunk runs as before, once; VU flags need a scenario; checks in a plain
    /// chunk print the summary.
    @Test func aPlainChunkRunsOnceAndSummarizesItsChecks() async throws {
        let plain = try scenario(#"print("plain") ccai.check(true, "plain check")"#)
        defer { try? FileManager.default.removeItem(atPath: plain) }
        let output = try await CLI.run(["run", plain, "--quiet"])
        #expect(output.status == 0 && output.stdout.hasPrefix("plain\n"), "\(output.stdout)")
        #expect(output.stdout.contains("✓ plain check") && output.stdout.contains("iterations.....................: 0 "))
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
}
