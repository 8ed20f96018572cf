import Foundation
import Testing

/// `ccai plugins check` and `ccai run --plugins`.
@Suite struct PluginCommandTests {
    private func folder(_ files: [String: String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cli-plugins-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, source) in files { try source.write(toFile: path + "/" + name, atomically: true, encoding: .utf8) }
        return path
    }

    @Test func checkReportsEveryPlugin() async throws {
        let good = try await CLI.run(["plugins", "check", "examples/plugins"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.contains("ok    night-shift 1.0.0") && good.stdout.contains("1 loaded, 0 failed"))
        let bad = try folder(["broken.lua": "return {", "fine.lua": "return { name = 'fine' }"])
        let checked = try await CLI.run(["plugins", "check", bad])
        #expect(checked.status == 1)
        #expect(checked.stdout.contains("FAIL") && checked.stdout.contains("broken.lua") && checked.stdout.contains("1 loaded, 1 failed"))
        #expect(try await CLI.run(["plugins", "check"]).status == 2)
        #expect(try await CLI.run(["plugins", "verify", "x"]).status == 2)
    }

    /// A failing plugin is reported once; a plugin file can be checked on its own; a
    /// `--plugins` folder that does not exist is a usage error, not a silent run without it.
    @Test func pluginFailuresAreReportedOnceAndFoldersMustExist() async throws {
        let plugins = try folder(["broken.lua": "return {", "fine.lua": "return { name = 'fine' }"])
        let checked = try await CLI.run(["plugins", "check", plugins])
        #expect(checked.status == 1)
        let mentions = (checked.stdout + checked.stderr).components(separatedBy: "unexpected symbol").count - 1
        #expect(mentions == 1, "the error once: \(checked.stdout) \(checked.stderr)")
        let typo = try folder(["typo.lua": "return { name = 'typo', deflecton = function() end }"])
        let flagged = try await CLI.run(["plugins", "check", typo])
        #expect(flagged.status == 1 && flagged.stdout.contains("unknown field 'deflecton' (did you mean 'deflection'?)"),
                "\(flagged.stdout)")
        let file = try await CLI.run(["plugins", "check", plugins + "/fine.lua"])
        #expect(file.status == 0 && file.stdout.contains("1 loaded, 0 failed"), "\(file.stdout) \(file.stderr)")
        let lenient = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--plugins", plugins])
        #expect(lenient.status == 0, "a broken plugin is reported and the run goes on: \(lenient.stderr)")
        let strict = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--plugins", plugins, "--strict-plugins"])
        #expect(strict.status == 1 && strict.stderr.contains("broken.lua"), "\(strict.stderr)")
        let missing = try await CLI.run(["run", "Tests/Scenarios/company.lua", "--plugins", plugins + "/no-such-folder"])
        #expect(missing.status == 2 && missing.stderr.contains("there is no folder"), "\(missing.stderr)")
    }

    /// The review's file write: a plugin's on_load staged a video under a name that climbed
    /// out of the temporary folder, and `plugins check` ran it. A plugin has no
    /// `ccai.chat` at all now (docs/plugins.md "What a plugin can reach").
    @Test func checkingAPluginWritesNothingOutside() async throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("pwned-\(UUID().uuidString).txt").path
        let plugins = try folder(["writer.lua": """
            return { name = "writer", on_load = function(ctx)
              assert(ccai.chat == nil and ccai.auth == nil, "a plugin reaches no chat and no sign-in")
              local ok, err = pcall(function() return ccai.chat.send_message({ videos = { { data = "x",
                mime_type = "text/plain", name = "../../../../..\(target)" } } }) end)
              assert(not ok and tostring(err):find("attempt to index a nil value"), tostring(err))
            end }
            """])
        let checked = try await CLI.run(["plugins", "check", plugins])
        #expect(checked.status == 0, "\(checked.stdout) \(checked.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func runUsesThePluginsItIsGiven() async throws {
        let plugins = try folder(["always_phone.lua": """
            return { name = "always-phone", deflection = function() return { action = "phone", number = "+15550100" } end }
            """])
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("use-plugins-\(UUID().uuidString).lua")
        try """
            local menus = ccai.queue_menu.get{}
            local decision = ccai.plugins.evaluate_deflection(menus[1], { channel = "voice_call" })
            assert(decision.action == "phone" and decision.number == "+15550100" and decision.plugin == "always-phone")
            assert(ccai.plugins.list()[1].name == "always-phone")
            """.write(to: script, atomically: true, encoding: .utf8)
        let output = try await CLI.run(["run", script.path, "--plugins", plugins])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("INFO  plugins from \(plugins): always_phone.lua (loaded)"), "which folder, and what from it: \(output.stderr)")
        let alone = try await CLI.run(["run", script.path, "--log-level", "debug"])
        #expect(alone.stderr.contains("no plugins: no folder \(script.deletingLastPathComponent().path)/plugins beside the script"),
                "a script run without its plugins says so: \(alone.stderr)")
    }

    /// A hook that raises is counted in `plugin_errors` (tagged plugin and hook), which a
    /// threshold can hold; the iteration goes on with the default answer, unless
    /// `--strict-plugins` (or `options.strict_plugins`) makes the failure fail it.
    @Test func failingHooksAreCountedAndStrictPluginsFailTheirIteration() async throws {
        let plugins = try folder(["broken.lua": """
            return { name = "broken", deflection = function() error("no answer today") end }
            """])
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("hooks-\(UUID().uuidString).lua")
        try """
            return {
              options = { iterations = 3, thresholds = { plugin_errors = "count == 0" } },
              run = function()
                local menus = ccai.queue_menu.get{}
                local decision = ccai.plugins.evaluate_deflection(menus[1], { channel = "chat" })
                ccai.check(decision.plugin == nil, "the default answer stands")
              end,
            }
            """.write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let lenient = try await CLI.run(["run", script.path, "--plugins", plugins, "--quiet"])
        #expect(lenient.status == 99, "the threshold on plugin_errors fails: \(lenient.stdout) \(lenient.stderr)")
        #expect(lenient.stdout.contains("✗ plugin_errors: count == 0 (count=3)"), "\(lenient.stdout)")
        #expect(lenient.stdout.contains("✓ the default answer stands"), "\(lenient.stdout)")
        #expect(lenient.stdout.contains("iteration_failed") && lenient.stdout.contains("0.00% ✓ 0  ✗ 3"), "\(lenient.stdout)")
        let strict = try await CLI.run(["run", script.path, "--plugins", plugins, "--quiet", "--strict-plugins"])
        #expect(strict.status == 99, "\(strict.stderr)")
        #expect(strict.stdout.contains("3× plugin 'broken' failed in its deflection hook"), "\(strict.stdout)")
        #expect(strict.stdout.contains("100.00% ✓ 3  ✗ 0"), "every iteration failed: \(strict.stdout)")
    }
}
