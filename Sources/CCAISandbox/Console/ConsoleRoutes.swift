import CCAIWire
import Foundation
import Timekeeping

/// The sandbox's console (`ccai sandbox serve --console`, docs/console.md): a page at
/// `/console` behind the admin token, where a person sees the queues, the agents and the
/// live sessions, and plays the agents configured with `console = true`: takes a waiting
/// chat, reads and writes (files too), asks for smart actions and forms, transfers it,
/// ends it; answers a waiting call, holds it, ends it; escalates a virtual agent's chat or
/// call to the human agents. What they do goes through the same domain calls as a
/// scripted agent's (``AgentActions``, ``CallAgentActions``, ``AgentDesk``), so the
/// customer gets the same events.
///
/// The routes are the console's own, not the platform's wire API (docs/openapi.yaml):
///
/// | route | what |
/// | --- | --- |
/// | `GET /console`, `/console/console.js`, `/console/console.css` | the page |
/// | `POST /console/session` `{"token"}` | signs in with the admin token: a session cookie and the CSRF token |
/// | `DELETE /console/session` | signs out |
/// | `GET /console/api/state[?watch=CHAT]` | what the page shows (``ConsoleState``) |
/// | `GET /console/api/media?chat_id=&media_id=` | a file of a chat, as a download |
/// | `POST /console/api/take` `{"chat_id", "agent"}` | a console agent takes a waiting chat |
/// | `POST /console/api/send` `{"chat_id", "text"}` | writes to the customer |
/// | `POST /console/api/typing` `{"chat_id", "typing"}` | typing on or off |
/// | `POST /console/api/file` `{"chat_id", "name", "mime_type", "data"}` | sends a file (base64 data, at most 256 KiB) |
/// | `POST /console/api/smart_action` `{"chat_id", "type"}` | asks for a smart action |
/// | `POST /console/api/form` `{"chat_id", "form_id"` or `"external_form_id"}` | sends a custom or web form |
/// | `POST /console/api/transfer` `{"chat_id", "menu_id"}` | moves the chat to another queue |
/// | `POST /console/api/end` `{"chat_id"}` | ends the chat |
/// | `POST /console/api/answer` `{"call_id", "agent"}` | a console agent answers a waiting call |
/// | `POST /console/api/hold` `{"call_id", "on_hold"}` | holds the call, or takes it off hold |
/// | `POST /console/api/end_call` `{"call_id"}` | ends the call |
/// | `POST /console/api/escalate` `{"chat_id"}` or `{"call_id"}` | hands a virtual agent's session to the human agents |
///
/// Every `/console/api` route needs the session cookie; every change also needs the
/// session's CSRF token in `X-CSRF-Token`.
struct ConsoleRoutes: Sendable {
    var configuration: SandboxConfiguration
    var sessions: ConsoleSessions
    var state: ConsoleStateReader
    var desk: AgentDesk
    var files: ChatFiles

    private var chats: Chats { state.chats }
    private var calls: Calls { state.calls }

    /// The largest change request: a message of 10,000 characters, escaped.
    static let maximumBodyBytes = 64 << 10
    /// The largest file the console sends (the pre-authentication share of one address,
    /// 512 KiB, holds its base64 body); an agent script sends up to 20 MB.
    static let maximumFileBytes = 256 << 10

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    func register(in router: inout HTTPRouter) {
        router.add("GET", "/console", authentication: .none) { _ in .page(ConsolePage.html, type: "text/html") }
        router.add("GET", "/console/console.js", authentication: .none) { _ in .page(ConsolePage.script, type: "text/javascript") }
        router.add("GET", "/console/console.css", authentication: .none) { _ in .page(ConsolePage.styles, type: "text/css") }
        router.add("POST", "/console/session", maximumBodyBytes: 8 << 10, authentication: .none, signIn)
        router.add("DELETE", "/console/session", authentication: .none, signOut)
        router.add("GET", "/console/api/state", authentication: .none) { request in
            _ = try signedIn(request)
            return try .json(await state.read(watching: request.query["watch"].flatMap { Int($0) }))
        }
        router.add("GET", "/console/api/media", authentication: .none, media)
        for change in changes {
            router.add("POST", "/console/api/" + change.name, maximumBodyBytes: change.maximumBodyBytes, authentication: .none) { request in
                let session = try signedIn(request)
                guard let given = request.headers["x-csrf-token"], ConstantTime.equal(given, session.csrf) else {
                    throw HTTPError.forbidden("a change needs the session's X-CSRF-Token")
                }
                try await change.apply(request.body)
                return HTTPResponse(status: 204)
            }
        }
    }

    // MARK: - The page and the session

    private struct SignIn: Decodable {
        var token: String
    }

    private struct SignedIn: Encodable {
        var csrfToken: String
    }

