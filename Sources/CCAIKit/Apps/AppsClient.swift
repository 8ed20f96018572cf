import CCAIWire
import Foundation

/// A client of the platform's published Apps API (`/apps/api/v1`, docs/platform-fidelity.md):
/// what an integrator's server calls on a real tenant, and what the sandbox serves. HTTP
/// Basic credentials (the company's subdomain and an API token); keys of the answers it does
/// not know are ignored, as the "Apps API" page asks; a 429 is waited out after its
/// `Retry-After` (``HTTPClient``), so the published 10 requests a second is backpressure.
///
/// ```swift
/// let apps = try AppsClient(baseURL: "https://acme.example.com", credentials: .init(subdomain: "acme", token: token))
/// let user = try await apps.upsertEndUser(AppsEndUserRequest(identifier: "customer-7"))
/// let chat = try await apps.startChat(AppsChatRequest(endUserId: user.id, menuId: 3))
/// ```
public final class AppsClient: Sendable {
    /// The Basic credentials of the Apps API.
    public struct Credentials: Sendable, Equatable {
        public var subdomain: String
        public var token: String

        public init(subdomain: String, token: String) {
            self.subdomain = subdomain
            self.token = token
        }

        /// `subdomain:token` (`CCAI_APPS_CREDENTIALS`, or a credentials file's one line), or
        /// nil when it is not that.
        public init?(_ text: String) {
            let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let (subdomain, token) = (String(line[..<colon]), String(line[line.index(after: colon)...]))
            guard !subdomain.isEmpty, !token.isEmpty, !line.contains(where: \.isNewline) else { return nil }
            self.init(subdomain: subdomain, token: token)
        }

        var header: String { "Basic " + Data("\(subdomain):\(token)".utf8).base64EncodedString() }
    }

    /// Where the paths start: `https://acme.example.com` (the paths carry `/apps/api/v1`).
    public let baseURL: String
    private let authorization: String
    private let http: HTTPClient

    /// A client of the Apps API at `baseURL`. Credentials travel in every request, so a
    /// plain `http` URL is refused unless it names a loopback address.
    public init(baseURL: String, credentials: Credentials, http: HTTPClient = HTTPClient()) throws {
        guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, url.user == nil, url.query == nil
        else {
            throw CCAIError.invalidArgument("the Apps API's URL must be http(s)://HOST[:PORT] without credentials or a query, got '\(baseURL)'")
        }
        guard scheme == "https" || Self.isLoopback(host) else {
            throw CCAIError.invalidArgument("the Apps API's credentials would travel in clear text to \(host): use https "
                                            + "(plain http is for loopback addresses only)")
        }
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        authorization = credentials.header
        self.http = http
    }

    /// `GET /wait_times`: one entry per menu, waits in seconds.
    public func waitTimes(_ query: AppsWaitTimeQuery) async throws -> [AppsWaitTime] {
        try await send(Endpoints.appsWaitTimes, query: query.items)
    }

    /// `POST /end_users`: creates the end user with the identifier, or updates it.
    public func upsertEndUser(_ request: AppsEndUserRequest) async throws -> AppsEndUser {
        try await send(Endpoints.appsUpsertEndUser, body: request, idempotent: true)
    }

    /// `GET /end_users`: the end user with the id or the identifier.
    public func endUser(id: Int? = nil, identifier: String? = nil) async throws -> AppsEndUser {
        var query: [String: String] = [:]
        query["id"] = id.map(String.init)
        query["identifier"] = identifier
        return try await send(Endpoints.appsEndUser, query: query)
    }

    /// `POST /chats`: a chat for an end user on a menu.
    public func startChat(_ request: AppsChatRequest) async throws -> AppsChat {
        try await send(Endpoints.appsStartChat, body: request)
    }

    /// `GET /chats/{id}`.
    public func chat(_ id: Int) async throws -> AppsChat {
        try await send(Endpoints.appsChat, ["id": id])
    }

    /// `PATCH /chats/{id}`: finish it, or deflect its escalation under way.
    public func updateChat(_ id: Int, _ update: AppsChatUpdate) async throws -> AppsChat {
        try await send(Endpoints.appsUpdateChat, ["id": id], body: update)
    }

    /// `POST /chats/{id}/message`: the end user's text.
    public func sendMessage(_ content: String, to chatID: Int) async throws -> AppsMessage {
        try await send(Endpoints.appsSendMessage, ["id": chatID], body: AppsMessageRequest(content: content))
    }

    /// `POST /chats/{id}/escalations`: from the virtual agent to a human, or by an option.
    public func escalate(_ chatID: Int, _ request: AppsEscalationRequest) async throws -> AppsChat {
        try await send(Endpoints.appsEscalate, ["id": chatID], body: request)
    }

