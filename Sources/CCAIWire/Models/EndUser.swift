/// The authenticated end user's profile (seed 000, `EndUser`).
public struct EndUser: Codable, Equatable, Sendable {
    public var id: Int?
    public var name: String?
    public var identifier: String?
    public var email: String?
    public var phone: String?

    public init(id: Int? = nil, name: String? = nil, identifier: String? = nil, email: String? = nil, phone: String? = nil) {
        self.id = id
        self.name = name
        self.identifier = identifier
        self.email = email
        self.phone = phone
    }

    /// What to call the user: name, else e-mail, else identifier, else "Customer".
    public var displayName: String { name ?? email ?? identifier ?? "Customer" }

    enum CodingKeys: String, CodingKey {
        case id, name, identifier, email, phone
        case displayName = "display_name"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decodeIfPresent(Int.self, forKey: .id), name: try container.decodeIfPresent(String.self, forKey: .name),
                  identifier: try container.decodeIfPresent(String.self, forKey: .identifier),
                  email: try container.decodeIfPresent(String.self, forKey: .email),
                  phone: try container.decodeIfPresent(String.self, forKey: .phone))
    }

    /// Encodes the fields and `display_name` (derived, never read back), so that scripts
    /// see `user.display_name` as the seed's `displayName`.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(identifier, forKey: .identifier)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encodeIfPresent(phone, forKey: .phone)
        try container.encode(displayName, forKey: .displayName)
    }
}
