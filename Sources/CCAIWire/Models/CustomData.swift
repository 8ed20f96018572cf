/// Data attached to a session for the agent's CRM (seed 000): signed (a JWT made with
/// the company secret, trusted) or unsigned (set by the client).
///
/// ```swift
/// var payload = CustomDataPayload()
/// payload["tier"] = CustomDataItem(label: "Tier", value: "gold")
/// let data = CustomData(unsigned: payload)
/// ```
public struct CustomData: Codable, Equatable, Sendable {
    public var signed: String?
    public var unsigned: CustomDataPayload?

    public init(signed: String) {
        self.signed = signed
        self.unsigned = nil
    }

    public init(unsigned: CustomDataPayload) {
        self.signed = nil
        self.unsigned = unsigned
    }
}

/// The type of a custom data value, as the agent's CRM shows it.
public enum CustomDataType: String, Codable, Equatable, Sendable, CaseIterable {
    case string, number, date, url, boolean
}

/// One labelled value.
public struct CustomDataItem: Codable, Equatable, Sendable {
    public var label: String
    public var value: JSONValue
    public var type: CustomDataType
    /// Hidden from agents, still available for routing and analytics.
    public var invisibleToAgent: Bool?

    enum CodingKeys: String, CodingKey {
        case label, value, type
        case invisibleToAgent = "invisible_to_agent"
    }

    /// Decodes an item; a missing `type` defaults from the value.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(label: try container.decode(String.self, forKey: .label),
                  value: try container.decode(JSONValue.self, forKey: .value),
                  type: try container.decodeIfPresent(CustomDataType.self, forKey: .type),
                  invisibleToAgent: try container.decodeIfPresent(Bool.self, forKey: .invisibleToAgent))
    }

    /// An item; the type defaults from the value (`string`, `number` or `boolean`).
    public init(label: String, value: JSONValue, type: CustomDataType? = nil, invisibleToAgent: Bool? = nil) {
        self.label = label
        self.value = value
        self.type = type ?? {
            switch value {
            case .bool: return .boolean
            case .integer, .number: return .number
            default: return .string
            }
        }()
        self.invisibleToAgent = invisibleToAgent
    }
}

/// Unsigned custom data: items by key, and an optional external chat transfer. Encodes as
/// one JSON object (`external_chat_transfer` beside the items).
public struct CustomDataPayload: Codable, Equatable, Sendable {
    public var items: [String: CustomDataItem]
    public var externalChatTransfer: ExternalChatTransfer?

    public init(items: [String: CustomDataItem] = [:], externalChatTransfer: ExternalChatTransfer? = nil) {
        self.items = items
        self.externalChatTransfer = externalChatTransfer
    }

    public subscript(key: String) -> CustomDataItem? {
        get { items[key] }
        set { items[key] = newValue }
    }

    private static let transferKey = "external_chat_transfer"

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        items = [:]
        for key in container.allKeys where key.stringValue != CustomDataPayload.transferKey {
            items[key.stringValue] = try container.decode(CustomDataItem.self, forKey: key)
        }
        externalChatTransfer = try container.decodeIfPresent(ExternalChatTransfer.self,
                                                             forKey: Key(stringValue: CustomDataPayload.transferKey))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (key, item) in items { try container.encode(item, forKey: Key(stringValue: key)) }
        try container.encodeIfPresent(externalChatTransfer, forKey: Key(stringValue: CustomDataPayload.transferKey))
    }
}

/// Context from another chat system for the agent of a new session (seed 000).
public struct ExternalChatTransfer: Codable, Equatable, Sendable {
    public var agent: ExternalChatAgent
    /// The conversation so far (the seeds leave the entry's shape open; these are the
    /// project's fields).
    public var transcript: [ExternalChatTranscriptEntry]

    public init(agent: ExternalChatAgent, transcript: [ExternalChatTranscriptEntry] = []) {
        self.agent = agent
        self.transcript = transcript
    }
}

public struct ExternalChatAgent: Codable, Equatable, Sendable {
    public var name: String

    public init(name: String) {
        self.name = name
    }
}

/// One message of an external transcript.
public struct ExternalChatTranscriptEntry: Codable, Equatable, Sendable {
    /// `"agent"` or `"end_user"`.
    public var sender: String
    public var text: String
    /// Unix seconds.
    public var timestamp: Double?

    public init(sender: String, text: String, timestamp: Double? = nil) {
        self.sender = sender
        self.text = text
        self.timestamp = timestamp
    }
}

/// The CRM keys the platform reserves (seed 004): built-in behaviours such as marking a
/// verified customer or warning the agent about a bad actor. They are booleans, and
/// accepted only in signed custom data.
///
/// ```swift
/// ReservedCRMKey.problems(in: ["reserved_bad_actor": ["label": "Bad", "value": true]], signed: false)
/// // ["custom_data.unsigned.reserved_bad_actor: reserved CRM keys are accepted only in signed custom data"]
/// ```
public enum ReservedCRMKey: String, CaseIterable, Sendable {
    case verifiedCustomer = "reserved_verified_customer"
    case badActor = "reserved_bad_actor"
    case repeatCustomer = "reserved_repeat_customer"

    /// The name agents read it by (`session.crm.verified_customer`).
    public var crmName: String { String(rawValue.dropFirst("reserved_".count)) }

    /// What is wrong with the reserved keys of custom data (an object of items): any in
    /// unsigned data, or one whose value is not a boolean.
    public static func problems(in data: JSONValue, signed: Bool) -> [String] {
        guard case .object(let items) = data else { return [] }
        return allCases.compactMap { key in
            guard let item = items[key.rawValue] else { return nil }
            guard signed else {
                return "custom_data.unsigned.\(key.rawValue): reserved CRM keys are accepted only in signed custom data"
            }
            let isBoolean = item["value"]?.boolValue != nil && (item["type"] == nil || item["type"] == "boolean")
            return isBoolean ? nil : "custom_data.\(key.rawValue): a boolean expected ({ value = true or false, type = \"boolean\" })"
        }
    }

    /// The reserved flags of signed custom data, by CRM name.
    public static func flags(in signed: JSONValue) -> [String: Bool] {
        var flags: [String: Bool] = [:]
        for key in allCases {
            if let value = signed[key.rawValue]?["value"]?.boolValue { flags[key.crmName] = value }
        }
        return flags
    }
}
