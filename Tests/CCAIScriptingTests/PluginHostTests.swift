import CCAIKit
import CCAISandbox
import CCAIScripting
import CCAIWire
import Foundation
import LuaRuntime
import Testing
import TestSupport
import Timekeeping

@Suite struct PluginHostTests {
    /// A folder of plugin files for one test.
    /// A plugin folder whose every write moves the file's modification time a second past
    /// the last one's, so that a rewrite is seen as one however fast it comes.
    final class Folder {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plugins-\(UUID().uuidString)").path
        private var lastModified = Date()

        init(_ files: [String: String]) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for (name, source) in files { try write(name, source) }
        }

        func write(_ name: String, _ source: String) throws {
            let file = URL(fileURLWithPath: path).appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try source.write(to: file, atomically: true, encoding: .utf8)
            lastModified += 1
            try FileManager.default.setAttributes([.modificationDate: lastModified], ofItemAtPath: file.path)
        }

        func remove(_ name: String) throws { try FileManager.default.removeItem(atPath: path + "/" + name) }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    let billing = QueueMenu(id: 1, name: "Billing", channels: Channels(chat: ChatChannel(enabled: true, deflected: false)))

    private func host(_ folder: Folder, logger: CapturingLogger = CapturingLogger()) -> PluginHost {
        PluginHost(directories: [folder.path], runner: ScriptRunner(logger: logger))
    }

    @Test func hooksRunByPriorityAndTheFirstAnswerWins() async throws {
        let folder = try Folder([
            "a_low.lua": #"return { name = "low", priority = 1, deflection = function() return { action = "phone", number = "+1555" } end }"#,
            "b_high.lua": #"return { name = "high", priority = 5, deflection = function(menu, ctx) if menu.id == 1 then return { action = "redirect", menu_id = 7, message = ctx.note } end end }"#,
            "c_silent.lua": #"return { name = "silent", priority = 9, config = { night = 7 }, deflection = function(menu, ctx) if menu.id == 3 then return { action = "message", text = tostring(ctx.config.night) } end end }"#,
        ])
        let host = host(folder)
        let list = await host.load()
        #expect(list.map(\.name) == ["silent", "high", "low"])
        let decision = await host.evaluateDeflection(menu: billing, channel: "chat", context: ["note": "night desk"])
        #expect(decision == DeflectionDecision(action: "redirect", menuId: 7, message: "night desk", plugin: "high"))
        let other = await host.evaluateDeflection(menu: QueueMenu(id: 2), channel: "chat", context: [:])
        #expect(other.action == "phone" && other.plugin == "low")
        let configured = await host.evaluateDeflection(menu: QueueMenu(id: 3), channel: "chat", context: [:])
        #expect(configured.text == "7" && configured.plugin == "silent", "ctx.config is the plugin's config")
    }

