import Foundation
import LuaRuntime

/// `ccai.group(name, fn)` (k6's `group`): runs `fn` and returns what it returns; what it
/// records meanwhile (checks, SDK calls, metrics) is tagged `group = "::name"` (nested:
/// `"::outer::inner"`), its checks are listed under the group in the summary, and how long
/// it took is a `group_duration_seconds` sample tagged with the group. An error in `fn`
/// leaves the group and goes on up.
///
/// ```lua
/// ccai.group("checkout", function()
///   ccai.check(ccai.chat.start{ menu_id = 7 }, { ["chat started"] = function(c) return c.id end })
/// end)
/// ```
enum GroupBindings {
    static func install(_ metrics: ScenarioMetrics?, into module: inout LuaModule) {
        // What scripts call; the decorator below replaces it with the Lua function that runs `fn`.
        module.function("group", LuaSignature(
            "Runs fn in a group: what it records is tagged with the group, and its duration is a group_duration_seconds sample.",
            parameters: ["name: string", "fn: fun(): any"], returns: ["any"]
        )) { call in
            throw call.argumentError(2, "fn", "ccai.group runs in a script's state only")
        }
        module.decorate(with: decorator, member: "group") { helpers($0, metrics: metrics) }
    }

    /// Runs `fn` between entering and leaving the group, whether it returns or raises (a
    /// budget's kill is never caught by the confined `pcall`). `enter` checks the arguments.
    static let decorator = LuaDecorator("""
        local ccai, enter, leave = ...
        local pack, unpack, pcall, error = table.pack, table.unpack, pcall, error
        ccai.group = function(name, fn)
          local depth = enter(name, fn)
          local results = pack(pcall(fn))
          leave(depth)
          if not results[1] then error(results[2], 0) end
          return unpack(results, 2, results.n)
        end
        """, chunkName: "=ccai.group")

    /// The functions the decorator calls, made in each state.
    static func helpers(_ context: LuaContext, metrics: ScenarioMetrics?) -> [LuaReference] {
        let scope = metrics?.scope ?? MetricScope()
        let clock = metrics?.clock
        let enter = context.makeFunction("ccai.group") { call in
            let name = try call.string(1, "name")
            _ = try call.function(2, "fn")
            do {
                return call.returning(.integer(Int64(try scope.enter(name, at: clock?.now() ?? Date()))))
            } catch let problem as MetricScope.Problem {
                throw call.argumentError(1, "name", problem.description)
            }
        }
        let leave = context.makeFunction("ccai.group") { call in
            let depth = try call.integer(1, "depth")
            if let left = scope.leave(to: Int(clamping: depth), at: clock?.now() ?? Date()) {
                metrics?.record(.groupDuration, left.seconds, tags: [MetricScope.groupTag: left.group])
            }
            return .none
        }
        return [enter, leave]
    }
}
