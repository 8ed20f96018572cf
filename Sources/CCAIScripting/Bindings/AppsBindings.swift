import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// `ccai.apps`: a client of the platform's published Apps API (`/apps/api/v1`,
/// docs/platform-fidelity.md), as a company's server calls it: wait times, end users, and
/// the chat platform flow. The embedded sandbox serves it by default; `--apps-host` and
/// the credentials point it at a real tenant. Not the SDK's own protocol: no sign-in, any
/// end user of the company.
///
/// ```lua
/// local user = ccai.apps.upsert_end_user{ identifier = "customer-7", name = "Jo" }
/// local chat = ccai.apps.start_chat{ end_user_id = user.id, menu_id = 1, context = { order = "A-1" } }
/// ccai.apps.send_message{ chat_id = chat.id, content = "Where is my order?" }
/// ccai.apps.send_photo{ chat_id = chat.id, data = receipt, mime_type = "image/png", name = "receipt.png" }
/// ccai.apps.finish_chat(chat.id)
/// ```
enum AppsBindings {
    static let rows: [Binding<Context>] = [
        Binding("wait_times", "The wait of each menu (seconds), with its staffing: lang is required; menu_id (its subtree), "
                + "menu_type, channel_type, wait_from and wait_to filter.", waitTimes, returns: [.model([AppsWaitTime].self)]),
        Binding("upsert_end_user", "Creates the end user with the identifier, or updates the fields given; the same end users "
                + "the SDK signs in.", upsertEndUser, returns: [.model(AppsEndUser.self)]),
        Binding("get_end_user", "The end user with the id or the identifier (both must match when both are given).", getEndUser,
                returns: [.model(AppsEndUser.self)]),
        Binding("start_chat", "Starts a chat for an end user on a menu, queued at once; context is the session's signed custom "
                + "data.", startChat, returns: [.model(AppsChat.self)]),
        Binding("get_chat", "Any chat of the company as the published chat object.", getChat, returns: [.model(AppsChat.self)]),
        Binding("send_message", "The end user's text in a chat the server started.", sendMessage, returns: [.model(AppsMessage.self)]),
        Binding("update_chat", "Changes a chat the server started as published: deflection_channel (with escalation_id, or the "
                + "chat's own) deflects its escalation, then status = \"finished\" ends it.", updateChat,
                returns: [.model(AppsChat.self)]),
        Binding("finish_chat", "Ends a chat the server started (update_chat{ status = \"finished\" }).", finishChat,
                returns: [.model(AppsChat.self)]),
        Binding("escalate", "Escalates a virtual agent's chat the server started: to a human, or by escalation_id (which may "
                + "deflect it).", escalate, returns: [.model(AppsChat.self)]),
        Binding("update_escalation", "Commits an option (deflection_channel) to the escalation under way.", updateEscalation,
                returns: [.model(AppsChat.self)]),
        Binding("send_photo", "A photo (data: its bytes; mime_type, image/jpeg by default; name) as the end user's message in a "
                + "chat the server started: a pre-signed upload URL, the PUT of the bytes, the upload added.",
                { try sendMedia(.photo, $0, $1, $2) }, returns: [.model(AppsMedia.self)]),
        Binding("send_video", "A video (data: its bytes; mime_type, video/mp4 by default; name) as the end user's message in a "
                + "chat the server started, as send_photo.", { try sendMedia(.video, $0, $1, $2) }, returns: [.model(AppsMedia.self)]),
        Binding("list_photos", "The photos of any chat of the company, oldest first, from the end user and the agents, each with a "
                + "pre-signed download url (15 minutes).", { try listMedia(.photo, $0, $1, $2) }, returns: [.model([AppsMedia].self)]),
        Binding("list_videos", "The videos of any chat of the company, as list_photos.", { try listMedia(.video, $0, $1, $2) },
                returns: [.model([AppsMedia].self)]),
    ]

    /// What the functions work with: the client, and where a state's chats' webhooks come from.
    struct Context {
        var apps: AppsClient
        var events: LuaEventEmitter?
        var webhooks: WebhookInbox?
    }

