import CCAIWire

/// Queue menus, channels and wait times (seed 001).
///
/// ```swift
/// let (menus, isDirectAccess) = try await ccai.queueMenuService!.get(key: nil, language: "en")
/// let billing = menus.findMenu(byId: 1)
/// let waits = try await ccai.queueMenuService!.getWaitTimes(menuId: 1, language: "en")
/// ```
public final class QueueMenuService: Sendable {
    private let api: APIClient
    private let language: LanguageService

    init(api: APIClient, language: LanguageService) {
        self.api = api
        self.language = language
    }

    /// The menu tree in `language` (default: the SDK's language), or the one queue of a
    /// direct access point `key`, with whether the key matched.
    public func get(key: String? = nil, language: String? = nil) async throws -> ([QueueMenu], Bool) {
        var query = ["language": language ?? self.language.languageCode]
        if let key, !key.isEmpty { query["key"] = key }
        let response = try await api.send(Endpoints.queueMenus, query: query, as: QueueMenusResponse.self)
        return (response.menus, response.isDirectAccess)
    }

    /// Estimated waits, in seconds, of the queue's channels.
    public func getWaitTimes(menuId: Int, language: String? = nil) async throws -> WaitTimes {
        try await api.send(Endpoints.waitTimes, ["id": menuId],
                           query: ["language": language ?? self.language.languageCode], as: WaitTimes.self)
    }
}
