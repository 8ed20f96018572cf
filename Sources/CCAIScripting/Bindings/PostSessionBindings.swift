import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// The post-session and transcript methods of `ccai.chat` (seed 000): `start_post_session`,
/// `ready_post_session`, `get_post_session_flow`, `download_chat_transcript_data`,
/// `download_chat_transcript{ to }`, `is_transcript_download_offered`.
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
            "The one post-session flow of the current chat (virtual agent > survey > CSAT), or nil when none is configured.",
            returns: ["ccai.PostSessionFlow?"])) { call in
            let service = try ChatBindings.requireChat(ccai, call)
            return try SDKBindings.sdk(call, { try await service.getPostSessionFlow() },
                                       push: { flow, output in output.push(try flow.map { try LuaEncoder().encode($0) } ?? .nil) })
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
}
