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
