import CCAIScripting
import CPangoCairo
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import TestSupport
import Testing

/// The executors beyond shared iterations, the built-in chat metrics, and what a run
/// writes: JSON lines, JUnit, the summary file, the HTML report, the progress line, and
/// segments merged back into the whole run.
@Suite struct ScenarioOutputTests {
    private let scratch = ScratchFolder("outputs")

    private func file(_ name: String, _ text: String? = nil) throws -> String { try scratch.file(name, text) }

    private func summary(_ path: String) throws -> ScenarioMetrics.Snapshot {
        try ScenarioReport.read(path).snapshot()
    }

    /// `stages` ramp the VUs taking part up to each target and down again; a VU above the
    /// target waits, and the `vus` gauge follows.
    @Test func stagesRampTheVUs() async throws {
        let script = try file("ramp.lua", """
            return {
              options = { stages = { { duration = "1s", target = 3 }, { duration = "2.5s", target = 3 }, { duration = "0.5s", target = 0 } } },
              run = function(ctx) print("vu " .. ctx.vu) ccai.sleep(0.05) end,
            }
            """)
        let out = try file("ramp.json")
        let output = try await CLI.run(["run", script, "--quiet", "--summary-out", out])
        #expect(output.status == 0, "\(output.stderr)")
        let vus = Set(output.stdout.split(separator: "\n").filter { $0.hasPrefix("vu ") })
        #expect(vus == ["vu 1", "vu 2", "vu 3"], "\(vus)")
        let snapshot = try summary(out)
        #expect(snapshot.metric(.vus).total.max == 3 && snapshot.iterations > 20, "\(snapshot.iterations)")
    }

    /// The open model: iterations start at the rate whatever their length, on free VUs
    /// of a pool of at most max_vus; an arrival that finds none free is dropped and counted.
    @Test func arrivalsStartAtTheirRateAndDropWhatFindsNoVU() async throws {
        let script = try file("arrive.lua", """
            return {
              options = { arrival = { rate = 20, time_unit = "1s", duration = "1s", max_vus = 2 } },
              run = function(ctx) print("vu " .. ctx.vu) ccai.sleep(0.3) end,
            }
            """)
        let out = try file("arrive.json")
        // In virtual time, so that how fast the machine makes VUs changes nothing.
        let output = try await CLI.run(["run", script, "--quiet", "--virtual-time", "--summary-out", out])
        #expect(output.status == 0, "\(output.stderr)")
        let snapshot = try summary(out)
        let dropped = snapshot.metric(.droppedIterations)
        #expect(snapshot.iterations + Int(dropped.total.sum) == 20, "\(snapshot.iterations) ran, \(dropped.total.sum) dropped")
        // Two VUs at 0.3 s an iteration take about one arrival in three (a VU freed at the
        // moment of an arrival may or may not take it); every other one finds no free VU.
        #expect((5...8).contains(snapshot.iterations), "\(snapshot.iterations)")
        #expect(dropped.matching(["reason": "no_free_vu"]).sum == Double(20 - snapshot.iterations), "\(dropped.series)")
        #expect(Set(output.stdout.split(separator: "\n").filter { $0.hasPrefix("vu ") }) == ["vu 1", "vu 2"])
        // A rate the run cannot keep up with: it still ends at its duration, and what it
        // could not start counts as dropped, as the run ending.
        let fast = try file("fast.lua", """
            return { options = { arrival = { rate = 100000, duration = "1s", max_vus = 2 } }, run = function() end }
            """)
        let fastOut = try file("fast.json")
        let hurried = try await CLI.run(["run", fast, "--quiet", "--summary-out", fastOut])
        #expect(hurried.status == 0, "\(hurried.stderr)")
        let counted = try summary(fastOut)
        let arrivals = counted.iterations + Int(counted.metric(.droppedIterations).total.sum)
        #expect(arrivals == 100_000, "\(counted.iterations) ran, \(arrivals) arrivals in all")
    }

