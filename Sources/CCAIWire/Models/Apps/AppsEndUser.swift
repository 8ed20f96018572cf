/// An end user as the Apps API names one (`POST` and `GET /apps/api/v1/end_users`): the
/// platform's id and the company's own `identifier`, the same end users the SDK signs in.
public struct AppsEndUser: Codable, Equatable, Sendable {
    public var id: Int
    public var identifier: String

    public init(id: Int, identifier: String) {
        self.id = id
        self.identifier = identifier
    }
}

/// The body of `POST /apps/api/v1/end_users`: an upsert by `identifier` (created when no
/// end user has it, else its other fields updated), as the public "end users API" page
/// shows it.
public struct AppsEndUserRequest: Codable, Equatable, Sendable {
    public var identifier: String
    public var name: String?
    public var email: String?
    public var phone: String?

    public init(identifier: String, name: String? = nil, email: String? = nil, phone: String? = nil) {
        self.identifier = identifier
        self.name = name
        self.email = email
        self.phone = phone
    }
}
