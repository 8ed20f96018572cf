import CCAIKit
import CCAIWire
import LuaRuntime

/// The LuaLS classes of what functions return and events carry, generated from the
/// CCAIWire models that the bindings encode (``LuaSchema``), so a field added to a model is
/// in the stubs and the reference without anyone remembering it.
///
/// ```swift
/// let lines = try ResultClasses.stubLines()   // ["---@class ccai.ChatMessage", "---@field id integer", ...]
/// ```
enum ResultClasses {
    /// One class: its stub (the model's fields, a note per field where the model's name
    /// does not say enough, what the bindings add) and the keys the bindings encode.
    struct Entry {
        let stub: LuaStubClass
        /// The keys a script sees of a full value, as the bindings encode it.
        let encodedKeys: (LuaSchema) throws -> [String]
        /// The names of the added fields, for the check that the stubs list all the encoder writes.
        var addedFields: [String] = []

        var name: String { stub.name }

        init<Model: Codable>(_ name: String, _ model: Model.Type, notes: [String: String] = [:],
                               fieldShapes: [String: LuaShape] = [:], added: [String] = [], addedFields: [String] = []) {
            stub = LuaStubClass(name, model, notes: notes, fieldShapes: fieldShapes, added: added)
            encodedKeys = { schema in
                (try LuaEncoder().encode(try schema.sample(of: Model.self))).tableValue?.fields.keys.compactMap(\.stringValue) ?? []
            }
            self.addedFields = addedFields
        }
    }