    private func signIn(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let adminToken = configuration.adminToken, !adminToken.isEmpty else {
            throw HTTPError.forbidden("the console needs an admin token: admin_token in the configuration, or --admin-token-file")
        }
        try sessions.admitSignIn(from: request.clientAddress)
        guard let given = try? JSONDecoder().decode(SignIn.self, from: request.body), ConstantTime.equal(given.token, adminToken) else {
            sessions.chargeFailedSignIn(from: request.clientAddress)
            throw HTTPError.forbidden("that is not this sandbox's admin token")
        }
        let session = sessions.open(now: Date())
        var response = try HTTPResponse.json(SignedIn(csrfToken: session.csrf), status: 201)
        response.headers["Set-Cookie"] = ConsoleSessions.setCookie(session)
        response.headers.merge(HTTPResponse.pageHeaders) { mine, _ in mine }
        return response
    }

    private func signOut(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let session = sessions.session(of: request, now: Date()) { sessions.close(session) }
        var response = HTTPResponse(status: 204)
        response.headers["Set-Cookie"] = ConsoleSessions.setCookie(nil)
        return response
    }

    private func signedIn(_ request: HTTPRequest) throws -> ConsoleSessions.Session {
        guard let session = sessions.session(of: request, now: Date()) else {
            throw HTTPError.unauthenticated("sign in at the console with the admin token")
        }
        return session
    }

    /// A chat's file as a download: never shown in the console's own origin as a page.
    private func media(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try signedIn(request)
        guard let chatID = request.query["chat_id"].flatMap({ Int($0) }), let mediaID = request.query["media_id"].flatMap({ Int($0) })
        else { throw HTTPError.badRequest("media needs chat_id and media_id") }
        let (media, data) = try await files.download(mediaID, endUserID: try await owner(ofChat: chatID))
        var response = HTTPResponse(status: 200, headers: HTTPResponse.pageHeaders, body: data)
        response.headers["Content-Type"] = "application/octet-stream"
        response.headers["Content-Disposition"] = "attachment; filename=\"\(Self.downloadName(media))\""
        return response
    }

    /// A file's name for `Content-Disposition`: its letters, digits, dots, dashes and
    /// underscores (a customer names their files), or `file-ID`.
    static func downloadName(_ media: ChatMedia) -> String {
        let kept = String((media.name ?? "").unicodeScalars.filter {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || ".-_".unicodeScalars.contains($0)
        }.map(Character.init))
        return kept.trimmingCharacters(in: CharacterSet(charactersIn: ".")).isEmpty ? "file-\(media.id)" : kept
    }

    // MARK: - Changes

    /// A change the page makes: its route's last segment, its largest body, and what it does
    /// with the body.
    struct Change: Sendable {
        var name: String
        var maximumBodyBytes: Int
        var apply: @Sendable (Data) async throws -> Void
    }

    /// A change whose body decodes as `Body` (the keys in snake_case); `expected` names its
    /// fields for the 400 of a body that does not.
    private static func change<Body: Decodable>(_ name: String, _ expected: String, maximumBodyBytes: Int = maximumBodyBytes,
                                                _ apply: @escaping @Sendable (Body) async throws -> Void) -> Change {
        Change(name: name, maximumBodyBytes: maximumBodyBytes) { data in
            let body: Body
            do {
                body = try decoder.decode(Body.self, from: data)
            } catch {
                throw HTTPError.badRequest("\(name) takes a JSON object with \(expected)")
            }
            try await apply(body)
        }
    }

    private struct OfChat: Decodable { var chatId: Int }
    private struct Take: Decodable { var chatId: Int; var agent: String }
    private struct Send: Decodable { var chatId: Int; var text: String }
    private struct Typing: Decodable { var chatId: Int; var typing: Bool }
    private struct FileToSend: Decodable { var chatId: Int; var name: String; var mimeType: String; var data: Data }
    private struct SmartActionToAsk: Decodable { var chatId: Int; var type: String }
    private struct FormToSend: Decodable { var chatId: Int; var formId: Int?; var externalFormId: String? }
    private struct Transfer: Decodable { var chatId: Int; var menuId: Int }
    private struct Answer: Decodable { var callId: Int; var agent: String }
    private struct Hold: Decodable { var callId: Int; var onHold: Bool }
    private struct OfCall: Decodable { var callId: Int }
    private struct Escalation: Decodable { var chatId: Int?; var callId: Int? }

    /// Every change, one row each.
    private var changes: [Change] {
        [
            Self.change("take", "chat_id and agent") { (body: Take) in try await take(body) },
            Self.change("send", "chat_id and text") { (body: Send) in try await send(body) },
            Self.change("typing", "chat_id and typing (true or false)") { (body: Typing) in
                try await holder(ofChat: body.chatId).setTyping(body.typing)
            },
            Self.change("file", "chat_id, name, mime_type and data (base64)", maximumBodyBytes: Self.maximumFileBytes * 4 / 3 + (8 << 10)) {
                (body: FileToSend) in try await sendFile(body)
            },
            Self.change("smart_action", "chat_id and type") { (body: SmartActionToAsk) in try await askSmartAction(body) },
            Self.change("form", "chat_id and form_id or external_form_id") { (body: FormToSend) in try await sendForm(body) },
            Self.change("transfer", "chat_id and menu_id") { (body: Transfer) in
                _ = try await holder(ofChat: body.chatId).transfer(toMenu: body.menuId)
            },
            Self.change("end", "chat_id") { (body: OfChat) in _ = try await holder(ofChat: body.chatId).end() },
            Self.change("answer", "call_id and agent") { (body: Answer) in
                _ = try await desk.consoleAnswers(callID: body.callId, endUserID: try await owner(ofCall: body.callId), agent: body.agent)
            },
            Self.change("hold", "call_id and on_hold (true or false)") { (body: Hold) in
                let actions = try await holder(ofCall: body.callId)
                _ = try await body.onHold ? actions.hold() : actions.resume()
            },
            Self.change("end_call", "call_id") { (body: OfCall) in _ = try await holder(ofCall: body.callId).end() },
            Self.change("escalate", "chat_id or call_id") { (body: Escalation) in try await escalate(body) },
        ]
    }

