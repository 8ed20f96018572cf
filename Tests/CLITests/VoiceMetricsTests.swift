import Foundation
import Testing

/// The voice metrics of a run against the embedded sandbox, in virtual time: an answered
/// call, one the customer hangs up while it waits, a scheduled callback, and a call the
/// iteration leaves waiting, in the summary, its JSON, the JSON points and the HTML.
@Suite struct VoiceMetricsTests {
    private static let sandbox = """
        return {
          company = { name = "Voice", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
          menus = {
            { id = 1, name = "Phone", channels = { voice_call = { instant = true } } },
            { id = 2, name = "Unstaffed", channels = { voice_call = { instant = true } } },
            { id = 3, name = "Callbacks", channels = { voice_call = { schedule = true,
              scheduling = { slot_minutes = 5, calls_per_slot = 1, days_ahead = 1, ring_seconds = 60 } } } },
          },
          agents = { { name = "Ada", menus = { 1, 3 }, max_chats = 1 } },   -- one call at a time
        }
        """

    private static let reaches = """
        ccai.initialize_call()
        local function reaches(id, status)
          ccai.call.wait_for("call_received", { timeout = 3600, match = function(c) return c.id == id and c.status == status end })
        end

        """

    private static let scenario = reaches + """
        return {
          options = { vus = 1, iterations = 1, virtual_time = true, start = "2026-12-07T09:01:00Z",
                      thresholds = { ["call_abandoned{type:instant}"] = "rate < 0.9", ["call_wait_seconds{type:scheduled}"] = "p(95) < 60",
                                     call_handle_seconds = "max < 60" } },
          run = function()
            local served = ccai.call.start_instant_call{ menu_id = 1 }
            reaches(served.id, "connected")
            ccai.sleep(30)
            ccai.call.end_call()
            reaches(served.id, "ended")
            local left = ccai.call.start_instant_call{ menu_id = 2 }
            ccai.sleep(20)                                   -- nobody takes it, and the customer hangs up
            ccai.call.end_call()
            reaches(left.id, "ended")
            local slot = ccai.call.get_scheduled_time_slots{ menu_id = 3 }[1]
            local booking = ccai.call.create_scheduled_call{ menu_id = 3, phone_number = "+14155550123", schedule_time = slot }
            ccai.call.wait_for("incoming_call_event", { timeout = 3600 })
            ccai.call.accept_incoming_call{ call_id = booking.id }
            reaches(booking.id, "connected")
            ccai.sleep(45)
            ccai.call.end_call()
            reaches(booking.id, "ended")
            ccai.call.start_instant_call{ menu_id = 2 }     -- still waiting when the iteration ends
          end,
        }
        """

