import Foundation

/// How a list that grows is read: a page of at most `limit` items (a default when it is
/// not given, a maximum past which the request is refused) after the cursor `after` (the
/// last id of the previous page; 0 or none for the first page). A page shorter than its
/// limit is the last one.
///
/// ```swift
/// Paging.messages.query(after: 120)   // ["after": "120", "limit": "1000"]
/// // GET /chats/7/messages?after=120&limit=1000
/// ```
public struct Paging: Sendable, Equatable {
    /// The items of a page when `limit` is not given.
    public let defaultLimit: Int
    /// The most items a page may ask for.
    public let maximumLimit: Int

    /// `GET /chats/{id}/messages`: by message id.
    public static let messages = Paging(defaultLimit: 200, maximumLimit: 1_000)
    /// `GET /admin/ratings`: by chat (`communication_id`), ratings and survey answers alike.
    public static let ratings = Paging(defaultLimit: 500, maximumLimit: 1_000)
    /// `GET /admin/voicemails`: by call id.
    public static let voicemails = Paging(defaultLimit: 500, maximumLimit: 1_000)
    /// `GET /admin/pushes`: by push id.
    public static let pushes = Paging(defaultLimit: 500, maximumLimit: 1_000)
    /// `GET /admin/session_metadata/{type}`: by session id (whole records, so fewer a page).
    public static let sessionMetadata = Paging(defaultLimit: 100, maximumLimit: 500)
    /// `GET /admin/webhook_deliveries`: newest first, by delivery id (the cursor `before`).
    public static let webhookDeliveries = Paging(defaultLimit: 100, maximumLimit: 1_000)

    /// The query of the page after `after`, of the largest size.
    public func query(after: Int) -> [String: String] {
        ["after": String(after), "limit": String(maximumLimit)]
    }

    /// The cursor and size a query asks for, or what is wrong with it. `cursor` names the
    /// cursor's parameter: `after` for lists read oldest first, `before` for those read
    /// newest first (0 or none for the first page either way).
    public func page(_ query: [String: String], cursor: String = "after") -> Result<(after: Int, limit: Int), PagingError> {
        let limitText = query["limit"] ?? String(defaultLimit), afterText = query[cursor] ?? "0"
        guard let limit = Int(limitText), (1...maximumLimit).contains(limit) else {
            return .failure(PagingError(message: "limit must be a whole number from 1 to \(maximumLimit), got '\(limitText)'"))
        }
        guard let after = Int(afterText), after >= 0 else {
            return .failure(PagingError(message: "\(cursor) must be a whole number from 0 (the last id of the previous page), got '\(afterText)'"))
        }
        return .success((after, limit))
    }
}

/// A page asked for with a bad `limit` or `after`.
public struct PagingError: Error, Equatable, Sendable {
    public var message: String
}
