import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// The post-session and transcript methods of `ccai.chat` (seed 000): `start_post_session`,
/// `ready_post_session`, `get_post_session_flow`, `download_chat_transcript_data`,
/// `download_chat_transcript{ to }`, `is_transcript_download_offered`; and the
/// post-session methods of `ccai.call`, the same for the current call.
///
/// ```lua
/// local flow = ccai.chat.get_post_session_flow()
/// if flow then ccai.chat.start_post_session(); ccai.chat.ready_post_session() end
/// ccai.chat.download_chat_transcript{ to = "transcript.pdf" }
/// ```
enum PostSessionBindings {
    static func install(into chat: inout LuaModule, _ context: SDKContext) {
        let ccai = context.sdk
        chat.function("start_post_session", LuaSignature(
            "Starts the post-session phase of the current chat, which has ended: post_session_transfer_status becomes \"in_progress\" (a conflict out of order or without post-session).",
            returns: ["ccai.Chat"])) { call in
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call) { try await service.startPostSession() }
        }
        chat.function("ready_post_session", LuaSignature(
            "Signals the app is ready for the post-session flow: \"in_progress\" -> \"ready\" (a post-session virtual agent starts talking).",
            returns: ["ccai.Chat"])) { call in
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call) { try await service.readyPostSession() }
        }
        chat.function("get_post_session_flow", LuaSignature(
            "The one post-session flow (virtual agent > survey > CSAT) of the session that ended last: the current chat, or "
                + "the current call when it ended after it; nil when none is configured, or there is no session yet.",
            returns: ["ccai.PostSessionFlow?"])) { call in
            if let calls = ccai.callService, endedLast(calls.currentCall, than: ccai.chatService?.currentChat) {
                return try flow(call) { try await calls.getPostSessionFlow() }
            }
            // With neither a chat nor an ended call there is no flow to tell.
            if ccai.chatService?.currentChat == nil, ccai.chatService != nil || ccai.callService != nil { return call.returning(.nil) }
            let service = try ChatBindings.requireChat(ccai, call)
            return try flow(call) { try await service.getPostSessionFlow() }
        }
        chat.function("is_transcript_download_offered", LuaSignature(
            "Whether the transcript may be downloaded now (download_transcript_visibility hides it during or after the chat).",
            returns: ["boolean"])) { call in
            let service = try ChatBindings.requireChat(ccai, call)
            return call.returning(.boolean(service.isTranscriptDownloadOffered))
        }
        chat.function("download_chat_transcript_data", LuaSignature(
            "The current chat's transcript: the PDF's bytes as a string.", returns: ["string"])) { call in
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.downloadChatTranscriptData() },
                                       push: { data, output in output.push(.data(data)) })
        }
        chat.function("download_chat_transcript", LuaSignature(
            "Writes the current chat's transcript PDF to a file under the run's output folder (--out-dir, default ./ccai-out), retrying failures that may pass; returns the file's absolute path.",
            parameters: ["options: { to: string }|string"], returns: ["string"])) { call in
            let path: String
            if let given = try? call.string(1, "to") {
                path = given
            } else {
                guard let given = try call.options(1, "options").string("to") else {
                    throw call.argumentError(1, "options.to", "a file name such as \"transcript.pdf\" expected")
                }
                path = given
            }
            do {
                try ConfinedFolder.checkRelative(path)
            } catch let refusal as ConfinedFolder.Refusal {
                throw call.argumentError(1, "options.to", refusal.message.replacingOccurrences(of: "script's folder", with: "output folder"))
            }
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call, {
                try await service.downloadChatTranscript { data in
                    do {
                        try context.outputFolder().write(data, to: path)
                    } catch let refusal as ConfinedFolder.Refusal {
                        throw CCAIError(code: .forbidden, message: refusal.message)
                    }
                }
                // The path as the user opens it, wherever the run was started from.
                return try context.outputFolder().root + "/" + path
            }, push: { path, output in output.push(.string(path)) })
        }
    }

    /// `ccai.call.start_post_session`, `ready_post_session` and `get_post_session_flow`:
    /// the post-session phase of the current call, which has ended.
    static func install(intoCall module: inout LuaModule, _ ccai: CCAI) {
        module.function("start_post_session", LuaSignature(
            "Starts the post-session phase of the current call, which has ended: post_session_transfer_status becomes \"in_progress\" (a conflict out of order or without post-session).",
            returns: ["ccai.Call"])) { call in
            let service = try CallBindings.requireCall(ccai, call)
            return try SDKBindings.sdk(call) { try await service.startPostSession() }
        }
        module.function("ready_post_session", LuaSignature(
            "Signals the app is ready for the post-session flow of the current call: \"in_progress\" -> \"ready\".",
            returns: ["ccai.Call"])) { call in
            let service = try CallBindings.requireCall(ccai, call)
            return try SDKBindings.sdk(call) { try await service.readyPostSession() }
        }
        module.function("get_post_session_flow", LuaSignature(
            "The one post-session flow of the current call (virtual agent > survey > CSAT), or nil when none is configured.",
            returns: ["ccai.PostSessionFlow?"])) { call in
            let service = try CallBindings.requireCall(ccai, call)
            return try flow(call) { try await service.getPostSessionFlow() }
        }
    }

    /// Whether `call` ended after `chat` (or there is no ended chat): the session whose
    /// post-session flow `ccai.chat.get_post_session_flow` tells.
    private static func endedLast(_ call: CallResponse?, than chat: ChatResponse?) -> Bool {
        guard let call, let callEnded = call.endedAt, call.status == .ended else { return false }
        guard let chat, !chat.isInProgress, let chatEnded = chat.endedAt else { return true }
        return callEnded > chatEnded
    }

    private static func flow(_ call: LuaCall, _ body: @escaping @Sendable () async throws -> PostSessionFlow?) throws -> LuaReturn {
        try SDKBindings.sdk(call, body, push: { flow, output in output.push(try flow.map { try LuaEncoder().encode($0) } ?? .nil) })
    }
}
