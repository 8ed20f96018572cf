import CCAIScripting
import Foundation
import LuaRuntime
import Testing

@Suite struct CCAIModuleTests {
    private func run(_ source: String, environment: [String: String] = [:], logger: CapturingLogger = CapturingLogger())
        async throws -> [LuaValue]
    {
        let runner = ScriptRunner(environment: environment, logger: logger)
        let state = try await runner.makeState()
        return try await state.run(source: source, chunkName: "@scenario.lua")
    }

    @Test func logRecordsCarryLevelFieldsAndSource() async throws {
        let logger = CapturingLogger()
        _ = try await run("""
            ccai.log.debug("d")
            ccai.log.info("chat started", { chat_id = 42, menu = "Billing", tags = { "a" } })
            ccai.log.warn("w")
            ccai.log.error("e")
            print("printed", 1, nil)
            """, logger: logger)
        #expect(logger.messages == ["d", "chat started", "w", "e", "printed\t1\tnil"])
        let info = logger.records[1]
        #expect(info.level == .info)
        #expect(info.source == "scenario.lua:2")
        #expect(info.fields.map(\.key) == ["chat_id", "menu", "tags"])
        #expect(StreamLogger.format(info).hasSuffix("INFO  chat started [scenario.lua:2] chat_id=42 menu=Billing tags=[\"a\"]"))
    }

    @Test func logLevelsBelowTheMinimumAreSkipped() async throws {
        let logger = CapturingLogger(minimumLevel: .warn)
        _ = try await run("ccai.log.debug('d'); ccai.log.info('i'); ccai.log.warn('w')", logger: logger)
        #expect(logger.messages == ["w"])
    }

    @Test func logRejectsBadFields() async throws {
        let results = try await run("""
            local ok, err = pcall(ccai.log.info, "x", "not a table")
            return err.message
            """)
        #expect(results == ["bad argument #2 'fields' to 'info' (table expected, got string)"])
    }

    @Test func jsonRoundTripsAndReportsErrors() async throws {
        let results = try await run("""
            local text = ccai.json.encode({ id = 1, tags = { "x", "y" } })
            local back = ccai.json.decode(text)
            local ok1, e1 = pcall(ccai.json.decode, "{oops")
            local ok2, e2 = pcall(ccai.json.encode, { f = print })
            return text, back.tags[2], e1.code, e1.message, e2.message
            """)
        #expect(results[0] == #"{"id":1,"tags":["x","y"]}"#)
        #expect(results[1] == "y")
        #expect(results[2] == "invalid_argument")
        #expect(results[3] == "bad argument #1 'text' to 'decode' (invalid JSON at byte 2: expected a string key)")
        #expect(results[4].stringValue?.contains("cannot convert a function to data (at 'f')") == true)
    }

    @Test func envIsReadOnly() async throws {
        let results = try await run("""
            local ok, err = pcall(function() ccai.env.REGION = "us" end)
            local keys = 0
            for k, v in pairs(ccai.env) do keys = keys + 1 end
            return ccai.env.REGION, ccai.env.MISSING, ok, keys
            """, environment: ["REGION": "eu", "VUS": "3"])
        #expect(results == ["eu", .nil, false, 2])
    }

    @Test func utilities() async throws {
        let results = try await run("""
            local id = ccai.uuid()
            return #id, id:match("^%x+%-%x+%-4%x+%-[89ab]%x+%-%x+$") ~= nil, ccai.uuid() ~= id,
                   math.abs(ccai.now() - os.time()) < 5, require("ccai") == ccai, tostring(select(2, pcall(ccai.sleep)))
            """)
        #expect(results == [36, true, true, true, true,
                            "ccai.sleep: bad argument #1 'seconds' to 'sleep' (number expected, got no value) [invalid_argument]"])
    }

    @Test func errorsAreCcaiErrors() async throws {
        let results = try await run("""
            local ok, err = pcall(ccai.sleep, "soon")
            return err.code, err["function"]
            """)
        #expect(results == ["invalid_argument", "ccai.sleep"])
    }

    @Test func runnerRequiresModulesNextToTheScript() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("runner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "return { double = function(x) return 2 * x end }".write(
            to: folder.appendingPathComponent("helpers.lua"), atomically: true, encoding: .utf8)
        let script = folder.appendingPathComponent("main.lua")
        try "return require('helpers').double(21)".write(to: script, atomically: true, encoding: .utf8)
        let results = try await ScriptRunner(logger: CapturingLogger()).run(file: script.path)
        #expect(results == [42])
    }
}