    /// `PATCH /chats/{id}/escalations/{escalation_id}`: commits an option to the escalation.
    public func updateEscalation(_ chatID: Int, escalationID: Int, _ request: AppsEscalationRequest) async throws -> AppsChat {
        try await send(Endpoints.appsUpdateEscalation, ["id": chatID, "escalation_id": escalationID], body: request)
    }

    /// A photo or video as the end user's message in a chat the server started, in the
    /// three steps of the chat platform API: a pre-signed upload URL for `mimeType` (the
    /// kind's default when nil), the `PUT` of `data` to it (without the credentials: the
    /// URL is them), and the upload added to the chat with its `name`.
    public func sendMedia(_ kind: AppsMediaKind, _ data: Data, mimeType: String? = nil, name: String? = nil,
                          to chatID: Int) async throws -> AppsMedia {
        var query: [String: String] = [:]
        query["content_type"] = mimeType
        let upload: AppsUploadURL = try await send(kind.uploadURLEndpoint, ["id": chatID], query: query)
        guard upload.method.uppercased() == "PUT" else {
            throw CCAIError(code: .internal, message: "the upload URL asks for \(upload.method.prefix(20)), not PUT")
        }
        let put = HTTPClientRequest(method: "PUT", url: try uploadURL(upload.url), headers: ["Content-Type": upload.contentType],
                                    body: data)
        _ = try await http.call(put, Endpoints.appsPutUpload)
        return try await send(kind.addEndpoint, ["id": chatID], body: AppsAddMediaRequest(uploadId: upload.uploadId, name: name),
                              idempotent: true)
    }

    /// `GET /chats/{id}/photos` (or `videos`): the chat's files of `kind`, oldest first,
    /// each with a pre-signed download URL.
    public func media(_ kind: AppsMediaKind, of chatID: Int) async throws -> [AppsMedia] {
        try await send(kind.listEndpoint, ["id": chatID])
    }

    /// An upload URL as the platform gave it: an absolute http(s) URL (a tenant's storage),
    /// or a path on this client's host.
    private func uploadURL(_ url: String) throws -> String {
        if url.hasPrefix("/") { return baseURL + url }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
              parsed.host != nil
        else { throw CCAIError(code: .internal, message: "the upload URL is not an http(s) URL: '\(url.prefix(200))'") }
        return url
    }

    private func send<Response: Decodable>(_ endpoint: Endpoint, _ parameters: [String: CustomStringConvertible] = [:],
                                           query: [String: String] = [:], body: (any Encodable)? = nil,
                                           idempotent: Bool? = nil) async throws -> Response {
        var components = URLComponents(string: baseURL + endpoint.path(parameters))
        if !query.isEmpty { components?.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) } }
        var request = HTTPClientRequest(method: endpoint.method, url: components?.string ?? baseURL + endpoint.path(parameters),
                                        headers: ["Authorization": authorization, "Accept": "application/json"],
                                        body: try body.map { try JSONEncoder().encode($0) }, isIdempotent: idempotent)
        if request.body != nil { request.headers["Content-Type"] = "application/json" }
        let response = try await http.call(request, endpoint)
        do {
            return try JSONDecoder().decode(Response.self, from: response.body)
        } catch {
            throw CCAIError(code: .internal, message: "unexpected answer to \(endpoint): \(error)")
        }
    }

    private static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return bare == "localhost" || bare.hasPrefix("127.") || bare == "::1" || bare.hasSuffix(".invalid")
    }
}

/// The filters of `GET /apps/api/v1/wait_times` (`lang` is required).
public struct AppsWaitTimeQuery: Sendable, Equatable {
    public var lang: String
    public var menuId: Int?
    public var menuType: String?
    public var channelType: String?
    public var waitFrom: Int?
    public var waitTo: Int?

    public init(lang: String, menuId: Int? = nil, menuType: String? = nil, channelType: String? = nil, waitFrom: Int? = nil,
                waitTo: Int? = nil) {
        self.lang = lang
        self.menuId = menuId
        self.menuType = menuType
        self.channelType = channelType
        self.waitFrom = waitFrom
        self.waitTo = waitTo
    }

    /// The query string's items, as the published page names them (`wait[from]`).
    var items: [String: String] {
        var items = ["lang": lang]
        items["menu_id"] = menuId.map(String.init)
        items["menu_type"] = menuType
        items["channel_type"] = channelType
        items["wait[from]"] = waitFrom.map(String.init)
        items["wait[to]"] = waitTo.map(String.init)
        return items
    }
}
