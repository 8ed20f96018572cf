import Foundation
import Testing

/// `ccai run` with the Apps API and its webhooks: the example bot test (examples/apps/)
/// against the embedded sandbox, its webhooks received and verified by `--webhook-listen`.
@Suite struct AppsRunTests {
    @Test(.timeLimit(.minutes(2))) func theAppsBotTestPassesThroughSignedWebhooks() async throws {
        let output = try await CLI.run(["run", "examples/apps/bot.lua", "--webhook-listen", "127.0.0.1:0", "--quiet"], timeout: 110)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        for check in ["chat_created arrives signed", "the agent greets", "the agent answers the question", "chat_ended says finished"] {
            #expect(output.stdout.contains("✓ \(check)"), "\(check): \(output.stdout)")
        }
        #expect(output.stdout.contains("checks") && output.stdout.contains("✓ 30"), "\(output.stdout)")
    }

    /// Without --webhook-listen the script has no events to wait for: its waits time out,
    /// the checks fail and the run says so (exit 99), rather than hanging.
    @Test(.timeLimit(.minutes(2))) func withoutAReceiverTheWaitsTimeOutAndTheChecksFail() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("wait.lua")
        try """
            return { options = { vus = 1, iterations = 1, thresholds = { checks = "rate == 1" } },
              run = function()
                local user = ccai.apps.upsert_end_user{ identifier = "no-receiver" }
                local chat = ccai.apps.start_chat{ end_user_id = user.id, menu_id = 8 }
                local ok, err = pcall(ccai.apps.wait_for, "chat_created", { timeout = 0.5 })
                ccai.check(ok, "a webhook arrived")
                print("wait_for: " .. tostring(err.code))
                ccai.apps.finish_chat(chat.id)
              end }
            """.write(to: script, atomically: true, encoding: .utf8)
        let output = try await CLI.run(["run", script.path, "--quiet"], timeout: 60)
        #expect(output.status == 99, "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("wait_for: timeout"), "\(output.stdout)")
    }

    @Test(arguments: [
        (["--webhook-listen", "nowhere"], "--webhook-listen expects HOST:PORT"),
        (["--webhook-secret-file", "f"], "--webhook-secret-file goes with --webhook-listen"),
        (["--webhook-listen", "127.0.0.1:0", "--virtual-time"], "--webhook-listen receives its webhooks over sockets"),
        (["--webhook-listen", "127.0.0.1:0", "--host", "h", "--company-key", "k", "--company-secret", "s"],
         "needs its webhook secrets"),
    ])
    func webhookListenUsageErrors(_ arguments: [String], _ message: String) async throws {
        let output = try await CLI.run(["run", "x.lua"] + arguments, environment: ["CCAI_WEBHOOK_SECRETS": ""])
        #expect(output.status == 2)
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }
}
