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
}
