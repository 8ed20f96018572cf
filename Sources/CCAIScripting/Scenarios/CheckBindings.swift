import Foundation
import LuaRuntime

/// `ccai.check(value, name)` and `ccai.check(value, { [name] = predicate, ... })`: records
/// each named check as passed or failed in the run's metrics and returns whether all
/// passed, without stopping the script (k6's `check`). A predicate gets `value` and passes
/// when it returns anything but nil or false; the predicates run in the order of their
/// names, and one that raises an error raises it from `check`.
///
/// ```lua
/// local reply = ccai.chat.send_message(chat.id, "hello")
/// ccai.check(reply, { ["message sent"] = function(r) return r.id ~= nil end })
/// ccai.check(chat.status == "queued", "chat is queued")
/// ```
enum CheckBindings {
    static func install(_ metrics: ScenarioMetrics?, into module: inout LuaModule) {
        module.function("check", LuaSignature(
            "Records named checks (pass or fail, without stopping) and returns whether all passed.",
            parameters: ["value: any", "checks: string|table<string, fun(value: any): any>"], returns: ["boolean"]
        )) { call in
            let name = try call.string(2, "checks")
            guard !name.isEmpty else { throw call.argumentError(2, "checks", "a check needs a name") }
            let passed = !call.isNil(1) && (try? call.optionalBoolean(1)) != false
            if let problem = metrics?.recordCheck(name, passed: passed) { throw call.argumentError(2, "checks", problem) }
            return call.returning(.boolean(passed))
        }
        module.decorate(with: decorator, member: "check") { lua in
            [lua.makeFunction("ccai.check") { call in throw LuaErrorValue.invalidArgument(try call.string(1, "message")) }]
        }
    }

    /// Wraps `ccai.check` so that a table of predicates runs each one and records it under
    /// its name.
    static let decorator = LuaDecorator("""
        local ccai, invalid = ...
        local record = ccai.check
        ccai.check = function(value, checks)
          if type(checks) ~= "table" then return record(value, checks) end
          local names = {}
          for name, predicate in pairs(checks) do
            if type(name) ~= "string" or name == "" then
              invalid("bad argument #2 to 'ccai.check' (checks: names must be non-empty strings, got " .. type(name) .. ")")
            end
            if type(predicate) ~= "function" then
              invalid("bad argument #2 to 'ccai.check' (checks." .. name .. ": function expected, got " .. type(predicate) .. ")")
            end
            names[#names + 1] = name
          end
          table.sort(names)
          local all = true
          for _, name in ipairs(names) do
            local result = checks[name](value)
            all = record(result ~= nil and result ~= false, name) and all
          end
          return all
        end
        """, chunkName: "=ccai.check")
}