    /// Every chat records its start, wait, first response and round trips, every SDK call
    /// its duration by service, method and status, and a rating its value; the 80/20
    /// service level is a threshold on chat_wait_seconds.
    @Test func chatsRecordTheBuiltInMetrics() async throws {
        let script = try file("chats.lua", """
            ccai.initialize_chat()
            return {
              options = { vus = 2, iterations = 4, thresholds = {
                chat_wait_seconds = "p(80) < 20", chat_first_response_seconds = "p(95) < 10",
                ["sdk_call_seconds{method:start}"] = "max < 10", message_round_trip_seconds = "count >= 0",
              } },
              run = function(ctx)
                local chat = ccai.chat.start{ menu_id = 7 }
                -- The answer to a message comes after it: Nova's greeting may come later than
                -- the first question, and it is not that question's answer.
                local function ask(text)
                  local sent = ccai.chat.send_message(text)
                  ccai.chat.wait_for("messages_received", { timeout = 15, match = function(m)
                    return m[1].sender.type == "virtual_agent" and m[1].sequence > sent.sequence
                  end })
                end
                ask("when are you open?")
                ask("and refunds?")
                ccai.chat.end_chat()
                -- Overflow's agent takes the chat; its CSAT flow takes the rating.
                local overflow = ccai.chat.start{ menu_id = 8 }
                ccai.chat.end_chat()
                ccai.chat.start_post_session()
                ccai.chat.ready_post_session()
                ccai.rate.rate{ communication_id = overflow.id, communication_type = "chats", rating = ctx.vu + 2 }
              end,
            }
            """)
        let out = try file("chats.json")
        let output = try await CLI.run(["run", script, "--quiet", "--summary-out", out])
        #expect(output.status == 2 && output.stderr.contains("message_round_trip_seconds is a trend"), "\(output.stderr)")
        try String(contentsOfFile: script).replacingOccurrences(of: "message_round_trip_seconds = \"count >= 0\"",
                                                                 with: "message_round_trip_seconds = \"p(95) < 10\"")
            .write(toFile: script, atomically: true, encoding: .utf8)
        let rerun = try await CLI.run(["run", script, "--quiet", "--summary-out", out])
        #expect(rerun.status == 0, "\(rerun.stderr)\(rerun.stdout)")
        let snapshot = try summary(out)
        #expect(snapshot.metric(.chatStart).total.count == 8)
        for metric in [BuiltInMetric.chatWait, .chatFirstResponse] {
            // Overflow's chats may end before its agent takes or answers them.
            #expect((4...8).contains(snapshot.metric(metric).total.count), "\(metric.rawValue)")
        }
        #expect(snapshot.metric(.messageRoundTrip).total.count == 8)
        let ratings = snapshot.metric(.csatRating).total
        #expect(ratings.count == 4 && ratings.min >= 3 && ratings.max <= 4)
        let calls = snapshot.metric(.sdkCall)
        #expect(calls.matching(["service": "chat", "method": "start", "status": "ok"]).count == 8)
        #expect(calls.matching(["method": "send_message"]).count == 8)
        #expect(calls.matching(["service": "rate", "method": "rate"]).count == 4)
        #expect(rerun.stdout.contains("{method:start}"), "a sub-metric a threshold names is in the summary")
    }

