@testable import CCAIScripting
import CCAIWire
import Foundation
import LuaRuntime
import Testing

/// The `---@field` names of a class in a stub file.
func stubFields(of className: String, in stubs: String) -> [String] {
    let lines = stubs.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0 == "---@class \(className)" || $0.hasPrefix("---@class \(className):") })
    else { return [] }
    return lines[(start + 1)...].prefix { $0.hasPrefix("---@field ") }.map { String($0.split(separator: " ")[1]) }
}

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

    @Test func pluginStubsListTheSpecAsTheHostReadsIt() throws {
        let stubs = try #require(TypeStubs.files()["plugin.lua"])
        _ = try LuaState.evaluate(stubs, chunkName: "=plugin.lua")
        #expect(Set(stubFields(of: "ccai.PluginSpec", in: stubs)) == PluginSpec.knownFields,
                "every field the host reads, and no other")
        #expect(stubFields(of: "ccai.PostSessionContext", in: stubs) == PostSessionRunner.contextFields)
        #expect(stubFields(of: "ccai.DeflectionContext", in: stubs).contains("now_local"))
    }

    @Test func agentScriptsHaveTheirOwnLuacheckSettings() throws {
        let settings = try #require(TypeStubs.files()["agent.luacheckrc"])
        let results = try LuaState.evaluate(settings + "\nreturn std, not_globals[#not_globals]", chunkName: "=agent.luacheckrc")
        #expect(results == ["lua54", "ccai"], "agent scripts have no ccai global")
    }

    @Test func anAgentModuleGetsItsOwnValidStubs() throws {
        var agent = LuaModule(name: "ccai.Agent")
        agent.function("send", LuaSignature("Sends.", parameters: ["text: string"])) { _ in .none }
        let stubs = try #require(TypeStubs.files(agent: (agent, "---@class ccai.AgentSession: ccai.Chat\n"))["agent.lua"])
        #expect(stubs.contains("---@param text string\nfunction ccai.Agent.send(text) end"))
        #expect(stubs.hasSuffix("---@class ccai.AgentSession: ccai.Chat\n"))
        _ = try LuaState.evaluate("ccai = {}\n" + stubs, chunkName: "=agent.lua")  // ccai.lua declares ccai
    }
}

/// Issue 20, item 9: the result and event classes are made from the CCAIWire models.
@Suite struct ResultClassesTests {
    @Test func aMessageClassHasEveryFieldOfTheModel() throws {
        let stubs = TypeStubs.stubs(CCAIModule.documented)
        for field in ["---@field form ccai.CustomForm?", "---@field web_form ccai.WebForm?", "---@field screen_share ccai.ScreenShare?",
                      #"---@field type "text"|"media"|"form"|"web_form"|"form_complete"|"screen_share"|"noti""#] {
            #expect(stubs.contains(field), "\(field)")
        }
    }

    /// Issue 33: a hook's decision and a plugin's description are their types' shapes, with the words offered.
    @Test func pluginClassesAreTheirTypesShapes() throws {
        let stubs = TypeStubs.stubs(CCAIModule.documented)
        for line in [#"---@field action "allow"|"redirect"|"phone"|"url"|"message"|"voicemail"|"schedule_call"|"email""#,
                     "---@field menu_id integer?", "---@field display_name string?", "---@field plugin string?",
                     #"---@field state "loaded"|"failed""#, "---@field errors string[]", "---@field priority number",
                     "---@field hooks string[]"] {
            #expect(stubs.contains(line + "\n"), "\(line)")
        }
        #expect(stubs.contains("---@class ccai.DeflectionDecision\n") && stubs.contains("---@class ccai.PluginInfo\n"))
    }

    @Test func everyKeyTheBindingsWriteIsInItsClass() throws {
        #expect(try ResultClasses.unlistedFields() == [])
    }

    @Test func everyClassNamedInTheStubsIsDeclared() throws {
        let stubs = TypeStubs.stubs(CCAIModule.documented) + TypeStubs.pluginStubs
        let declared = Set(stubs.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("---@class ") else { return nil }
            return line.dropFirst("---@class ".count).split(separator: ":").first.map { $0.trimmingCharacters(in: .whitespaces) }
        })
        let used = Set(stubs.matches(of: try Regex("ccai\\.[A-Z][A-Za-z]+")).map { String(stubs[$0.range]) })
        #expect(used.subtracting(declared).isEmpty, "used but not declared: \(used.subtracting(declared).sorted())")
    }

    @Test func everyEventHasItsValueDescribed() throws {
        let events = try EventPayloads.all()
        for (module, names) in EventPayloads.namesByModule {
            #expect(Set(events.filter { $0.module == module }.map(\.name)) == names, "\(module)")
        }
        #expect(events.first { $0.name == "messages_received" }?.payload.luaType == "ccai.ChatMessage[]")
    }

    @Test func aWordANewerPlatformSendsIsKeptAsItCame() throws {
        let message = try JSONDecoder().decode(ChatMessage.self, from: Data(
            #"{"id":1,"chat_id":2,"sequence":1,"sender":{"type":"supervisor"},"type":"voice_note","created_at":0}"#.utf8))
        #expect(message.type.rawValue == "voice_note" && message.type.meaning == nil && message.sender.type == "supervisor")
        #expect(String(decoding: try JSONEncoder().encode(message.type), as: UTF8.self) == #""voice_note""#)
        #expect(ChatMessageType.allCases.allSatisfy { $0.meaning != nil })
    }
}