    /// The module, its functions calling `apps` (nil: each raises `not_initialized`); with
    /// `events` and `webhooks`, `on` and `wait_for` of the webhooks of the chats the state
    /// starts.
    static func module(_ apps: AppsClient?, events: LuaEventEmitter? = nil, webhooks: WebhookInbox? = nil) -> LuaModule {
        var module = LuaModule(name: "ccai.apps")
        if let events { module.events(events) }
        module.functions(rows) { call in
            guard let apps else {
                throw LuaErrorValue(code: ErrorCode.notInitialized.rawValue,
                                    message: "ccai.apps has no Apps API: run against the embedded sandbox, or give --apps-host and "
                                        + "credentials (--apps-credentials-file or CCAI_APPS_CREDENTIALS)",
                                    fields: ["service": .string("apps"), "method": .string(SDKBindings.serviceAndMethod(of: call).method)])
            }
            return Context(apps: apps, events: events, webhooks: webhooks)
        }
        return module
    }

    static func waitTimes(_ context: Context, _ query: WaitTimesArguments, _ call: LuaCall) throws -> LuaReturn {
        let apps = context.apps
        let filter = AppsWaitTimeQuery(lang: query.lang, menuId: query.menuId, menuType: query.menuType, channelType: query.channelType,
                                       waitFrom: query.waitFrom, waitTo: query.waitTo)
        return try SDKBindings.sdk(call) { try await apps.waitTimes(filter) }
    }

    static func upsertEndUser(_ context: Context, _ request: AppsEndUserRequest, _ call: LuaCall) throws -> LuaReturn {
        let apps = context.apps
        return try SDKBindings.sdk(call) { try await apps.upsertEndUser(request) }
    }

    static func getEndUser(_ context: Context, _ query: EndUserQuery, _ call: LuaCall) throws -> LuaReturn {
        let apps = context.apps
        return try SDKBindings.sdk(call) { try await apps.endUser(id: query.id, identifier: query.identifier) }
    }

    static func startChat(_ context: Context, _ request: StartChatArguments, _ call: LuaCall) throws -> LuaReturn {
        let apps = context.apps
        var chatContext: JSONValue?
        if let given = request.context {
            guard let object = ChatBindings.json(given), object.objectValue != nil, given.tableValue?.sequence.isEmpty ?? false else {
                throw call.argumentError(1, "request.context", "a table with string keys expected")
            }
            chatContext = object
        }
        let chat = AppsChatRequest(endUserId: request.endUserId, menuId: request.menuId, lang: request.lang, context: chatContext)
        let (events, webhooks, state) = (context.events, context.webhooks, call.context.state)
        return try SDKBindings.sdk(call) {
            let started = try await apps.startChat(chat)
            if let events, let webhooks, let state {
                EventBridge.forward(webhooks.subscribe(chatID: started.id), into: events, in: state) { envelope in
                    (envelope.event, (try? LuaEncoder().encode(envelope)) ?? .nil)
                }
            }
            return started
        }
    }

    static func getChat(_ context: Context, _ chat: ChatIDArgument, _ call: LuaCall) throws -> LuaReturn {
        let apps = context.apps
        return try SDKBindings.sdk(call) { try await apps.chat(chat.value) }
    }

    static func sendMessage(_ context: Context, _ message: MessageArguments, _ call: LuaCall) throws -> LuaReturn {
        let apps = context.apps
        return try SDKBindings.sdk(call) { try await apps.sendMessage(message.content, to: message.chatId) }
    }

    static func updateChat(_ context: Context, _ update: ChatUpdateArguments, _ call: LuaCall) throws -> LuaReturn {
        let apps = context.apps
        let fields = AppsChatUpdate.Fields(status: update.status, deflectionChannel: update.deflectionChannel,
                                           escalationId: update.escalationId)
        return try SDKBindings.sdk(call) { try await apps.updateChat(update.chatId, AppsChatUpdate(chat: fields)) }
    }

    static func finishChat(_ context: Context, _ chat: ChatIDArgument, _ call: LuaCall) throws -> LuaReturn {
        let apps = context.apps
        return try SDKBindings.sdk(call) { try await apps.updateChat(chat.value, AppsChatUpdate(chat: .init(status: "finished"))) }
    }

    static func escalate(_ context: Context, _ request: EscalationArguments, _ call: LuaCall) throws -> LuaReturn {
        let apps = context.apps
        let escalation = AppsEscalationRequest(escalationId: request.escalationId, deflectionChannel: request.deflectionChannel)
        return try SDKBindings.sdk(call) { try await apps.escalate(request.chatId, escalation) }
    }

    static func updateEscalation(_ context: Context, _ request: EscalationUpdateArguments, _ call: LuaCall) throws -> LuaReturn {
        let apps = context.apps
        let escalation = AppsEscalationRequest(deflectionChannel: request.deflectionChannel)
        return try SDKBindings.sdk(call) {
            try await apps.updateEscalation(request.chatId, escalationID: request.escalationId, escalation)
        }
    }