    /// The chat's end user, or a 404.
    private func owner(ofChat chatID: Int) async throws -> Int {
        guard let endUserID = try await chats.owner(of: chatID) else { throw HTTPError.notFound("there is no chat \(chatID)") }
        return endUserID
    }

    /// The call's end user, or a 404.
    private func owner(ofCall callID: Int) async throws -> Int {
        guard let endUserID = try await calls.owner(of: callID) else { throw HTTPError.notFound("there is no call \(callID)") }
        return endUserID
    }

    /// The console agent holding `item`, or a `conflict`.
    private func consoleHolder(of item: WorkItem, _ what: String) async throws -> String {
        guard let name = await desk.holder(of: item), configuration.agents?.first(where: { $0.name == name })?.isPlayedAtTheConsole == true
        else { throw HTTPError.conflict("\(what) has no agent at the console") }
        return name
    }

    /// The actions of whichever console agent holds the chat, or a `conflict`.
    private func holder(ofChat chatID: Int) async throws -> AgentActions {
        let endUserID = try await owner(ofChat: chatID)
        let name = try await consoleHolder(of: .chat(chatID), "chat \(chatID)")
        return try await desk.consoleActions(chatID: chatID, endUserID: endUserID, agent: name)
    }

    /// The actions of whichever console agent holds the call, or a `conflict`.
    private func holder(ofCall callID: Int) async throws -> CallAgentActions {
        let endUserID = try await owner(ofCall: callID)
        let name = try await consoleHolder(of: .call(callID), "call \(callID)")
        return try await desk.consoleCallActions(callID: callID, endUserID: endUserID, agent: name)
    }

    private func take(_ body: Take) async throws {
        _ = try await desk.consoleTakes(chatID: body.chatId, endUserID: try await owner(ofChat: body.chatId), agent: body.agent)
    }

    private func send(_ body: Send) async throws {
        let text = body.text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let problem = AttachmentLimits.textProblem(text) { throw HTTPError.badRequest(problem) }
        let actions = try await holder(ofChat: body.chatId)
        guard try await actions.isChatInProgress() else { throw HTTPError.chatEnded(body.chatId) }
        try await actions.say(text)
    }

    private func sendFile(_ body: FileToSend) async throws {
        guard body.data.count <= Self.maximumFileBytes else {
            throw HTTPError(code: .tooLarge, message: "the console sends files of at most "
                                + "\(AttachmentLimits.megabytes(Self.maximumFileBytes)); an agent script's agent.send_file sends up to "
                                + AttachmentLimits.megabytes(AttachmentLimits.videoBytes))
        }
        _ = try await holder(ofChat: body.chatId).sendFile(name: body.name, mimeType: body.mimeType, data: body.data)
    }

    private func askSmartAction(_ body: SmartActionToAsk) async throws {
        guard let type = SmartActionType(rawValue: body.type), SmartActionType.requestable.contains(type) else {
            throw HTTPError.badRequest("type: one of " + SmartActionType.requestable.map(\.rawValue).joined(separator: ", ")
                                       + " expected, got '\(body.type)'")
        }
        _ = try await holder(ofChat: body.chatId).askSmartAction(type)
    }

    private func sendForm(_ body: FormToSend) async throws {
        let form: Forms.FormToSend
        switch (body.formId, body.externalFormId) {
        case (let id?, nil):
            guard let custom = configuration.customForm(id) else {
                throw HTTPError.badRequest("form_id: one of the configured custom forms expected, got \(id)")
            }
            form = .custom(custom)
        case (nil, let externalID?):
            guard let web = configuration.webForm(externalID) else {
                throw HTTPError.badRequest("external_form_id: one of the configured web forms expected, got '\(externalID)'")
            }
            form = .web(web)
        default:
            throw HTTPError.badRequest("form takes either form_id (a custom form) or external_form_id (a web form)")
        }
        try await holder(ofChat: body.chatId).postForm(form)
    }

    private func escalate(_ body: Escalation) async throws {
        switch (body.chatId, body.callId) {
        case (let chatID?, nil):
            _ = try await desk.escalate(chatID: chatID, endUserID: try await owner(ofChat: chatID), option: nil)
        case (nil, let callID?):
            _ = try await desk.escalate(callID: callID, endUserID: try await owner(ofCall: callID))
        default:
            throw HTTPError.badRequest("escalate takes either chat_id or call_id")
        }
    }
}
