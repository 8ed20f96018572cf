import CCAIWire
import Foundation

/// The session metadata record of an ended chat or call, in the published schema's field
/// names (CCAI Platform, "Chat session metadata", "Call session metadata"): one JSON
/// object per session, what the platform writes as `metadata.json` to external storage.
/// Each field, where it comes from, and those the sandbox cannot fill (always null) are in
/// docs/session-metadata.md. A field the pages show is encoded even when null.
///
/// ```swift
/// let record = try await exports.metadata(.chat, id: 12)   // or a 404
/// ```
struct SessionMetadata: Encodable, Sendable, Equatable {
    /// `selected_menu`: the queue the session was on.
    struct SelectedMenu: Encodable, Sendable, Equatable {
        var id: Int
        var name: String
        var parentId: Int?
        var position: Int?
        var menuType: String

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(id, forKey: "id")
            try container.encode(name, forKey: "name")
            try container.encode(parentId, forKey: "parent_id")
            try container.encode(position, forKey: "position")
            try container.encode(menuType, forKey: "menu_type")
        }
    }

    /// `menu_path`: the queue's place in the tree.
    struct MenuPath: Encodable, Sendable, Equatable {
        var name: String
        var materializedPath: String

        enum CodingKeys: String, CodingKey {
            case name
            case materializedPath = "materialized_path"
        }
    }

    /// `agent_info`: the session's last handler, a human agent or a virtual agent (the
    /// published `oneOf`: `email` for a human, `va_alias` for a virtual agent).
    struct AgentInfo: Encodable, Sendable, Equatable {
        var name: String
        var isVirtual: Bool

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(nil as Int?, forKey: "id")
            try container.encode(name, forKey: "name")
            try container.encode(nil as String?, forKey: "avatar_url")
            if isVirtual {
                try container.encode(name, forKey: "va_alias")
            } else {
                for key in ["email", "first_name", "last_name", "agent_number"] { try container.encode(nil as String?, forKey: Key(key)) }
            }
        }
    }

    /// `end_user`: who the session was with.
    struct EndUserInfo: Encodable, Sendable, Equatable {
        var id: Int
        var identifier: String?
    }

    /// One smart action of the session and its result (`smart_actions`, our name).
    struct SmartActionRecord: Encodable, Sendable, Equatable {
        var id: Int
        var type: String
        var status: String
        var verified: Bool?
        var text: String?
        var mediaIds: [Int]?
        var createdAt: String
        var updatedAt: String

        enum CodingKeys: String, CodingKey {
            case id, type, status, verified, text
            case mediaIds = "media_ids"
            case createdAt = "created_at"
            case updatedAt = "updated_at"
        }
    }

    var kind: CommunicationRouter.CommunicationType
    var id: Int
    var lang: String
    /// `chat_type` or `call_type` (legacy vocabulary), also `session_type`.
    var sessionType: String
    var sessionTypeV2: String
    var status: String
    var subStatus: String?
    var createdAt: String
    var queuedAt: String?
    var assignedAt: String?
    var connectedAt: String?
    var endsAt: String?
    var scheduledAt: String?
    var updatedAt: String
    var firstMessageAt: String?
    var lastMessageAt: String?
    var waitDuration: Int?
    /// `chat_duration` or `call_duration`: from the first agent's arrival to the end.
    var duration: Int?
    var verified: Bool
    var rating: Int?
    var feedback: String?
    var deflection: String
    var disconnectedBy: String
    var selectedMenu: SelectedMenu?
    var menuPath: MenuPath?
    var agentInfo: AgentInfo?
    var endUser: EndUserInfo?
    var photos: [Int]
    var videos: [Int]
    var texts: [String]
    var smartActions: [SmartActionRecord]

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(id, forKey: "id")
        try container.encode(lang, forKey: "lang")
        try container.encode(sessionType, forKey: kind == .chat ? "chat_type" : "call_type")
        try container.encode(sessionType, forKey: "session_type")
        try container.encode(sessionTypeV2, forKey: "session_type_v2")
        try container.encode(status, forKey: "status")
        try container.encode(subStatus, forKey: "sub_status")
        try container.encode(createdAt, forKey: "created_at")
        try container.encode(assignedAt, forKey: "assigned_at")
        try container.encode(endsAt, forKey: "ends_at")
        try container.encode(updatedAt, forKey: "updated_at")
        try container.encode(waitDuration, forKey: "wait_duration")
        try container.encode(verified, forKey: "verified")
        try container.encode(rating, forKey: "rating")
        try container.encode(feedback != nil, forKey: "has_feedback")
        try container.encode(feedback, forKey: "feedback")
        try container.encode(deflection, forKey: "deflection")
        try container.encode(disconnectedBy, forKey: "disconnected_by")
        try container.encode(selectedMenu, forKey: "selected_menu")
        try container.encode(menuPath, forKey: "menu_path")
        try container.encode(agentInfo, forKey: "agent_info")
        try container.encode(endUser, forKey: "end_user")
        try container.encode(photos, forKey: "photos")
        try container.encode(videos, forKey: "videos")
        try container.encode(texts, forKey: "texts")
        try container.encode(smartActions, forKey: "smart_actions")
        try container.encode(nil as String?, forKey: "out_ticket_id")
        try container.encode(nil as String?, forKey: "out_ticket_url")
        switch kind {
        case .chat:
            try container.encode(firstMessageAt, forKey: "first_msg_sent_at")
            try container.encode(lastMessageAt, forKey: "last_msg_sent_at")
            try container.encode(duration, forKey: "chat_duration")
        case .call:
            for (key, value) in [("queued_at", queuedAt), ("connected_at", connectedAt), ("scheduled_at", scheduledAt)] {
                try container.encode(value, forKey: Key(key))
            }
            try container.encode(waitDuration, forKey: "queue_duration")
            try container.encode(duration, forKey: "call_duration")
            try container.encode(nil as Int?, forKey: "hold_duration")
            try container.encode(nil as String?, forKey: "recording_url")
        }
    }

    /// A JSON key spelled as the published schema spells it.
    struct Key: CodingKey, ExpressibleByStringLiteral {
        var stringValue: String
        var intValue: Int? { nil }

        init(_ name: String) { stringValue = name }
        init(stringLiteral name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// A page of session metadata records by session id (`GET /admin/session_metadata/{type}`).
struct SessionMetadataPage: Encodable, Sendable {
    var sessions: [SessionMetadata]
}
