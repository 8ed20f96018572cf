import CCAISandbox
import Foundation
import LuaRuntime
import Testing

/// The LuaLS classes of a sandbox configuration list exactly the fields its decoder reads.
@Suite struct ConfigurationStubsTests {
    /// The `---@field` names of a class.
    private func fields(of className: String) -> Set<String> {
        let lines = ConfigurationStubs.sandbox.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "---@class \(className)"[...]) else { return [] }
        return Set(lines[(start + 1)...].prefix { $0.hasPrefix("---@field ") }.map { String($0.split(separator: " ")[1]) })
    }

    @Test func everyClassListsTheFieldsTheDecoderReads() throws {
        // Each table carries a field no type has: the decoder reports it with the fields it read there.
        let probe = "zz_probe = true"
        let source = """
            return { \(probe),
              company = { \(probe), name = "A", languages = { "en" }, time_zone = "UTC", key = "k", secret = "s",
                          post_session = { \(probe), csat = true } },
              menus = { { \(probe), id = 1, name = "M",
                channels = { \(probe), chat = { \(probe) }, voice_call = { \(probe) }, email = { \(probe), email = "e@x.test" } },
                capacity = { \(probe) }, deflection = { \(probe) } } },
              agents = { { \(probe), name = "Ava", menus = { 1 } } },
              virtual_agents = { va = { \(probe) } },
              surveys = { s = { \(probe), questions = { { \(probe), id = 1, type = "csat", text = "Q" } } } },
              web_forms = { { \(probe), external_form_id = "f" } },
              limits = { \(probe) },
            }
            """
        let value = try LuaState.evaluate(source, chunkName: "=probe").first ?? .nil
        let (_, unknown) = try LuaDecoder().decodeReportingUnknownKeys(SandboxConfiguration.self, from: value)
        let read = Dictionary(uniqueKeysWithValues: unknown.map { ($0.path, Set($0.known)) })
        let classes = [
            ("", "ccai.sandbox.Configuration"), ("company", "ccai.sandbox.Company"), ("company.post_session", "ccai.sandbox.PostSession"),
            ("menus[1]", "ccai.sandbox.Menu"), ("menus[1].channels", "ccai.sandbox.Channels"),
            ("menus[1].channels.chat", "ccai.sandbox.ChatChannel"), ("menus[1].channels.voice_call", "ccai.sandbox.VoiceCallChannel"),
            ("menus[1].channels.email", "ccai.sandbox.EmailChannel"), ("menus[1].capacity", "ccai.sandbox.Capacity"),
            ("menus[1].deflection", "ccai.sandbox.Deflection"), ("agents[1]", "ccai.sandbox.Agent"),
            ("virtual_agents.va", "ccai.sandbox.VirtualAgent"), ("surveys.s", "ccai.sandbox.Survey"),
            ("surveys.s.questions[1]", "ccai.sandbox.SurveyQuestion"), ("web_forms[1]", "ccai.sandbox.WebForm"),
            ("limits", "ccai.sandbox.Limits"),
        ]
        for (path, className) in classes {
            let decoded = try #require(read[path], "the probe at '\(path)' was read")
            #expect(fields(of: className) == decoded, "\(className): stub \(fields(of: className).sorted()) vs decoder \(decoded.sorted())")
        }
        _ = try LuaState.evaluate(ConfigurationStubs.sandbox + ConfigurationStubs.agentSession, chunkName: "=sandbox.lua")
    }

    /// The generated classes and aliases are those users had, with their fields' types and notes.
    @Test func theGeneratedStubsKeepEveryClassAliasAndNote() {
        let lines = Set(ConfigurationStubs.sandbox.split(separator: "\n").map(String.init))
        let classes = ["Configuration", "Company", "Menu", "Channels", "ChatChannel", "VoiceCallChannel", "Scheduling",
                       "WaitDeflection", "AudibleMessage", "EmailChannel", "Capacity", "Deflection", "PostSession", "Agent",
                       "VirtualAgent", "Survey", "SurveyQuestion", "WebForm", "Limits"]
        for name in classes { #expect(lines.contains("---@class ccai.sandbox.\(name)"), "\(name)") }
        let known = [
            "---@alias ccai.sandbox.Text string|table<string, string> one text, or one per language code",
            #"---@alias ccai.sandbox.Hours table<"mon"|"tue"|"wed"|"thu"|"fri"|"sat"|"sun", string|boolean> "09:00-17:00", true (all day) or false"#,
            #"---@alias ccai.sandbox.AudibleMessageKind "welcome"|"all_agents_busy"|"recording_notice"|"on_hold"|"goodbye""#,
            "---@field company ccai.sandbox.Company",
            "---@field hours ccai.sandbox.Hours? the company's business hours; none: always open",
            "---@field virtual_agents table<string, ccai.sandbox.VirtualAgent>? by id",
            #"---@field jwt_algorithms ("HS256"|"HS384")[]?"#,
            "---@field audible_messages table<ccai.sandbox.AudibleMessageKind, ccai.sandbox.AudibleMessage>? over the parent's, kind by kind",
            "---@field name ccai.sandbox.Text",
            #"---@field pre_session_smart_action_types ("photo"|"video"|"screenshot"|"text"|"verification"|"screen_share")[]?"#,
            #"---@field recording "always"|"never"|"ask_user"|nil"#,
            #"---@field offers ("scheduled_call"|"phone_number"|"voicemail")[] in this order"#,
            "---@field options (string|{ value: string, label: string? })[]? the choices of an enumeration (end users get the values)",
            "---@field rules ({ keywords: string[], answer: string })[]?",
            "---@field script string? a file returning function(agent, session), relative to the configuration",
            "---@field connections_per_address integer? (default 128; 0: no limit; connections a served sandbox takes at once from one address, loopback aside)",
        ]
        for line in known { #expect(lines.contains(line), "\(line)") }
    }
}