    @Test func withoutAnAnswerTheSDKDefaultApplies() async throws {
        let host = host(try Folder([:]))
        #expect(await host.evaluateDeflection(menu: billing, channel: "chat", context: [:]).action == "allow")
        let closed = QueueMenu(id: 1, settings: [QueueMenuSetting(afterHours: .init(message: .init(text: "Closed")))],
                               channels: Channels(chat: ChatChannel(enabled: false, deflected: true, deflectedReason: "after_hours")))
        #expect(await host.evaluateDeflection(menu: closed, channel: "chat", context: [:])
            == DeflectionDecision(action: "message", text: "Closed"))
        var redirected = closed
        redirected.redirectionExtra = QueueMenuRedirection(menuId: 7, deflectionType: .afterHourDeflection, message: "Closed")
        #expect(await host.evaluateDeflection(menu: redirected, channel: "chat", context: [:])
            == DeflectionDecision(action: "redirect", menuId: 7, message: "Closed"))
    }

    @Test func aFailingPluginIsIsolated() async throws {
        let folder = try Folder([
            "broken.lua": #"return { name = "broken", priority = 9, deflection = function() error("no database") end }"#,
            "looping.lua": #"return { name = "looping", priority = 8, deflection = function() while true do end end }"#,
            "invalid.lua": #"return { name = "invalid", priority = 7, deflection = function() return { action = "teleport" } end }"#,
            "fine.lua": #"return { name = "fine", deflection = function() return { action = "allow", message = "ok" } end }"#,
        ])
        let logger = CapturingLogger()
        // A small instruction budget, which the loop exhausts long before the 10 s of wall
        // clock even on a loaded machine.
        let host = PluginHost(directories: [folder.path],
                              runner: ScriptRunner(limits: LuaLimits(instructions: 5_000_000), logger: logger))
        await host.load()
        let decision = await host.evaluateDeflection(menu: billing, channel: "chat", context: [:])
        #expect(decision.plugin == "fine")
        let errors = Dictionary(uniqueKeysWithValues: await host.list().map { ($0.name, $0.errors) })
        #expect(errors["broken"]?.first?.contains("broken.lua:1: no database") == true)
        #expect(errors["looping"]?.first?.contains("instruction limit exceeded") == true)
        #expect(errors["invalid"]?.first?.contains("action teleport") == true)
        #expect(logger.records.contains { $0.level == .error && $0.message.contains("plugin 'broken' failed") })
    }

    /// Hooks that spin on every thread Swift's cooperative pool has, while a sandbox in the
    /// same process serves an end user: the end user signs in and starts a chat while the
    /// hooks still spin (they run on ``LuaThreads``, not on the pool the sandbox needs).
    /// The hooks spin until the manual clock moves; should the sandbox be starved anyway, a
    /// watchdog thread moves it after 60 s so the test fails instead of hanging.
    @Test(.timeLimit(.minutes(2)))
    func spinningHooksLeaveTheSandboxServing() async throws {
        let start = Date(timeIntervalSince1970: 1_796_061_600)  // a Monday, 10:00 at the built-in company
        let clock = ManualClock(start)
        let logger = CapturingLogger()
        var runner = ScriptRunner(limits: LuaLimits(instructions: 0, seconds: 30), logger: logger)
        runner.clock = clock
        let folder = try Folder(["spin.lua": """
            return { name = "spin", deflection = function()
              print("spinning")
              local began = ccai.now()
              while ccai.now() < began + 1 do end
              return { action = "message", text = "done" }
            end }
            """])
        let spinners = max(2, ProcessInfo.processInfo.activeProcessorCount)
        let hosts = (0..<spinners).map { _ in PluginHost(directories: [folder.path], runner: runner) }
        for host in hosts { await host.load() }
        let hooks = hosts.map { host in
            Task { await host.evaluateDeflection(menu: billing, channel: "chat", context: [:]) }
        }
        let watchdog = DispatchSemaphore(value: 0)
        Thread {
            if watchdog.wait(timeout: .now() + 60) == .timedOut { clock.advance(by: 10) }
        }.start()
        #expect(await eventually { logger.messages.filter { $0.contains("spinning") }.count == spinners })
        let sandbox = try Sandbox(configuration: .builtIn, clock: clock)
        let client = InProcessClient(sandbox)
        let token = try await client.signIn("vu-1", at: start)
        let chat = await client.call("POST", "/chats", token: token, json: #"{"menu_id": 1}"#)
        #expect(chat.status == 201, "\(chat.status) \(chat.text)")
        #expect(clock.now() == start, "the end user was served while every hook spun (the watchdog did not move the clock)")
        watchdog.signal()
        clock.advance(by: 1)
        for hook in hooks { #expect(await hook.value.text == "done") }
    }

    @Test func loadFailuresAreReportedWithTheirCause() async throws {
        let folder = try Folder([
            "syntax.lua": "return { name = ",
            "nameless.lua": "return { version = '1' }",
            "wrong_hook.lua": "return { name = 'w', deflection = 42 }",
            "bad_actions.lua": "return { name = 'b', smart_actions = { text = 'hello' } }",
            "no_table.lua": "return 42",
            "dup_one.lua": "return { name = 'dup' }",
            "dup_two.lua": "return { name = 'dup' }",
            "onload.lua": "return { name = 'onload', on_load = function() error('cannot start') end }",
            "folder/init.lua": "return { name = 'folder-plugin', smart_actions = { ['*'] = function() end }, forms = { [10] = function() end } }",
        ])
        let list = await host(folder).load()
        let byFile = Dictionary(uniqueKeysWithValues: list.map { (URL(fileURLWithPath: $0.file).lastPathComponent, $0) })
        #expect(byFile["syntax.lua"]?.state == "failed")
        #expect(byFile["nameless.lua"]?.errors.first?.contains("name: a non-empty string is required") == true)
        #expect(byFile["wrong_hook.lua"]?.errors.first?.contains("deflection: function expected, got number") == true)
        #expect(byFile["bad_actions.lua"]?.errors.first?.contains("smart_actions.text: function expected") == true)
        #expect(byFile["no_table.lua"]?.errors.first?.contains("must return a table") == true)
        #expect(byFile["dup_two.lua"]?.errors.first?.contains("a plugin named 'dup' is already loaded") == true)
        #expect(byFile["onload.lua"]?.errors.first?.contains("on_load failed") == true)
        let folderPlugin = list.first { $0.name == "folder-plugin" }
        #expect(folderPlugin?.state == "loaded" && folderPlugin?.hooks == ["smart_actions.*", "forms.10"])
        let missing = await PluginHost(directories: ["/no/such/folder"], runner: ScriptRunner(logger: CapturingLogger())).load()
        #expect(missing.first?.state == "failed" && missing.first?.errors.first?.contains("cannot read the plugin folder") == true)
    }

    @Test func hotReloadReplacesOnlyAPluginThatLoads() async throws {
        let folder = try Folder(["p.lua": #"return { name = "p", version = "1", deflection = function() return { action = "message", text = "v1" } end }"#])
        let host = host(folder)
        await host.load()
        #expect(await host.evaluateDeflection(menu: billing, channel: "chat", context: [:]).text == "v1")

        try folder.write("p.lua", "return { name = ")
        #expect(await host.reloadChanged().isEmpty)
        #expect(await host.evaluateDeflection(menu: billing, channel: "chat", context: [:]).text == "v1", "the old one runs on")
        #expect(await host.list().first?.errors.last?.contains("reload failed") == true)

        try folder.write("p.lua", #"return { name = "p", version = "2", deflection = function() return { action = "message", text = "v2" } end }"#)
        #expect(await host.reloadChanged().count == 1)
        #expect(await host.evaluateDeflection(menu: billing, channel: "chat", context: [:]).text == "v2")
        #expect(await host.list().first?.version == "2")

        try folder.write("q.lua", #"return { name = "q" }"#)
        try folder.remove("p.lua")
        await host.reloadChanged()
        #expect(await host.list().map(\.name) == ["q"])
    }

    @Test func slowHooksTimeOut() async throws {
        let folder = try Folder([
            "slow.lua": #"return { name = "slow", priority = 2, deflection = function() ccai.sleep(3600) return { action = "voicemail" } end }"#,
            "quick.lua": #"return { name = "quick", deflection = function() return { action = "email" } end }"#,
        ])
        let clock = ManualClock()
        var runner = ScriptRunner(logger: CapturingLogger())
        runner.clock = clock
        let host = PluginHost(directories: [folder.path], runner: runner)
        await host.load()
        let deciding = Task { await host.evaluateDeflection(menu: billing, channel: "chat", context: [:]) }
        await clock.waitForTimers { $0.contains(10) && $0.contains(3_600) }   // the hook's timeout and its sleep
        clock.advance(by: 10)
        let decision = await deciding.value
        let plugins = await host.list().map { ($0.name, $0.errors) }
        #expect(decision.action == "email", "\(decision) \(plugins)")
        #expect(await host.list().first { $0.name == "slow" }?.errors.first?.contains("took longer than") == true)
    }

    @Test func luaSeesThePluginsThroughCcaiPlugins() async throws {
        let folder = try Folder(["p.lua": #"return { name = "p", version = "3", deflection = function(menu) return { action = "message", text = "for " .. menu.name } end }"#])
        let logger = CapturingLogger()
        let host = host(folder, logger: logger)
        await host.load()
        let state = try await ScriptRunner(logger: logger, plugins: host).makeState()
        let results = try await state.run(source: """
            local list = ccai.plugins.list()
            local decision = ccai.plugins.evaluate_deflection({ id = 1, name = "Billing" }, { channel = "chat" })
            local ok, err = pcall(ccai.plugins.evaluate_deflection, { id = 1 }, { channel = "fax" })
            return list[1].name, list[1].version, list[1].state, decision.action, decision.text, decision.plugin, err.code
            """, chunkName: "=t")
        #expect(results == ["p", "3", "loaded", "message", "for Billing", "p", "invalid_argument"])
    }

    @Test func pluginFilesAreReadInsideTheirFolder() async throws {
        let folder = try Folder(["fine.lua": #"return { name = "fine" }"#])
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: outside + "/tool", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try "sk-live-SECRET-4242 leaked".write(toFile: outside + "/key.txt", atomically: true, encoding: .utf8)
        try #"return { name = "tool" }"#.write(toFile: outside + "/tool/init.lua", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/key.lua", withDestinationPath: outside + "/key.txt")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/tool", withDestinationPath: outside + "/tool")
        let logger = CapturingLogger()
        let list = await host(folder, logger: logger).load()
        let byFile = Dictionary(uniqueKeysWithValues: list.map { (URL(fileURLWithPath: $0.file).path.replacingOccurrences(of: folder.path + "/", with: ""), $0) })
        #expect(byFile["fine.lua"]?.state == "loaded")
        #expect(byFile["key.lua"]?.state == "failed")
        #expect(byFile["key.lua"]?.errors.first?.contains("leads outside the plugins folder") == true, "\(list)")
        #expect(byFile["tool/init.lua"]?.state == "failed")
        #expect(byFile["tool/init.lua"]?.errors.first?.contains("leads outside") == true, "\(list)")
        let everything = list.flatMap(\.errors).joined() + logger.messages.joined()
        #expect(!everything.contains("SECRET"), "no byte of the file outside is read")
    }

    @Test func singleFilePluginsDoNotRequireEachOther() async throws {
        let folder = try Folder([
            "a.lua": #"local b = require("b") return { name = "a" }"#,
            "b.lua": #"return { name = "b" }"#,
            "c/init.lua": #"local helper = require("helper") return { name = "c", version = helper.version }"#,
            "c/helper.lua": #"return { version = "2" }"#,
        ])
        let list = await host(folder).load()
        #expect(list.first { $0.name == "c" }?.version == "2", "a folder plugin requires its own files: \(list)")
        #expect(list.first { $0.name == "b" }?.state == "loaded")
        let a = list.first { $0.file.hasSuffix("/a.lua") }
        #expect(a?.state == "failed")
        #expect(a?.errors.first?.contains("module 'b' not found") == true, "\(String(describing: a))")
    }

    @Test func hooksReachOnlyTheReadOnlyServices() async throws {
        let folder = try Folder(["probe.lua": #"""
            local names = { "auth", "chat", "end_user", "plugins", "smart_action", "screen_share", "options", "rate",
              "initialize_chat", "initialize_screen_share", "company", "language", "queue_menu", "log", "json", "sleep", "spawn" }
            return { name = "probe", deflection = function(menu, ctx)
              local seen = {}
              for _, name in ipairs(names) do if ccai[name] ~= nil then seen[#seen + 1] = name end end
              if ccai.language and ccai.language.set_language_code then seen[#seen + 1] = "set_language_code" end
              return { action = "message", text = table.concat(seen, ",") }
            end }
            """#])
        let host = PluginHost(directories: [folder.path], runner: ScriptRunner(logger: CapturingLogger(), sdk: CCAI()))
        await host.load()
        let decision = await host.evaluateDeflection(menu: billing, channel: "chat", context: [:])
        #expect(decision.text == "company,language,queue_menu,log,json,sleep,spawn")
    }

    @Test(.timeLimit(.minutes(1))) func aBacktrackingPatternInAHookEndsWithTheBudget() async throws {
        let folder = try Folder([
            "stuck.lua": #"return { name = "stuck", priority = 2, deflection = function() return ("a"):rep(400):find(".-.-.-.-b") end }"#,
            "quick.lua": #"return { name = "quick", deflection = function() return { action = "email" } end }"#,
        ])
        var runner = ScriptRunner(logger: CapturingLogger())
        runner.limits = LuaLimits(memoryBytes: 8 << 20, instructions: 0, seconds: 1)
        let host = PluginHost(directories: [folder.path], runner: runner)
        await host.load()
        let decision = await host.evaluateDeflection(menu: billing, channel: "chat", context: [:])
        #expect(decision.action == "email")
        #expect(await host.list().first { $0.name == "stuck" }?.errors.first?.contains("time limit exceeded") == true)
    }
}
