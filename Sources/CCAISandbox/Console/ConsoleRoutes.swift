import CCAIWire
import Foundation
import Timekeeping

/// The sandbox's console (`ccai sandbox serve --console`, docs/console.md): a page at
/// `/console` behind the admin token, where a person sees the queues, the agents and the
/// chats, and plays the agents configured with `console = true`: takes a waiting chat,
/// reads and writes, transfers it, ends it. What they do goes through the same domain
/// calls as a scripted agent's (``AgentActions``), so the customer gets the same events.
///
/// The routes are the console's own, not the platform's wire API (docs/openapi.yaml):
///
/// | route | what |
/// | --- | --- |
/// | `GET /console`, `/console/console.js`, `/console/console.css` | the page |
/// | `POST /console/session` `{"token"}` | signs in with the admin token: a session cookie and the CSRF token |
/// | `DELETE /console/session` | signs out |
/// | `GET /console/api/state` | queues, agents, the console agents' chats with their messages, ratings |
/// | `POST /console/api/take` `{"chat_id", "agent"}` | a console agent takes a waiting chat |
/// | `POST /console/api/send` `{"chat_id", "text"}` | writes to the customer |
/// | `POST /console/api/typing` `{"chat_id", "typing"}` | typing on or off |
/// | `POST /console/api/transfer` `{"chat_id", "menu_id"}` | moves the chat to another queue |
/// | `POST /console/api/end` `{"chat_id"}` | ends the chat |
///
/// Every `/console/api` route needs the session cookie; every change also needs the
/// session's CSRF token in `X-CSRF-Token`.
struct ConsoleRoutes: Sendable {
    var configuration: SandboxConfiguration
    var sessions: ConsoleSessions
    var chats: Chats
    var desk: AgentDesk
    var postSessions: PostSessions
    var clock: any TimeSource

    /// The largest change request: a message of 10,000 characters, escaped.
    static let maximumBodyBytes = 64 << 10
    /// The messages of each chat the state carries, and the latest chat ratings.
    static let messagesShown = 100
    static let ratingsShown = 20

