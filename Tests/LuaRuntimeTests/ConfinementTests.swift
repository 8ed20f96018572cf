import Foundation
import LuaRuntime
import Testing

@Suite struct ConfinementTests {
    private func evaluate(_ source: String, modulePaths: [String] = []) async throws -> [LuaValue] {
        let state = try makeState(modulePaths: modulePaths)
        return try await state.run(source: source, chunkName: "=sandbox")
    }

    @Test func dangerousLibrariesAreAbsent() async throws {
        let results = try await evaluate("""
            return io, debug, package, dofile, loadfile, string.dump, os.execute, os.exit, os.getenv,
                   os.remove, os.rename, os.tmpname, os.setlocale
            """)
        #expect(results.allSatisfy { $0 == .nil })
        #expect(results.count == 13)
    }

    @Test func safeLibrariesWork() async throws {
        let results = try await evaluate("""
            return ("abc"):upper(), string.format("%05.1f", 3.14159), table.concat({1, 2}, "-"), math.max(1, 9),
                   utf8.char(233), type(os.time()), type(os.clock()), os.date("!%Y", 0), coroutine.isyieldable()
            """)
        #expect(results == ["ABC", "003.1", "1-2", 9, "é", "number", "number", "1970", true])
    }

    @Test func theStringMetatableIsProtected() async throws {
        let results = try await evaluate("""
            local ok, err = pcall(setmetatable, "", {})
            return getmetatable(""), ok, ("x"):rep(3)
            """)
        #expect(results == [false, false, "xxx"])
    }

    @Test func finalizersAreRefusedBecauseNoBudgetReachesThem() async throws {
        let results = try await evaluate("""
            local ok, err = pcall(setmetatable, {}, { __gc = function() while true do end end })
            local fine = setmetatable({}, { __index = { x = 1 } })
            return ok, err, fine.x
            """)
        #expect(results == [false, "bad argument #2 to 'setmetatable' (__gc metamethods are not allowed in a confined state)", 1])
    }

    @Test func loadAcceptsTextOnly() async throws {
        let results = try await evaluate("""
            local f1, e1 = load("\\27Lua\\x54\\0garbage")
            local f2, e2 = load("return 1", "chunk", "b")
            local f3 = load("return 40 + 2", "=answer", "bt")
            local parts = { "return ", "'pieces'" }
            local f4 = load(function() return table.remove(parts, 1) end)
            local f5, e5 = load("return +")
            return f1, e1, f2, e2, f3(), f4(), f5, e5
            """)
        #expect(results[0] == .nil)
        #expect(results[1].stringValue?.contains("binary chunk") == true)
        #expect(results[2] == .nil)
        #expect(results[3].stringValue?.contains("only text is allowed") == true)
        #expect(results[4] == 42)
        #expect(results[5] == "pieces")
        #expect(results[6] == .nil)
        #expect(results[7].stringValue?.contains("unexpected symbol") == true)
    }

    @Test func loadUsesTheCallersEnvironment() async throws {
        let results = try await evaluate("""
            local function run_in(env, code)
              local load = load
              local _ENV = env
              return load(code)()
            end
            local private = { secret = "mine" }
            secret = "global"
            local inner = run_in(private, "return secret")
            local explicit = load("return secret", "x", "t", { secret = "explicit" })()
            local nilenv = load("return secret", "x", "t", nil)
            local ok = pcall(nilenv)
            return inner, explicit, load("return secret")(), ok
            """)
        #expect(results == ["mine", "explicit", "global", false])
    }

    @Test func collectGarbageOnlyCounts() async throws {
        let results = try await evaluate("""
            local ok, err = pcall(collectgarbage, "stop")
            local ok2, err2 = pcall(collectgarbage)
            return type(collectgarbage("count")), ok, err.code, ok2
            """)
        #expect(results == ["number", false, "invalid_argument", false])
    }

    @Test func requireFindsFilesUnderModulePathsOnly() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lua-modules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("lib/text"), withIntermediateDirectories: true)
        try "return { greet = function(n) return 'hi ' .. n end, loads = (LOADS or 0) + 1 }"
            .write(to: folder.appendingPathComponent("lib/util.lua"), atomically: true, encoding: .utf8)
        try "return 'text package'".write(to: folder.appendingPathComponent("lib/text/init.lua"), atomically: true, encoding: .utf8)
        try "return 'outside'".write(to: folder.deletingLastPathComponent().appendingPathComponent("outside-\(UUID().uuidString).lua"),
                                     atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: folder) }
        let results = try await evaluate("""
            local util = require("lib.util")
            local again = require("lib.util")
            local ok1, e1 = pcall(require, "../outside")
            local ok2, e2 = pcall(require, "missing.module")
            local ok3, e3 = pcall(require, 42)
            return util.greet("ana"), util == again, require("lib.text"), e1.code, e2.code, e2.message:find("no file", 1, true) ~= nil, ok3
            """, modulePaths: [folder.path])
        #expect(results == ["hi ana", true, "text package", "invalid_argument", "not_found", true, false])
    }

    /// A symlink under a module folder that leads out of it is not followed (the review
    /// found this held; kept).
    @Test func requireDoesNotFollowSymlinksOut() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lua-links-\(UUID().uuidString)")
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("lua-outside-\(UUID().uuidString).lua")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("lib"), withIntermediateDirectories: true)
        try "return 'outside'".write(to: outside, atomically: true, encoding: .utf8)
        try "return 'inside'".write(to: folder.appendingPathComponent("lib/real.lua"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("lib/escape.lua").path,
                                                   withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("lib/alias.lua").path,
                                                   withDestinationPath: folder.appendingPathComponent("lib/real.lua").path)
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: outside)
        }
        let results = try await evaluate("""
            local ok, err = pcall(require, "lib.escape")
            return ok, err.code, require("lib.alias")
            """, modulePaths: [folder.path])
        #expect(results == [false, "not_found", "inside"])
    }
}
