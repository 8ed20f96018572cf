import Foundation
import LuaRuntime
import Testing

struct PaymentDeclined: LuaErrorConvertible {
    var luaError: LuaErrorValue {
        LuaErrorValue(code: "conflict", message: "card declined", fields: ["retryable": false, "status": 409])
    }
}

struct PlainSwiftError: Error, CustomStringConvertible {
    var description: String { "disk on fire" }
}

@Suite struct ErrorTests {
    @Test func swiftErrorsBecomeStructuredLuaErrors() async throws {
        let state = try makeState()
        let results = try await state.withContext { lua in
            var module = LuaModule(name: "shop")
            module.function("pay") { _ in throw PaymentDeclined() }
            module.function("crash") { _ in throw PlainSwiftError() }
            lua.setGlobal("shop", module: module)
            return try lua.evaluate("""
                local ok, err = pcall(shop.pay)
                local ok2, err2 = pcall(shop.crash)
                return ok, err.code, err.message, err["function"], err.retryable, err.status, tostring(err),
                       err2.code, tostring(err2)
                """)
        }
        #expect(results == [false, "conflict", "card declined", "shop.pay", false, 409,
                            "shop.pay: card declined [conflict]", "internal", "shop.crash: disk on fire [internal]"])
    }

    @Test func luaErrorsBecomeSwiftErrorsWithTraceback() async throws {
        let state = try makeState()
        let error = await expectScriptError(state, """
            local function inner() error({ code = "not_found", message = "no queue 12" }) end
            local function outer() inner() end
            outer()
            """)
        #expect(error?.kind == .runtime)
        #expect(error?.code == "not_found")
        #expect(error?.structured?.message == "no queue 12")
        #expect(error?.traceback?.contains("in upvalue 'inner'") == true)
        #expect(error?.traceback?.contains("in local 'outer'") == true)
    }

    @Test func syntaxErrorsSaySo() async throws {
        let state = try makeState()
        let error = await expectScriptError(state, "local x = = 1")
        #expect(error?.kind == .syntax)
        #expect(error?.message.contains("unexpected symbol near '='") == true)
    }

    @Test func synchronousCallsReportErrorsToo() async throws {
        let state = try makeState()
        await state.withContext { lua in
            #expect {
                try lua.evaluate("error('sync boom')", chunkName: "=sync")
            } throws: { error in
                guard let error = error as? LuaScriptError else { return false }
                return error.message == "sync:1: sync boom" && error.traceback?.contains("stack traceback") == true
            }
        }
    }

    @Test func errorsCrossFromSwiftToLuaAndBack() async throws {
        let state = try makeState()
        await state.withContext { lua in
            var module = LuaModule(name: "svc")
            module.function("fail") { _ in throw LuaErrorValue(code: "unavailable", message: "down", fields: ["retryable": true]) }
            lua.setGlobal("svc", module: module)
        }
        let error = await expectScriptError(state, "svc.fail()")
        #expect(error?.structured == LuaErrorValue(code: "unavailable", message: "down", function: "svc.fail",
                                                   fields: ["retryable": true]))
        #expect(error?.message == "svc.fail: down [unavailable]")
    }
}