    @Test func callsAreMeasuredByType() async throws {
        let sandbox = try CLI.script(Self.sandbox), path = try CLI.script(Self.scenario)
        let folder = FileManager.default.temporaryDirectory
        let (summary, points, html) = (folder.appendingPathComponent("voice-\(UUID().uuidString).json").path,
                                       folder.appendingPathComponent("voice-\(UUID().uuidString).jsonl").path,
                                       folder.appendingPathComponent("voice-\(UUID().uuidString).html").path)
        defer { for file in [sandbox, path, summary, points, html] { try? FileManager.default.removeItem(atPath: file) } }
        let output = try await CLI.run(["run", path, "--quiet", "--sandbox", sandbox, "--summary-out", summary, "--out", "json=\(points)",
                                        "--out", "html=\(html)"])
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        let lines = output.stdout.split(separator: "\n").map(String.init)
        func row(_ name: String) -> String? { lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name + "..") } }
        #expect(row("call_abandoned")?.contains("50.00% ✓ 2  ✗ 2") == true, "two of four calls were left: \(output.stdout)")
        #expect(row("{type:instant}")?.contains("66.67% ✓ 2  ✗ 1") == true, "the threshold's sub-metric: \(output.stdout)")
        #expect(output.stdout.contains("✓ call_abandoned{type:instant}: rate < 0.9"), "\(output.stdout)")
        #expect(row("call_handle_seconds")?.contains("min=30s") == true && row("call_handle_seconds")?.contains("max=45s") == true,
                "\(output.stdout)")
        for name in ["call_wait_seconds", "call_setup_seconds"] { #expect(row(name) != nil, "\(name): \(output.stdout)") }

        let series = try Self.series(in: summary)
        #expect(series("call_handle_seconds", "instant")?["sum"] as? Double == 30, "the answered call, 30 s with Ada")
        #expect(series("call_handle_seconds", "scheduled")?["sum"] as? Double == 45, "the callback, 45 s")
        #expect(series("call_wait_seconds", "scheduled")?["count"] as? Int == 1 && series("call_wait_seconds", "instant")?["count"] as? Int == 1)
        #expect(series("call_setup_seconds", "scheduled")?["count"] as? Int == 1)
        #expect(series("call_abandoned", "instant")?["trues"] as? Int == 2 && series("call_abandoned", "scheduled")?["trues"] as? Int == 0)

        let samples = try String(contentsOfFile: points, encoding: .utf8)
        #expect(samples.contains(#""data":{"tags":{"type":"scheduled"}"#), "the JSON points carry the tag")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        for name in ["call_wait_seconds", "call_setup_seconds", "call_handle_seconds", "call_abandoned"] {
            #expect(samples.contains(#""metric":"\#(name)","type":"Point""#), "\(name) in the JSON points")
            #expect(page.contains(name), "\(name) in the HTML report")
        }
    }

    /// The second caller waits 20 s while the only agent talks to the first, in virtual
    /// time: exactly that wait and setup, from the platform's own events.
    @Test func aCallerWaitsWhileTheAgentIsBusy() async throws {
        let sandbox = try CLI.script(Self.sandbox), path = try CLI.script(Self.reaches + """
            return {
              options = { vus = 2, iterations = 2, virtual_time = true, start = "2026-12-07T09:01:00Z" },
              run = function(ctx)
                if ctx.vu == 2 then ccai.sleep(10) end            -- calls while Ada talks to VU 1
                local call = ccai.call.start_instant_call{ menu_id = 1 }
                reaches(call.id, "connected")
                ccai.sleep(ctx.vu == 1 and 30 or 5)
                ccai.call.end_call()
                reaches(call.id, "ended")
              end,
            }
            """)
        let summary = FileManager.default.temporaryDirectory.appendingPathComponent("voice-\(UUID().uuidString).json").path
        defer { for file in [sandbox, path, summary] { try? FileManager.default.removeItem(atPath: file) } }
        let output = try await CLI.run(["run", path, "--quiet", "--sandbox", sandbox, "--summary-out", summary])
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        let series = try Self.series(in: summary)
        let wait = series("call_wait_seconds", "instant"), setup = series("call_setup_seconds", "instant")
        #expect(wait?["count"] as? Int == 2 && wait?["sum"] as? Double == 20 && wait?["max"] as? Double == 20, "\(String(describing: wait))")
        #expect(setup?["sum"] as? Double == 20, "\(String(describing: setup))")
        #expect(series("call_handle_seconds", "instant")?["sum"] as? Double == 35)
        #expect(series("call_abandoned", "instant")?["trues"] as? Int == 0)
    }

    /// A caller still waiting when the run's end cuts the iteration off was abandoned.
    @Test func aCallCutOffByTheRunsEndIsAbandoned() async throws {
        let sandbox = try CLI.script(Self.sandbox), path = try CLI.script("""
            ccai.initialize_call()
            return {
              options = { vus = 1, duration = "10s", graceful_stop = "1s", virtual_time = true, start = "2026-12-07T09:01:00Z" },
              run = function() ccai.call.start_instant_call{ menu_id = 2 } ccai.sleep(3600) end,
            }
            """)
        let summary = FileManager.default.temporaryDirectory.appendingPathComponent("voice-\(UUID().uuidString).json").path
        defer { for file in [sandbox, path, summary] { try? FileManager.default.removeItem(atPath: file) } }
        let output = try await CLI.run(["run", path, "--quiet", "--sandbox", sandbox, "--summary-out", summary])
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        let abandoned = try Self.series(in: summary)("call_abandoned", "instant")
        #expect(abandoned?["count"] as? Int == 1 && abandoned?["trues"] as? Int == 1, "\(output.stdout)")
    }

    /// The series of a `--summary-out` file, by metric and `type` tag.
    private static func series(in summary: String) throws -> (String, String) -> [String: Any]? {
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [String: Any]
        let metrics = (report?["metrics"] as? [[String: Any]]) ?? []
        return { metric, type in
            let all = metrics.first { $0["name"] as? String == metric }?["series"] as? [[String: Any]]
            return all?.first { ($0["tags"] as? [String: String]) == ["type": type] }
        }
    }
}
