import CCAIScripting
import LuaRuntime
import Testing

@Suite struct TypeStubsTests {
    @Test func stubsDeclareEveryBindingAndAreValidLua() throws {
        let files = TypeStubs.files()
        let stubs = try #require(files["ccai.lua"])
        for name in ["ccai.sleep(seconds)", "ccai.spawn(fn, ...)", "ccai.log.info(message, fields)",
                     "ccai.queue_menu.get(options)", "ccai.company.get()", "ccai.plugins.evaluate_deflection(menu, options)",
                     "ccai.json.encode(value, options)"] {
            #expect(stubs.contains("function \(name) end"), "\(name)")
        }
        #expect(stubs.hasPrefix("---@meta"))
        #expect(stubs.contains("---@param seconds number"))
        #expect(stubs.contains("function QueueMenus:find_menu(id) end"))
        _ = try LuaState.evaluate(stubs, chunkName: "=ccai.lua")
        let luacheck = try #require(files[".luacheckrc"])
        let results = try LuaState.evaluate("stds = {}\n" + luacheck + "\nreturn stds.ccai.read_globals.ccai.fields.log.fields[3], std",
                                            chunkName: "=.luacheckrc")
        #expect(results == ["info", "lua54+ccai"])
        #expect(files[".luarc.json"]?.contains("\"Lua 5.4\"") == true)
        #expect(files["agent.lua"] == nil, "the agent table comes from the sandbox")
    }

    @Test func anAgentModuleGetsItsOwnValidStubs() throws {
        var agent = LuaModule(name: "ccai.Agent")
        agent.function("send", LuaSignature("Sends.", parameters: ["text: string"])) { _ in .none }
        let stubs = try #require(TypeStubs.files(agentModule: agent)["agent.lua"])
        #expect(stubs.contains("---@param text string\nfunction ccai.Agent.send(text) end"))
        _ = try LuaState.evaluate("ccai = {}\n" + stubs, chunkName: "=agent.lua")  // ccai.lua declares ccai
    }
}