    /// A VU is one end user: becoming another while its chat is in progress is refused
    /// with what to do instead; once the chat has ended, the next call signs in as the
    /// new one.
    @Test func changingIdentityMidChatIsRefusedWithTheWay() async throws {
        let script = try file("identity.lua", """
            ccai.initialize_chat()
            return {
              run = function(ctx)
                ccai.chat.start{ menu_id = 8 }
                local ok, err = pcall(ccai.end_user.update_end_user, { identifier = "someone-else" })
                assert(not ok and err.code == "conflict", tostring(err))
                print(err.message)
                ccai.chat.send_message("still me")
                ccai.chat.end_chat()
                ccai.end_user.update_end_user{ identifier = "someone-else" }
                ccai.auth.update_auth_token(nil)
                ccai.company.get()
                print("now " .. ccai.end_user.get_end_user().identifier)
              end,
            }
            """)
        let output = try await CLI.run(["run", script, "--quiet"])
        #expect(output.status == 0 && output.stdout.contains("is in progress as vu-1: end it (ccai.chat.end_chat())"),
                "\(output.stdout)\(output.stderr)")
        #expect(output.stdout.contains("now someone-else") && output.stdout.contains("iteration_failed...............: 0.00%"))
    }

    /// An error that every VU logs alike is written once, and counted at the end; info
    /// lines are all written.
    @Test func errorsManyVUsLogAlikeAreWrittenOnceWithACount() async throws {
        let script = try file("errors.lua", """
            return {
              options = { vus = 6, iterations = 12 },
              run = function(ctx) ccai.log.error("the desk is closed") ccai.log.info("iteration", { vu = ctx.vu }) end,
            }
            """)
        let output = try await CLI.run(["run", script])
        #expect(output.status == 0, "\(output.stderr)")
        let lines = output.stderr.split(separator: "\n")
        #expect(lines.filter { $0.contains("ERROR the desk is closed") && !$0.contains("more times") }.count == 1, "\(output.stderr)")
        #expect(lines.contains { $0.hasPrefix("11 more times: ERROR the desk is closed [") }, "\(output.stderr)")
        #expect(lines.filter { $0.contains("INFO  iteration") }.count == 12)
    }

    /// `--out json` writes k6's lines (a metric's Metric line before its first Point, a
    /// Summary last) and `--out junit` a testcase per threshold and per check.
    @Test func jsonLinesAndJUnitReadBack() async throws {
        let script = try file("outputs.lua", """
            return {
              options = { vus = 2, iterations = 6, thresholds = { checks = "rate > 0.9", iterations = "count == 6" } },
              run = function(ctx) ccai.check(ctx.iteration == 1, "first <of> its VU") ccai.check(true, "always") end,
            }
            """)
        let json = try file("points.jsonl"), junit = try file("junit.xml")
        let output = try await CLI.run(["run", script, "--quiet", "--out", "json=\(json)", "--out", "junit=\(junit)"])
        #expect(output.status == 99, "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: json + ".partial"), "the lines took the file's name")
        let lines = try String(contentsOfFile: json).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        var described = Set<String>()
        var iterationPoints = 0
        for line in lines.dropLast() {
            let metric = try #require(line["metric"] as? String)
            if line["type"] as? String == "Metric" {
                #expect(described.insert(metric).inserted, "one Metric line per metric")
            } else {
                #expect(line["type"] as? String == "Point" && described.contains(metric), "\(metric)'s Metric line came first")
                let data = try #require(line["data"] as? [String: Any])
                #expect(data["time"] is String && data["value"] is NSNumber && data["tags"] is [String: Any])
                if metric == "iterations" { iterationPoints += 1 }
            }
        }
        #expect(iterationPoints == 6)
        let summary = try #require(lines.last)
        #expect(summary["type"] as? String == "Summary" && (summary["data"] as? [String: Any])?["format"] as? String == "ccai-scenario-summary")
        let xml = try String(contentsOfFile: junit)
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 4)
        #expect(xml.contains("<testsuites name=") && xml.contains("tests=\"4\" failures=\"2\""), "\(xml)")
        #expect(xml.contains("name=\"first &lt;of&gt; its VU\"><failure message=\"4 of 6 failed (33.33% passed)\">"), "\(xml)")
        #expect(xml.contains("name=\"checks: rate &gt; 0.9\"><failure message=\"rate &gt; 0.9: got 66.67%\">"), "\(xml)")
        #expect(try XMLDocumentCheck.isWellFormed(xml))
    }

    /// A run whose setup fails (exit 1) still leaves CI its JUnit file: one test in error
    /// with the message; the samples file of an earlier run stays as it was.
    @Test func aFailedSetupLeavesAJUnitError() async throws {
        let script = try file("setup-fails.lua", """
            return { setup = function() error("no <fixtures>") end, run = function() end }
            """)
        let junit = try file("setup-junit.xml"), json = try file("earlier.jsonl")
        try "an earlier run's samples\n".write(toFile: json, atomically: true, encoding: .utf8)
        let output = try await CLI.run(["run", script, "--quiet", "--out", "junit=\(junit)", "--out", "json=\(json)"])
        #expect(try String(contentsOfFile: json) == "an earlier run's samples\n")
        #expect(!FileManager.default.fileExists(atPath: json + ".partial"))
        #expect(output.status == 1 && output.stderr.contains("setup failed"), "\(output.stderr)")
        let xml = try String(contentsOfFile: junit)
        #expect(xml.contains("errors=\"1\"") && xml.contains("<error message=\"setup failed: ") && xml.contains("no &lt;fixtures&gt;"), "\(xml)")
        #expect(try XMLDocumentCheck.isWellFormed(xml))
    }

    /// The slices 1/3, 2/3 and 3/3 of a run, as three processes against one served
    /// sandbox at once, merged: the same counts as the whole run; the merge evaluates the
    /// thresholds again (exit 99 when one fails) and refuses a slice given twice.
    @Test func segmentsMergeIntoTheWholeRun() async throws {
        let server = try await SandboxCommandTests.Server.start([])
        defer { server.terminate() }
        let script = try file("segments.lua", """
            return {
              options = { vus = 5, iterations = 17, thresholds = { checks = "rate == 1", ["sdk_call_seconds{method:get}"] = "count == 17" } },
              run = function(ctx)
                ccai.company.get()
                ccai.check(ccai.end_user.get_end_user().identifier == "vu-" .. ctx.vu, "its own end user")
              end,
            }
            """)
        let host = ["--host", server.url, "--company-key", "dev-key", "--company-secret", "dev-secret"]
        let whole = try file("whole.json")
        let single = try await CLI.run(["run", script, "--quiet", "--summary-out", whole] + host)
        #expect(single.status == 2 && single.stderr.contains("its thresholds read avg"), "count is not a trend's: \(single.stderr)")
        try String(contentsOfFile: script).replacingOccurrences(of: "\"count == 17\"", with: "\"max < 10\"")
            .write(toFile: script, atomically: true, encoding: .utf8)
        let rerun = try await CLI.run(["run", script, "--quiet", "--summary-out", whole] + host)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let parts = try (1...3).map { try file("part\($0).json") }
        let runs = try await withThrowingTaskGroup(of: CLI.Output.self) { group in
            for (index, part) in parts.enumerated() {
                group.addTask { try await CLI.run(["run", script, "--quiet", "--segment", "\(index + 1)/3", "--summary-out", part] + host) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for run in runs { #expect(run.status == 0, "\(run.stderr)") }
        let mergedFile = try file("merged.json")
        let merged = try await CLI.run(["report", "merge"] + parts + ["--summary-out", mergedFile])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout.contains("iterations.....................: 17 "), "\(merged.stdout)")
        let together = try summary(mergedFile), alone = try summary(whole)
        #expect(together.iterations == 17 && alone.iterations == 17)
        #expect(together.checks == alone.checks)
        #expect(together.metric(.sdkCall).matching(["method": "get"]).count == alone.metric(.sdkCall).matching(["method": "get"]).count)
        let twice = try await CLI.run(["report", "merge", parts[0], parts[1], parts[0]])
        #expect(twice.status == 1 && twice.stderr.contains("segment 1/3 is already in the merge"), "\(twice.stderr)")
        let partial = try await CLI.run(["report", "merge", parts[0], parts[1]])
        #expect(partial.status == 1 && partial.stderr.contains("segments 3/3 are not in the merge"), "\(partial.stderr)")
        let allowed = try await CLI.run(["report", "merge", parts[0], parts[1], "--partial", "--quiet"])
        #expect(allowed.status == 0 && allowed.stderr.contains("(--partial)"), "\(allowed.stderr)")
        let empty = try await CLI.run(["run", script, "--quiet", "--segment", "6/6"] + host)
        #expect(empty.status == 2 && empty.stderr.contains("5 VUs make at most 5 segments"), "\(empty.stderr)")
        #expect(together.metric(.vus).total.max == 5, "the segments' VUs add up")
        let failing = try file("failing.json", try String(contentsOfFile: parts[0])
            .replacingOccurrences(of: "\"threshold\" : \"rate == 1\"", with: "\"threshold\" : \"rate < 1\""))
        let refused = try await CLI.run(["report", "merge", failing, parts[1]])
        #expect(refused.status == 1 && refused.stderr.contains("thresholds differ"), "\(refused.stderr)")
        let alsoFailing = try file("failing2.json", try String(contentsOfFile: parts[1])
            .replacingOccurrences(of: "\"threshold\" : \"rate == 1\"", with: "\"threshold\" : \"rate < 1\""))
        let failed = try await CLI.run(["report", "merge", failing, alsoFailing, "--partial"])
        #expect(failed.status == 99 && failed.stderr.contains("thresholds failed: checks: rate < 1"), "\(failed.stderr)")
    }

    /// `--out html` is one page with no outside asset; headless Chromium renders it, and
    /// the screenshot shows the report's header band, not an error page.
    @Test func theHTMLReportRendersInAHeadlessBrowser() async throws {
        let script = try file("html.lua", """
            ccai.initialize_chat()
            return {
              options = { vus = 2, duration = "2s", thresholds = { checks = "rate > 0.5" } },
              run = function(ctx)
                ccai.chat.start{ menu_id = 7 }
                ccai.chat.send_message("<b>hello</b>")
                ccai.check(pcall(ccai.chat.wait_for, "messages_received", { timeout = 10 }), "answered")
                ccai.chat.end_chat()
                ccai.sleep(0.2)
              end,
            }
            """)
        let page = try file("report.html")
        let output = try await CLI.run(["run", script, "--quiet", "--out", "html=\(page)"])
        #expect(output.status == 0, "\(output.stderr)")
        let html = try String(contentsOfFile: page)
        #expect(html.contains("<svg") && html.contains("Message round trip") && !html.contains("<script"))
        #expect(!html.contains("src=\"http") && !html.contains("href=\"http"), "no outside asset")
        let shot = try file("report.png")
        _ = try await runTool("/usr/bin/chromium", ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                                    "--window-size=1200,900", "--screenshot=\(shot)", "file://\(page)"])
        let surface = try #require(cairo_image_surface_create_from_png(shot))
        defer { cairo_surface_destroy(surface) }
        #expect(cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS)
        #expect(cairo_image_surface_get_width(surface) == 1200)
        cairo_surface_flush(surface)
        let data = try #require(cairo_image_surface_get_data(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let offset = y * stride + x * 4
            return (Int(data[offset + 2]), Int(data[offset + 1]), Int(data[offset]))
        }
        let header = HTMLReport.headerColour
        for (x, y) in [(4, 4), (1190, 30), (600, 55)] {
            #expect(pixel(x, y) == (header.red, header.green, header.blue), "the header band at \(x),\(y): \(pixel(x, y))")
        }
        let background = pixel(4, 300)
        #expect(background != (header.red, header.green, header.blue) && background.0 > 200, "the page below it: \(background)")
    }

    /// On a terminal the progress line is redrawn in place, in colour; elsewhere it is a
    /// plain line; `--quiet` and `NO_COLOR` are honoured.
    @Test func theProgressLineOnATerminalAndOff() async throws {
        let script = try file("progress.lua", """
            return { options = { vus = 2, duration = "2.5s" }, run = function() ccai.check(true, "fine") ccai.sleep(0.1) end }
            """)
        let command = "\(CLI.binary.path) run \(script) > /dev/null"
        let terminal = try await runTool("/usr/bin/env", ["-u", "NO_COLOR", "TERM=xterm", "/usr/bin/script", "-q", "-e", "-c", command, "/dev/null"])
        #expect(terminal.contains("\r\u{1B}[Krunning "), "\(terminal.debugDescription)")
        #expect(terminal.contains("vus 2/2") && terminal.contains("\u{1B}[32mchecks 100.00%\u{1B}[0m"))
        let plain = try await runTool("/usr/bin/env", ["TERM=xterm", "NO_COLOR=1", "/usr/bin/script", "-q", "-e", "-c", command, "/dev/null"])
        #expect(plain.contains("\r\u{1B}[Krunning ") && !plain.contains("\u{1B}[32m"), "\(plain.debugDescription)")
        let logged = try await CLI.run(["run", script])
        let lines = logged.stderr.split(separator: "\n").filter { $0.hasPrefix("running ") }
        #expect(lines.count >= 2 && !logged.stderr.contains("\r") && !logged.stderr.contains("\u{1B}["), "\(logged.stderr)")
        let quiet = try await CLI.run(["run", script, "--quiet"])
        #expect(!quiet.stderr.contains("running "), "\(quiet.stderr)")
    }
}

/// Whether a document parses as XML (Foundation's parser).
enum XMLDocumentCheck {
    static func isWellFormed(_ text: String) throws -> Bool {
        XMLParser(data: Data(text.utf8)).parse()
    }
}