    func register(in router: inout HTTPRouter) {
        router.add("GET", "/console", authentication: .none) { _ in .page(ConsolePage.html, type: "text/html") }
        router.add("GET", "/console/console.js", authentication: .none) { _ in .page(ConsolePage.script, type: "text/javascript") }
        router.add("GET", "/console/console.css", authentication: .none) { _ in .page(ConsolePage.styles, type: "text/css") }
        router.add("POST", "/console/session", maximumBodyBytes: 8 << 10, authentication: .none, signIn)
        router.add("DELETE", "/console/session", authentication: .none, signOut)
        router.add("GET", "/console/api/state", authentication: .none) { request in
            _ = try signedIn(request)
            return try .json(await state())
        }
        let changes: [(String, @Sendable (ChangeRequest) async throws -> Void)] = [
            ("take", { try await take($0) }), ("send", { try await send($0) }), ("typing", { try await typing($0) }),
            ("transfer", { try await transfer($0) }), ("end", { try await end($0) }),
        ]
        for (name, change) in changes {
            router.add("POST", "/console/api/" + name, maximumBodyBytes: Self.maximumBodyBytes, authentication: .none) { request in
                let session = try signedIn(request)
                guard let given = request.headers["x-csrf-token"], ConstantTime.equal(given, session.csrf) else {
                    throw HTTPError.forbidden("a change needs the session's X-CSRF-Token")
                }
                let body: ChangeRequest
                do {
                    body = try JSONDecoder().decode(ChangeRequest.self, from: request.body)
                } catch {
                    throw HTTPError.badRequest("a JSON object expected: chat_id, and agent, text, typing or menu_id")
                }
                try await change(body)
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
        guard let given = try? JSONDecoder().decode(SignIn.self, from: request.body), ConstantTime.equal(given.token, adminToken) else {
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

    // MARK: - What the page shows

    /// Everything the page shows, once a second.
    struct State: Encodable {
        struct Queue: Encodable {
            var menuId: Int
            var name: String
            var waiting: [WaitingChat]
        }

        struct WaitingChat: Encodable {
            var chatId: Int
            var waitingSeconds: Double
        }

        struct Agent: Encodable {
            var name: String
            var console: Bool
            var menus: [Int]
            var chats: [Int]
            var calls: [Int]
            var maxChats: Int?
        }

        struct Chat: Encodable {
            var chatId: Int
            var agent: String
            var menuId: Int
            var status: String
            var messages: [Message]
            /// Whether the customer is typing, and the preview of what they type (the
            /// message preview agents see, redacted when the queue redacts).
            var customerTyping: Bool
            var preview: String?
        }

        struct Message: Encodable {
            var id: Int
            var senderType: String
            var senderName: String?
            var type: String
            var text: String?
        }

        var queues: [Queue]
        var agents: [Agent]
        var chats: [Chat]
        var ratings: [RatingsReport.Rating]
    }

    private func state() async throws -> State {
        let now = clock.now()
        let language = configuration.company.languages.first ?? "en"
        var queues: [State.Queue] = []
        for menu in configuration.allMenus where menu.channels?.chat != nil {
            let waiting = try await chats.waiting(onMenus: [menu.id]).map {
                State.WaitingChat(chatId: $0.chat.id, waitingSeconds: max(0, now.timeIntervalSince1970 - $0.chat.createdAt))
            }
            queues.append(State.Queue(menuId: menu.id, name: menu.name.text(language, fallback: language) ?? "", waiting: waiting))
        }
        let holdings = await desk.holdings()
        let agents = (configuration.agents ?? []).map { agent in
            let items = holdings[agent.name] ?? []
            return State.Agent(name: agent.name, console: agent.isPlayedAtTheConsole, menus: agent.menus,
                               chats: items.compactMap { if case .chat(let id) = $0 { id } else { nil } }.sorted(),
                               calls: items.compactMap { if case .call(let id) = $0 { id } else { nil } }.sorted(),
                               maxChats: agent.maxChats)
        }
        var shown: [State.Chat] = []
        for agent in agents where agent.console {
            for chatID in agent.chats {
                guard let endUserID = try await chats.owner(of: chatID),
                      let chat = try await chats.chat(chatID, endUserID: endUserID) else { continue }
                let actions = try await desk.consoleActions(chatID: chatID, endUserID: endUserID, agent: agent.name)
                let messages = try await actions.history(of: chat, last: Self.messagesShown).map {
                    State.Message(id: $0.id, senderType: $0.sender.type.rawValue, senderName: $0.sender.name, type: $0.type.rawValue,
                                  text: $0.text)
                }
                let preview = try await chats.preview(of: chatID)
                shown.append(State.Chat(chatId: chatID, agent: agent.name, menuId: chat.menuId, status: chat.status.rawValue,
                                        messages: messages, customerTyping: preview.typing, preview: preview.text))
            }
        }
        let ratings = try await postSessions.latestRatings(.chats, limit: Self.ratingsShown)
        return State(queues: queues, agents: agents, chats: shown, ratings: ratings)
    }

    // MARK: - Changes

    /// What a change names: the chat, and what the change takes.
    struct ChangeRequest: Decodable, Sendable {
        var chatId: Int
        var agent: String?
        var text: String?
        var typing: Bool?
        var menuId: Int?

        enum CodingKeys: String, CodingKey {
            case chatId = "chat_id", agent, text, typing, menuId = "menu_id"
        }
    }

    /// The chat's end user, or a 404.
    private func owner(of chatID: Int) async throws -> Int {
        guard let endUserID = try await chats.owner(of: chatID) else { throw HTTPError.notFound("there is no chat \(chatID)") }
        return endUserID
    }

    /// The actions of whichever console agent holds the chat, or a `conflict`.
    private func holder(of chatID: Int) async throws -> AgentActions {
        let endUserID = try await owner(of: chatID)
        let holdings = await desk.holdings()
        guard let name = holdings.first(where: { $0.value.contains(.chat(chatID)) })?.key else {
            throw HTTPError.conflict("chat \(chatID) has no agent at the console")
        }
        return try await desk.consoleActions(chatID: chatID, endUserID: endUserID, agent: name)
    }

    private func take(_ change: ChangeRequest) async throws {
        guard let agent = change.agent else { throw HTTPError.badRequest("take needs the agent that takes the chat") }
        _ = try await desk.consoleTakes(chatID: change.chatId, endUserID: try await owner(of: change.chatId), agent: agent)
    }

    private func send(_ change: ChangeRequest) async throws {
        guard let text = change.text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw HTTPError.badRequest("send needs a text")
        }
        guard text.count <= AttachmentLimits.textCharacters else {
            throw HTTPError.badRequest("a message has at most \(AttachmentLimits.textCharacters) characters")
        }
        let actions = try await holder(of: change.chatId)
        guard try await actions.isChatInProgress() else { throw HTTPError.chatEnded(change.chatId) }
        try await actions.say(text)
    }

    private func typing(_ change: ChangeRequest) async throws {
        guard let typing = change.typing else { throw HTTPError.badRequest("typing needs true or false") }
        try await holder(of: change.chatId).setTyping(typing)
    }

    private func transfer(_ change: ChangeRequest) async throws {
        guard let menuID = change.menuId else { throw HTTPError.badRequest("transfer needs the menu_id of the queue") }
        _ = try await holder(of: change.chatId).transfer(toMenu: menuID)
    }

    private func end(_ change: ChangeRequest) async throws {
        _ = try await holder(of: change.chatId).end()
    }
}
