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
    static let chatRows: [Binding<SDKContext>] = [
        Binding("start_post_session", "Starts the post-session phase of the current chat, which has ended: "
                + "post_session_transfer_status becomes \"in_progress\" (a conflict out of order or without post-session).",
                startPostSession, returns: [.model(ChatResponse.self)]),
        Binding("ready_post_session", "Signals the app is ready for the post-session flow: \"in_progress\" -> \"ready\" (a "
                + "post-session virtual agent starts talking).", readyPostSession, returns: [.model(ChatResponse.self)]),
        Binding("get_post_session_flow", "The one post-session flow (virtual agent > survey > CSAT) of the session that ended "
                + "last: the current chat, or the current call when it ended after it; nil when none is configured, or there is "
                + "no session yet.", getPostSessionFlow, returns: [.model(PostSessionFlow.self, optional: true)]),
        Binding("is_transcript_download_offered", "Whether the transcript may be downloaded now (download_transcript_visibility "
                + "hides it during or after the chat).", isTranscriptDownloadOffered, returns: [.model(Bool.self)]),
        Binding("download_chat_transcript_data", "The current chat's transcript: the PDF's bytes as a string.",
                downloadChatTranscriptData, returns: [.model(Data.self)]),
        Binding("download_chat_transcript", "Writes the current chat's transcript PDF to a file under the run's output folder "
                + "(--out-dir, default ./ccai-out), retrying failures that may pass; returns the file's absolute path.",
                downloadChatTranscript, returns: [.model(String.self)]),
    ]

    static let callRows: [Binding<CallService>] = [
        Binding("start_post_session", "Starts the post-session phase of the current call, which has ended: "
                + "post_session_transfer_status becomes \"in_progress\" (a conflict out of order or without post-session).",
                startCallPostSession, returns: [.model(CallResponse.self)]),
        Binding("ready_post_session", "Signals the app is ready for the post-session flow of the current call: \"in_progress\" "
                + "-> \"ready\".", readyCallPostSession, returns: [.model(CallResponse.self)]),
        Binding("get_post_session_flow", "The one post-session flow of the current call (virtual agent > survey > CSAT), or nil "
                + "when none is configured.", getCallPostSessionFlow, returns: [.model(PostSessionFlow.self, optional: true)]),
    ]

    /// `ccai.call.start_post_session`, `ready_post_session` and `get_post_session_flow`:
    /// the post-session phase of the current call, which has ended.
    static func install(intoCall module: inout LuaModule, _ ccai: CCAI) {
        module.functions(callRows) { try CallBindings.requireCall(ccai, $0) }
    }

    static func startPostSession(_ context: SDKContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = try ChatBindings.requireChat(context.sdk, call)
        return try SDKBindings.sdk(call) { try await service.startPostSession() }
    }

    static func readyPostSession(_ context: SDKContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = try ChatBindings.requireChat(context.sdk, call)
        return try SDKBindings.sdk(call) { try await service.readyPostSession() }
    }

    static func getPostSessionFlow(_ context: SDKContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let ccai = context.sdk
        if let calls = ccai.callService, endedLast(calls.currentCall, than: ccai.chatService?.currentChat) {
            return try flow(call) { try await calls.getPostSessionFlow() }
        }
        // With neither a chat nor an ended call there is no flow to tell.
        if ccai.chatService?.currentChat == nil, ccai.chatService != nil || ccai.callService != nil { return call.returning(.nil) }
        let service = try ChatBindings.requireChat(ccai, call)
        return try flow(call) { try await service.getPostSessionFlow() }
    }

    static func isTranscriptDownloadOffered(_ context: SDKContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        call.returning(.boolean(try ChatBindings.requireChat(context.sdk, call).isTranscriptDownloadOffered))
    }

    static func downloadChatTranscriptData(_ context: SDKContext, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = try ChatBindings.requireChat(context.sdk, call)
        return try SDKBindings.sdk(call, { try await service.downloadChatTranscriptData() },
                                   push: { data, output in output.push(.data(data)) })
    }

    static func downloadChatTranscript(_ context: SDKContext, _ options: TranscriptFile, _ call: LuaCall) throws -> LuaReturn {
        let service = try ChatBindings.requireChat(context.sdk, call)
        let path = options.to
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

    static func startCallPostSession(_ service: CallService, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call) { try await service.startPostSession() }
    }

    static func readyCallPostSession(_ service: CallService, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call) { try await service.readyPostSession() }
    }

    static func getCallPostSessionFlow(_ service: CallService, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        try flow(call) { try await service.getPostSessionFlow() }
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

/// `download_chat_transcript{ to = "transcript.pdf" }`, or the file name alone: a path
/// inside the run's output folder.
struct TranscriptFile: BindingArguments {
    static let layout = ArgumentLayout.positional("options", field: "to")
    var to: String

    func problem() -> ArgumentProblem? {
        do {
            try ConfinedFolder.checkRelative(to)
            return nil
        } catch let refusal as ConfinedFolder.Refusal {
            return ArgumentProblem("to", refusal.message.replacingOccurrences(of: "script's folder", with: "output folder"))
        } catch {
            return ArgumentProblem("to", "\(error)")
        }
    }
}
