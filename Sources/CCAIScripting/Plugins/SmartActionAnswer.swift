import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// What a plugin's `smart_actions` handler returned (docs/plugins.md), checked against
/// the action's type: `{ text = ... }`, `{ images = {...} }`, `{ videos = {...} }`,
/// `{ verified = true }`, `{ screen_share = true }`, or `{ decline = "reason" }`.
enum SmartActionAnswer: Sendable {
    case result(SmartActionResult)
    case media(OutgoingContent)
    case decline(String)

    /// Reads the answer; file paths are relative to the plugin's `folder` and stay inside it. The error says
    /// what the action's type takes.
    init(_ value: LuaValue, for action: SmartAction, folder: String) throws {
        let expected: String
        switch action.type {
        case .text: expected = "{ text = \"...\" }"
        case .verification: expected = "{ verified = true|false }"
        case .photo, .screenshot: expected = "{ images = { { path = ..., mime_type = ... } } }"
        case .video: expected = "{ videos = { { path = ..., mime_type = ... } } }"
        case .screenShare: expected = "{ screen_share = true }"
        case .unknown: expected = "{ decline = \"...\" }"
        }
        let problem = "a \(action.type.rawValue) smart action takes \(expected) or { decline = \"reason\" }"
        guard let table = value.tableValue else {
            throw OutgoingContent.FieldError(field: "answer", message: "\(problem), got \(value.typeName)")
        }
        if let reason = table["decline"], !reason.isNil {
            guard let text = reason.stringValue, !text.isEmpty else {
                throw OutgoingContent.FieldError(field: "answer.decline", message: "a reason (string) expected")
            }
            self = .decline(text)
            return
        }
        switch action.type {
        case .text:
            guard let text = table["text"]?.stringValue, !text.isEmpty else {
                throw OutgoingContent.FieldError(field: "answer.text", message: problem)
            }
            self = .result(SmartActionResult(text: text))
        case .verification:
            guard case .boolean(let verified)? = table["verified"] else {
                throw OutgoingContent.FieldError(field: "answer.verified", message: problem)
            }
            self = .result(SmartActionResult(verified: verified))
        case .screenShare:
            guard table["screen_share"] == .boolean(true) else {
                throw OutgoingContent.FieldError(field: "answer.screen_share", message: problem)
            }
            self = .result(SmartActionResult(screenShare: true))
        case .photo, .screenshot, .video:
            let key = action.type == .video ? "videos" : "images"
            guard let files = table[key], !files.isNil else {
                throw OutgoingContent.FieldError(field: "answer.\(key)", message: problem)
            }
            var media = LuaTable()
            media[key] = files
            media["smart_action"] = try LuaEncoder().encode(action)
            let confined: ConfinedFolder
            do {
                confined = try ConfinedFolder(folder)
            } catch let refusal as ConfinedFolder.Refusal {
                throw OutgoingContent.FieldError(refusal, field: "answer.\(key)")
            }
            self = .media(try OutgoingContent(media, field: "answer", folder: confined))
        case .unknown:
            throw OutgoingContent.FieldError(field: "answer", message: problem)
        }
    }
}
