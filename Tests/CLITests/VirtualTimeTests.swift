import Foundation
import Testing

/// `ccai run --virtual-time` (LUA-API 14): the run goes on a simulated clock that jumps
/// to the next deadline when nothing is left to do, and replays alike from a seed.
@Suite struct VirtualTimeTests {
    private func script(_ source: String) throws -> String { try CLI.script(source) }

    /// A 24-hour sleep returns as soon as nothing else is awake: `ccai.now()`,
    /// `os.time()` and `os.date()` read the simulated clock, which `--start` sets (without
    /// an offset, in the company's time zone: the built-in company is in Los Angeles).
    @Test func aDeadlineThatNeverComesIsNotWaitedFor() async throws {
        let path = try script("""
            local now, time = ccai.now(), os.time()
            print("start", os.date("!%Y-%m-%dT%H:%M:%S"))
            ccai.sleep(86400)
            print("slept", ccai.now() - now, os.time() - time, os.date("!%Y-%m-%dT%H:%M:%S"))
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet", "--virtual-time", "--start", "2026-12-07T08:00"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("start\t2026-12-07T16:00:00"), "\(output.stdout)")
        #expect(output.stdout.contains("slept\t86400.0\t86400\t2026-12-08T16:00:00"), "\(output.stdout)")
    }

    /// Issue 38: a scenario's VU asleep for days costs next to nothing. Its gauges were
    /// sampled every simulated second (259,211 `--out json` points and 3.6 s a day); while
    /// nothing is recorded and they stay as they were, their samples space out to a minute.
    @Test func aScenarioAsleepForDaysSamplesItsGaugesSparingly() async throws {
        let path = try script("""
            return { options = { vus = 1, iterations = 1 },
                     run = function() ccai.sleep(3 * 86400) end }
            """)
        let points = path + ".points.json"
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: points)
        }
        let output = try await CLI.run(["run", path, "--quiet", "--virtual-time", "--out", "json=" + points])
        #expect(output.status == 0, "\(output.stderr)")
        let lines = try String(contentsOfFile: points, encoding: .utf8).split(separator: "\n")
        let vus = lines.filter { $0.contains(#""metric":"vus""#) }.count
        #expect(vus > 3 * 1_440 / 2 && vus < 3 * 1_440 + 100, "about one sample of vus a simulated minute over 3 days: \(vus)")
        #expect(lines.count < 20_000, "\(lines.count) points")
    }

    /// While a request, an agent's answer or a transcript's rendering is under way the
    /// clock stands still, even with a task asleep for an hour beside them: a chat whose
    /// agents answer at once takes no simulated time at all, and its PDF none either.
    @Test func aRunWithWorkInFlightNeverJumpsTheClock() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("virtual-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try script("""
            local sleeper = ccai.spawn(function() ccai.sleep(3600) return ccai.now() end)
            local begun = ccai.now()
            ccai.initialize_chat()
            ccai.chat.start{ menu_id = 7 }
            ccai.chat.send_message("Where is my order?")
            ccai.chat.wait_for("messages_received", { timeout = 60, match = function(messages)
              return messages[1].sender.type ~= "end_user" end })
            ccai.chat.end_chat()
            ccai.chat.download_chat_transcript{ to = "chat.pdf" }
            print("chat took", ccai.now() - begun)
            print("sleeper woke after", sleeper:wait() - begun)
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet", "--virtual-time", "--out-dir", folder.path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("chat took\t0.0\n"), "\(output.stdout)")
        #expect(output.stdout.contains("sleeper woke after\t3600.0\n"), "\(output.stdout)")
        let pdf = try Data(contentsOf: folder.appendingPathComponent("chat.pdf"))
        #expect(pdf.starts(with: Data("%PDF".utf8)))
    }

    /// Issue 34, item 9: shifts run on the simulated clock, in the company's time zone, and
    /// the configuration takes its plan from `--env`. A customer who comes at 07:55 waits
    /// until the first shift starts at 08:00 and is answered then; one who comes at 16:00,
    /// when that shift has ended, waits for the late shift at 17:00.
    @Test func agentsWorkTheirShiftsInVirtualTime() async throws {
        let configuration = try script("""
            local agents = {}
            for number = 1, tonumber(env.EARLY) do
              agents[#agents + 1] = { name = "Early " .. number, menus = { 1 }, shifts = { { from = "08:00", to = "16:00" } } }
            end
            agents[#agents + 1] = { name = "Late", menus = { 1 }, shifts = { { from = "17:00", to = "01:00" } } }
            return { company = { name = "Acme", languages = { "en" }, time_zone = "America/New_York", key = "dev-key",
                                 secret = "dev-secret" },
                     menus = { { id = 1, name = "Help", channels = { chat = {} } } }, agents = agents }
            """)
        let path = try script("""
            ccai.initialize_chat()
            local function answered(after)
              ccai.sleep(after)
              local begun = ccai.now()
              local chat = ccai.chat.start{ menu_id = 1 }
              local batch = ccai.chat.wait_for("messages_received", { timeout = 7200, match = function(messages)
                return messages[1].sender.type == "agent" end })
              print(os.date("!%H:%M", begun), "answered by " .. batch[1].sender.name .. " after", ccai.now() - begun)
              ccai.chat.end_chat()
            end
            answered(0)          -- 07:55
            answered(8 * 3600)   -- 16:00
            """)
        defer { for file in [configuration, path] { try? FileManager.default.removeItem(atPath: file) } }
        let output = try await CLI.run(["run", path, "--sandbox", configuration, "--env", "EARLY=1", "--quiet", "--virtual-time",
                                        "--start", "2026-12-07T07:55"])
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("12:55\tanswered by Early 1 after\t300.0\n"), "\(output.stdout)")
        #expect(output.stdout.contains("21:00\tanswered by Late after\t3600.0\n"), "\(output.stdout)")
    }

