import Foundation
import Testing

/// Each VU's state is its own, however light a VU becomes (issue 36): tables built lazily,
/// helpers loaded from bytecode shared by the process, and setup's data handed to every
/// VU still leave nothing one VU can see or change of another's.
@Suite struct VUIsolationTests {
    /// Four VUs each mark everything they can reach (globals, `_G`, the `ccai` table and a
    /// lazily built service of it, the standard library's tables, the string metatable's
    /// methods, setup's data, a decorated function) and sign in; after the others have done
    /// the same, each finds only its own marks and its own token and end user.
    @Test func aVUSeesNoneOfAnothersGlobalsTablesOrTokens() async throws {
        let (output, snapshot) = try await CLI.runScenario("""
            ccai.initialize_chat()
            return {
              options = { vus = 4, iterations = 4 },
              setup = function() return { list = { "original" } } end,
              run = function(ctx)
                local me = "vu-" .. ctx.vu
                mark = me
                _G.table_mark = { owner = me }
                ccai.mark = me
                ccai.chat.mark = me
                ccai.metrics.mark = me
                string.mark = me
                math.pi = ctx.vu
                ctx.data.list[1] = me
                local check = ccai.check
                ccai.check = function() error("another VU's check") end
                ccai.company.get()
                local identifier = ccai.end_user.get_end_user().identifier
                local token = ccai.auth.get_auth_token()
                ccai.sleep(1)
                ccai.check = check
                local seen = table.concat({ mark, _G.table_mark.owner, ccai.mark, ccai.chat.mark, ccai.metrics.mark,
                                            ("x").mark, tostring(math.pi), ctx.data.list[1] }, ",")
                local expected = table.concat({ me, me, me, me, me, me, tostring(ctx.vu), me }, ",")
                ccai.check(seen == expected, "only its own marks")
                ccai.check(ccai.auth.get_auth_token() == token and ccai.end_user.get_end_user().identifier == identifier, "its own token")
                print(me .. " " .. identifier .. " " .. token)
              end,
            }
            """)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(snapshot.failedIterations == 0 && snapshot.checkFails == 0 && snapshot.checkPasses == 8, "\(snapshot.errors)")
        let lines = output.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }.filter { $0.count == 3 && $0[0].hasPrefix("vu-") }
        #expect(lines.count == 4 && lines.allSatisfy { $0[0] == $0[1] }, "each VU is its own end user: \(output.stdout)")
        #expect(Set(lines.map { $0[2] }).count == 4, "each VU has its own token: \(output.stdout)")
    }
}