    static let entries: [Entry] = [
        Entry("ccai.EndUser", EndUser.self, added: [#"---@field display_name string name, else email, else identifier, else "Customer""#],
              addedFields: ["display_name"]),
        Entry("ccai.CompanyResponse", CompanyResponse.self),
        Entry("ccai.Chat", ChatResponse.self, notes: ["created_at": "Unix seconds", "ended_at": "Unix seconds"]),
        Entry("ccai.ChatAgent", ChatAgent.self),
        Entry("ccai.Call", CallResponse.self,
              notes: ["estimated_wait": "seconds, while the call waits", "recorded": "what the queue's recording option and the answer decided",
                      "type": "instant (through the queue), voicemail (a message left) or scheduled (a booked callback)",
                      "voicemail_reason": "why the queue took a voicemail", "phone_number": "a scheduled call's callback number (E.164)",
                      "schedule_time": "a scheduled call's slot, Unix seconds",
                      "created_at": "Unix seconds", "connected_at": "Unix seconds", "ended_at": "Unix seconds"],
              added: ["local Call = {}", "---@param allow_skip_virtual_agent boolean? the queue's voice_call.allow_skip_virtual_agent",
                      "---@return boolean", "function Call:can_escalate(allow_skip_virtual_agent) end"]),
        Entry("ccai.CallWaitTime", CallWaitTimePayload.self, notes: ["estimated_wait": "seconds"]),
        Entry("ccai.CallParticipant", CallParticipantPayload.self),
        Entry("ccai.CallInterruption", CallInterruption.self, notes: ["seconds": "how long it is expected to last"]),
        Entry("ccai.CallDeflection", CallDeflection.self,
              notes: ["estimated_wait": "seconds", "threshold_seconds": "the queue's wait_deflection.after_seconds",
                      "offers": "what the end user may do instead", "offered_at": "Unix seconds"]),
        Entry("ccai.AudibleMessage", AudibleMessage.self),
        Entry("ccai.AudibleMessagePlayback", AudibleMessagePlayback.self),
        Entry("ccai.IncomingCallEvent", IncomingCallEvent.self,
              notes: ["call": "ringing", "source": "how the SDK heard of it: the event stream or a VoIP push"]),
        Entry("ccai.ChatMessage", ChatMessage.self,
              notes: ["type": "what the message carries (the reference's events page lists them)",
                      "event": "for noti and screen_share messages: which event", "created_at": "Unix seconds"]),
        Entry("ccai.ChatSender", ChatMessageSender.self),
        Entry("ccai.ChatMedia", ChatMedia.self, notes: ["size": "bytes"]),
        Entry("ccai.CustomForm", CustomForm.self),
        Entry("ccai.CustomFormDetails", CustomFormDetailsResponse.self),
        Entry("ccai.CustomFormQuestion", CustomFormQuestion.self),
        Entry("ccai.CustomFormQuestionOption", CustomFormQuestionOption.self),
        Entry("ccai.WebForm", WebFormRequest.self),
        Entry("ccai.ScreenShare", ScreenShareResponse.self),
        Entry("ccai.ColdTransfer", ColdTransfer.self),
        Entry("ccai.SmartAction", SmartAction.self),
        Entry("ccai.SmartActionResult", SmartActionResult.self),
        Entry("ccai.PostSessionFlow", PostSessionFlow.self),
        Entry("ccai.Survey", Survey.self),
        Entry("ccai.SurveyQuestion", SurveyQuestion.self),
        Entry("ccai.WaitTimes", WaitTimes.self, notes: ["chat": "seconds", "voice_call": "seconds"]),
        Entry("ccai.apps.WaitTime", AppsWaitTime.self, notes: ["chat": "seconds; nil: no chat channel", "voice_call": "seconds; nil: no voice channel",
                                                              "materialized_path": "the menu names from the root, joined with \" / \""]),
        Entry("ccai.apps.EndUser", AppsEndUser.self),
        Entry("ccai.apps.Chat", AppsChat.self, notes: [
            "status": "queued, assigned, finished, no_response, canceled or failed", "status_text": "the finer state (docs/platform-fidelity.md)",
            "created_at": "ISO 8601", "ends_at": "ISO 8601; nil while in progress", "timeout_at": "ISO 8601: when an idle chat ends",
            "menus": "the menu path from the root",
        ]),
        Entry("ccai.apps.Participant", AppsChat.Participant.self, notes: ["status": "connected or disconnected"]),
        Entry("ccai.apps.Menu", AppsChat.Menu.self),
        Entry("ccai.apps.Message", AppsMessage.self, notes: ["created_at": "ISO 8601"]),
        Entry("ccai.apps.Media", AppsMedia.self, notes: ["created_at": "ISO 8601",
                                                          "url": "a pre-signed download URL (GET, no credentials) until url_expires_at"]),
        Entry("ccai.QueueMenu", QueueMenu.self,
              added: ["local QueueMenu = {}", "---@return ccai.ChannelType[]", "function QueueMenu:get_enabled_channels() end",
                      "---@return ccai.EmailDraft?", "function QueueMenu:compose_email() end",
                      "---@return ccai.ExternalDeflection[]", "function QueueMenu:get_deflection_links() end"]),
        Entry("ccai.EmailDraft", EmailDraft.self, notes: ["url": "the mailto: URL the app opens, address and body percent-encoded"]),
        Entry("ccai.ExternalDeflection", ExternalDeflection.self),
        Entry("ccai.QueueMenuChannels", Channels.self),
        Entry("ccai.QueueMenuSetting", QueueMenuSetting.self),
        Entry("ccai.QueueMenuDeflection", QueueMenuDeflection.self),
        Entry("ccai.QueueMenuRedirection", QueueMenuRedirection.self),
        // A hook's answer and a plugin's description keep their words in strings; the stubs offer the words.
        Entry("ccai.DeflectionDecision", DeflectionDecision.self, fieldShapes: ["action": .literals(DeflectionDecision.actions)]),
        Entry("ccai.PluginInfo", PluginInfo.self, fieldShapes: ["state": .literals(PluginInfo.states)]),
    ]

    /// The schema that names these classes. Given, not found: JSON values (custom data)
    /// are `any`, and an option reads a plain string too but is always written as a table.
    static var schema: LuaSchema {
        LuaSchema(naming: entries.map(\.stub),
                  givenShapes: [ObjectIdentifier(JSONValue.self): .any,
                                ObjectIdentifier(SurveyAnswers.self): .map(key: .integer, value: .string),
                                ObjectIdentifier(CustomDataArgument.self): .map(key: .string, value: .any),
                                ObjectIdentifier(CustomFormQuestionOption.self): .object([
                                    .init(name: "value", shape: .string, isOptional: false),
                                    .init(name: "label", shape: .string, isOptional: true)])])
    }

    /// The fields of a class as the bindings encode them.
    static func fields(of entry: Entry) throws -> [LuaShape.Field] {
        try entry.stub.fields(in: schema)
    }

    /// `class.field` for every key the bindings write that its class does not list
    /// (generated or added): what a model writes but never reads must be added by hand.
    static func unlistedFields() throws -> [String] {
        try entries.flatMap { entry -> [String] in
            let listed = Set(try fields(of: entry).map(\.name) + entry.addedFields)
            return try entry.encodedKeys(schema).filter { !listed.contains($0) }.sorted().map { "\(entry.name).\($0)" }
        }
    }

    /// Every class as LuaLS lines, a blank line after each.
    static func stubLines() throws -> [String] {
        try entries.flatMap { try $0.stub.lines(in: schema) + [""] }
    }
}