    static func sendMedia(_ kind: AppsMediaKind, _ context: Context, _ file: MediaArguments, _ call: LuaCall) throws -> LuaReturn {
        let apps = context.apps
        return try SDKBindings.sdk(call) {
            try await apps.sendMedia(kind, file.data, mimeType: file.mimeType, name: file.name, to: file.chatId)
        }
    }

    static func listMedia(_ kind: AppsMediaKind, _ context: Context, _ chat: ChatIDArgument, _ call: LuaCall) throws -> LuaReturn {
        let apps = context.apps
        return try SDKBindings.sdk(call) { try await apps.media(kind, of: chat.value) }
    }
}

/// `ccai.apps.send_photo{ chat_id = chat.id, data = bytes, mime_type = "image/png", name = "receipt.png" }`.
struct MediaArguments: BindingArguments {
    static let layout = ArgumentLayout.table("file")
    var chatId: Int
    var data: Data
    var mimeType: String?
    var name: String?

    func problem() -> ArgumentProblem? {
        data.isEmpty ? ArgumentProblem("data", "the file's bytes expected (a non-empty string)") : nil
    }
}

/// `ccai.apps.wait_times{ lang = "en", menu_id = 3, channel_type = "chat", wait_from = 60 }`.
struct WaitTimesArguments: BindingArguments {
    static let layout = ArgumentLayout.table("query")
    var lang: String
    var menuId: Int?
    var menuType: String?
    var channelType: String?
    var waitFrom: Int?
    var waitTo: Int?

    func problem() -> ArgumentProblem? {
        if lang.isEmpty { return ArgumentProblem("lang", "a language code expected (\"en\")") }
        for (field, value) in [("menu_id", menuId), ("wait_from", waitFrom), ("wait_to", waitTo)] {
            if let value, value <= 0 { return ArgumentProblem(field, "a positive integer expected, got \(value)") }
        }
        return nil
    }
}

extension AppsEndUserRequest: BindingArguments {
    static var layout: ArgumentLayout { .table("end_user") }

    func problem() -> ArgumentProblem? {
        identifier.isEmpty ? ArgumentProblem("identifier", "a non-empty string expected") : nil
    }
}

/// `ccai.apps.get_end_user{ identifier = "customer-7" }` or `{ id = 12 }`.
struct EndUserQuery: BindingArguments {
    static let layout = ArgumentLayout.table("query")
    var id: Int?
    var identifier: String?

    func problem() -> ArgumentProblem? {
        id == nil && identifier == nil ? ArgumentProblem(nil, "id or identifier expected") : nil
    }
}

/// `ccai.apps.start_chat{ end_user_id = user.id, menu_id = 1, lang = "en", context = { ... } }`.
struct StartChatArguments: BindingArguments {
    static let layout = ArgumentLayout.table("request")
    var endUserId: Int
    var menuId: Int
    var lang: String?
    var context: LuaValue?
}

/// `ccai.apps.get_chat(chat.id)`, `ccai.apps.finish_chat(chat.id)`.
struct ChatIDArgument: ValueArgument {
    static let name = "chat_id"
    var value: Int
}

/// `ccai.apps.send_message{ chat_id = chat.id, content = "hello" }`.
struct MessageArguments: BindingArguments {
    static let layout = ArgumentLayout.table("message")
    var chatId: Int
    var content: String

    func problem() -> ArgumentProblem? { content.isEmpty ? ArgumentProblem("content", "a non-empty string expected") : nil }
}

/// `ccai.apps.update_chat{ chat_id = chat.id, status = "finished" }`.
struct ChatUpdateArguments: BindingArguments {
    static let layout = ArgumentLayout.table("update")
    var chatId: Int
    var status: String?
    var deflectionChannel: String?
    var escalationId: Int?
}

/// `ccai.apps.escalate{ chat_id = chat.id, escalation_id = 2 }`.
struct EscalationArguments: BindingArguments {
    static let layout = ArgumentLayout.table("request")
    var chatId: Int
    var escalationId: Int?
    var deflectionChannel: String?
}

/// `ccai.apps.update_escalation{ chat_id = chat.id, escalation_id = 2, deflection_channel = "email" }`.
struct EscalationUpdateArguments: BindingArguments {
    static let layout = ArgumentLayout.table("request")
    var chatId: Int
    var escalationId: Int
    var deflectionChannel: String?
}