    /// The simulated clock stands still while a script spins; the per-run budget keeps
    /// the real time and stops it.
    @Test func aSpinningScriptIsStoppedByItsRealTimeBudget() async throws {
        let path = try script("local n = 0 while true do n = n + 1 end")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet", "--virtual-time", "--time-limit", "0.5"])
        #expect(output.status == 1, "\(output.stderr)")
        #expect(output.stderr.contains("more than 0.5 seconds without yielding"), "\(output.stderr)")
    }

    /// Billing (queue 1) is open 09:00-17:00 on weekdays in the company's time zone: a
    /// chat ten seconds before nine is refused, ten seconds after is queued, and so at five.
    @Test func businessHoursOpenAndCloseAtTheirTimes() async throws {
        let path = try script("""
            ccai.initialize_chat()
            local function try()
              local ok, chat = pcall(ccai.chat.start, { menu_id = 1 })
              print(os.date("!%H:%M:%S"), ok and chat.status or chat.code)
              if ok then ccai.chat.end_chat() end
            end
            try()
            ccai.sleep(20)
            try()
            ccai.sleep(8 * 3600 - 20)
            try()
            ccai.sleep(20)
            try()
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet", "--virtual-time", "--start", "2026-12-07T08:59:50-08:00"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "16:59:50\tconflict\n17:00:10\tqueued\n00:59:50\tqueued\n01:00:10\tconflict\n", "\(output.stdout)")
    }

    /// Random think times, a chat each: the same seed gives byte-identical summaries
    /// (simulated times included), another seed another one.
    @Test func theSameSeedGivesTheSameSummary() async throws {
        let path = try script("""
            ccai.initialize_chat()
            return {
              options = { vus = 3, iterations = 9, virtual_time = true, start = "2026-12-07T10:00" },
              run = function()
                ccai.sleep(math.random() * 600)
                ccai.chat.start{ menu_id = 8 }
                ccai.chat.send_message("hello " .. ccai.uuid())
                ccai.chat.wait_for("messages_received", { timeout = 60 })
                ccai.sleep(math.random(1, 300))
                ccai.chat.end_chat()
              end,
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        func summary(seed: Int) async throws -> (text: String, file: Data) {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("summary-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            let output = try await CLI.run(["run", path, "--quiet", "--seed", String(seed), "--summary-out", file.path])
            #expect(output.status == 0, "\(output.stderr)")
            return (output.stdout, try Data(contentsOf: file))
        }
        let first = try await summary(seed: 7)
        #expect(first.text.contains("virtual time"), "options.virtual_time started the run again in virtual time: \(first.text)")
        #expect(first.text.contains("iteration_duration_seconds"), "\(first.text)")
        let again = try await summary(seed: 7)
        #expect(again.text == first.text)
        #expect(again.file == first.file)
        let other = try await summary(seed: 8)
        #expect(other.text != first.text)
    }

    /// Erlang C: with `c` agents, arrival rate `lambda` and handle rate `mu` (per second),
    /// the probability to wait, and the share answered within `seconds`.
    static func erlangC(agents c: Int, lambda: Double, mu: Double, within seconds: Double) -> (waits: Double, serviceLevel: Double) {
        let load = lambda / mu
        var term = 1.0, sum = 0.0
        for k in 0..<c {
            if k > 0 { term *= load / Double(k) }
            sum += term
        }
        let top = term * load / Double(c) * Double(c) / (Double(c) - load)
        let waits = top / (sum + top)
        return (waits, 1 - waits * exp(-(Double(c) * mu - lambda) * seconds))
    }

    @Test func erlangCOfAWorkedExample() {
        let (waits, level) = Self.erlangC(agents: 3, lambda: 1.0 / 30, mu: 1.0 / 60, within: 20)
        #expect(abs(waits - 4.0 / 9) < 1e-9)
        #expect(abs(level - (1 - 4.0 / 9 * exp(-1.0 / 3))) < 1e-9)
    }

    /// An M/M/c queue simulated for 12 hours (Poisson arrivals at 2 a minute, exponential
    /// chats of a minute on average, 3 agents of one chat each: 2 Erlangs) lands within a
    /// few points of Erlang C's service level (68% within 20 s) and near its mean wait
    /// (27 s). The seed is fixed: the run, and so the test, gives the same figures every time.
    @Test func anMMcQueueMatchesErlangC() async throws {
        let sandbox = try script("""
            local always = { mon = true, tue = true, wed = true, thu = true, fri = true, sat = true, sun = true }
            return {
              company = { name = "Queueing", support_email = "help@queueing.test", languages = { "en" },
                          time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
              limits = { requests_per_second = 100000, burst = 1000000, chats_per_hour = 1000000,
                         sign_ins_per_minute = 100000, stored_bytes_per_hour = 1073741824 },
              menus = { { id = 1, name = { en = "Queue" }, position = 1, hours = always, channels = { chat = {} } } },
              agents = {
                { name = "A1", menus = { 1 }, max_chats = 1 },
                { name = "A2", menus = { 1 }, max_chats = 1 },
                { name = "A3", menus = { 1 }, max_chats = 1 },
              },
            }
            """)
        let scenario = try script("""
            ccai.initialize_chat()
            local within = ccai.metrics.rate("answered_within_20s")
            return {
              options = {
                virtual_time = true, start = "2026-12-07T00:00:00Z", graceful_stop = "1d",
                arrival = { rate = 2, time_unit = "1m", duration = "12h", max_vus = 200, poisson = true },
              },
              run = function()
                local begun = ccai.now()
                local chat = ccai.chat.start{ menu_id = 1 }
                ccai.chat.wait_for("messages_received", { timeout = 86400, match = function(messages)
                  for _, m in ipairs(messages) do
                    if m.chat_id == chat.id and m.sender.type == "agent" then return true end
                  end
                  return false
                end })
                within:add(ccai.now() - begun <= 20)
                ccai.sleep(-math.log(1 - math.random()) * 60)
                ccai.chat.end_chat()
              end,
            }
            """)
        let summary = FileManager.default.temporaryDirectory.appendingPathComponent("mmc-\(UUID().uuidString).json")
        defer { [sandbox, scenario].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        defer { try? FileManager.default.removeItem(at: summary) }
        let output = try await CLI.run(["run", scenario, "--quiet", "--seed", "1", "--sandbox", sandbox, "--summary-out", summary.path],
                                       timeout: 600, niced: true)
        #expect(output.status == 0, "\(output.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: summary)) as? [String: Any]
        let metrics = (report?["metrics"] as? [[String: Any]]) ?? []
        func value(_ metric: String, _ key: String) -> Double? {
            (metrics.first { $0["name"] as? String == metric }?["values"] as? [String: Any])?[key] as? Double
        }
        let expected = Self.erlangC(agents: 3, lambda: 1.0 / 30, mu: 1.0 / 60, within: 20)
        let level = try #require(value("answered_within_20s", "rate"))
        let meanWait = try #require(value("chat_wait_seconds", "avg"))
        #expect(abs(level - expected.serviceLevel) < 0.05, "simulated \(level), Erlang C \(expected.serviceLevel)")
        let erlangMeanWait = expected.waits / (3.0 / 60 - 1.0 / 30)
        #expect(abs(meanWait - erlangMeanWait) / erlangMeanWait < 0.2, "simulated \(meanWait) s, Erlang C \(erlangMeanWait) s")
    }

    /// examples/staffing at a fifth of its traffic: the day runs from 08:00 to 19:30 in
    /// virtual time, Support closes at 18:00 and deflects the evening's customers to Nova,
    /// the others are taken, talk and rate their chats, and the thresholds hold.
    @Test func theStaffingExampleRunsItsDay() async throws {
        let output = try await CLI.run(["run", "examples/staffing/day.lua", "--sandbox", "examples/staffing/sandbox.lua",
                                        "--quiet", "--seed", "3", "--env", "PEAK=24"], timeout: 600, niced: true)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("2026-12-07T16:00:00Z to 2026-12-08T03:30:00Z"), "\(output.stdout)")
        #expect(output.stdout.contains("✓ Nova answered after hours"), "\(output.stdout)")
        #expect(output.stdout.contains("✓ the chat was rated"), "\(output.stdout)")
        let deflected = output.stdout.split(separator: "\n").first { $0.contains("deflected_after_hours") }
        #expect(deflected.map { !$0.contains("✓ 0 ") } == true, "some customers came after 18:00: \(output.stdout)")
    }

    /// Virtual time is the embedded sandbox's: with `--host` (whose platform keeps its own
    /// time) or `--loopback` (sockets it cannot wait for) the run says why it cannot.
    @Test(arguments: [
        (["--virtual-time", "--host", "http://127.0.0.1:9", "--company-key", "k", "--company-secret", "s"],
         "--virtual-time moves the embedded sandbox's clock; a platform at --host keeps its own time"),
        (["--start", "2026-12-07T08:00", "--host", "http://127.0.0.1:9", "--company-key", "k", "--company-secret", "s"],
         "--start moves the embedded sandbox's clock"),
        (["--virtual-time", "--loopback"], "--loopback reaches it over sockets"),
        (["--start", "noon"], "--start: an ISO 8601 time like 2026-12-07T08:00:00"),
    ])
    func virtualTimeIsTheEmbeddedSandboxs(_ flags: [String], _ message: String) async throws {
        let path = try script("print('ran')")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try await CLI.run(["run", path, "--quiet"] + flags)
        #expect(output.status == 2 && output.stderr.contains(message), "\(output.status) \(output.stderr)")
        #expect(!output.stdout.contains("ran"))
    }
}
