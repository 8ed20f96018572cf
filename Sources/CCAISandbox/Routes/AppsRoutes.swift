import CCAIWire
import Foundation

/// The Apps API's end users and wait times (docs/platform-fidelity.md): `POST` and `GET
/// /apps/api/v1/end_users`, `GET /apps/api/v1/wait_times`. The company's server calls them
/// with its Basic credentials (``AppsGate``); the rules are ``AppsChats``' and the queues'.
struct AppsRoutes: Sendable {
    let configuration: SandboxConfiguration
    let appsChats: AppsChats
    let queues: Queues
    let desk: AgentDesk

    func register(in router: inout HTTPRouter) {
        router.on([
            (Endpoints.appsUpsertEndUser, upsertEndUser),
            (Endpoints.appsEndUser, endUser),
            (Endpoints.appsWaitTimes, waitTimes),
        ])
    }

    /// An upsert by `identifier`: 200 with the end user's `id` and `identifier`, as published.
    private func upsertEndUser(_ request: HTTPRequest) async throws -> HTTPResponse {
        try .json(try await appsChats.upsert(try request.decode(AppsEndUserRequest.self, wrappedIn: "end_user")))
    }

    private func endUser(_ request: HTTPRequest) async throws -> HTTPResponse {
        try request.refuseQueryParameters(except: ["id", "identifier"])
        var id: Int?
        if let text = request.query["id"] {
            guard let value = Int(text), value > 0 else { throw HTTPError.badRequest("the query parameter 'id' must be a positive integer") }
            id = value
        }
        return try .json(try await appsChats.endUser(id: id, identifier: request.query["identifier"]))
    }

    /// One entry per menu (of the subtree of `menu_id`), filtered by `menu_type`,
    /// `channel_type`, `wait[from]` and `wait[to]`; waits in seconds.
    private func waitTimes(_ request: HTTPRequest) async throws -> HTTPResponse {
        try request.refuseQueryParameters(except: WaitTimeFilter.parameters)
        let filter = try WaitTimeFilter(request.query, languages: configuration.company.languages)
        let roots = try filter.menuID.map { [try queues.menu($0)] } ?? (configuration.menus ?? [])
        guard filter.menuType == nil || filter.menuType == .mobileMenu else { return try .json([AppsWaitTime]()) }
        let engine = try await queues.engine()
        var entries: [AppsWaitTime] = []
        for menu in roots.flatMap(\.flattened) {
            let waits = engine.waitTimes(menu)
            guard filter.admits(chat: waits.chat, voiceCall: waits.voiceCall) else { continue }
            let staffing = await desk.staffing(ofMenu: menu.id)
            let path = configuration.materializedPath(to: menu.id, language: filter.language)
            entries.append(AppsWaitTime(menuId: menu.id, menuType: AppsMenuType.mobileMenu.rawValue, chat: waits.chat,
                                        voiceCall: waits.voiceCall, materializedPath: path,
                                        loggedInAgents: staffing.loggedIn, availableAgents: staffing.available))
        }
        return try .json(entries)
    }
}

/// The query of `GET /apps/api/v1/wait_times`, checked: a 400 names the parameter.
struct WaitTimeFilter {
    enum Channel: String, CaseIterable {
        case chat
        case voiceCall = "voice_call"
    }

    var language: String
    var menuID: Int?
    var menuType: AppsMenuType?
    var channel: Channel?
    var waitFrom: Int?
    var waitTo: Int?

    /// The languages the published page lists for `lang`.
    static let publishedLanguages = ["en", "es", "fr", "de", "it", "ja", "ko", "pt", "pt-BR", "sv"]
    static let parameters: Set<String> = ["lang", "menu_id", "menu_type", "channel_type", "wait[from]", "wait[to]"]

    /// The filter of `query`; menu names are in `lang` when the company has it, else in its
    /// default language.
    init(_ query: [String: String], languages: [String]) throws {
        guard let language = query["lang"], Self.publishedLanguages.contains(language) else {
            throw HTTPError.badRequest("the query parameter 'lang' is required, one of: \(Self.publishedLanguages.joined(separator: ", "))"
                                       + " (the company's: \(languages.joined(separator: ", ")))")
        }
        self.language = languages.contains(language) ? language : languages.first ?? language
        menuID = try Self.positive(query, "menu_id")
        if let text = query["menu_type"] {
            guard let type = AppsMenuType(rawValue: text) else {
                throw HTTPError.badRequest("menu_type must be one of: \(AppsMenuType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            menuType = type
        }
        if let text = query["channel_type"] {
            guard let channel = Channel(rawValue: text) else {
                throw HTTPError.badRequest("channel_type must be one of: \(Channel.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.channel = channel
        }
        waitFrom = try Self.positive(query, "wait[from]")
        waitTo = try Self.positive(query, "wait[to]")
    }

    /// Whether a menu with these waits is listed: it offers the channel asked for, and
    /// one of its waits (the channel's, when one is asked for) is within the bounds.
    func admits(chat: Int?, voiceCall: Int?) -> Bool {
        let waits: [Int?] = switch channel {
        case .chat?: [chat]
        case .voiceCall?: [voiceCall]
        case nil: [chat, voiceCall]
        }
        return waits.compactMap { $0 }.contains { wait in
            (waitFrom.map { wait > $0 } ?? true) && (waitTo.map { wait < $0 } ?? true)
        }
    }

    private static func positive(_ query: [String: String], _ name: String) throws -> Int? {
        guard let text = query[name] else { return nil }
        guard let value = Int(text), value > 0 else { throw HTTPError.badRequest("the query parameter '\(name)' must be a positive integer") }
        return value
    }
}
