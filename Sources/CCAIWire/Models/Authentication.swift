/// `POST /auth/end_user`: exchanges a JWT signed with the company secret for an auth token.
public struct AuthRequest: Codable, Equatable, Sendable {
    public var companyKey: String
    public var jwt: String

    enum CodingKeys: String, CodingKey {
        case companyKey = "company_key"
        case jwt
    }

    public init(companyKey: String, jwt: String) {
        self.companyKey = companyKey
        self.jwt = jwt
    }
}

/// The answer to ``AuthRequest``: the bearer token for every other endpoint.
public struct AuthResponse: Codable, Equatable, Sendable {
    public var authToken: String
    /// Unix seconds after which the token is refused.
    public var expiresAt: Int64
    public var endUser: EndUser
    /// The id of the end user's newest event at sign-in (absent: none yet). A new SDK
    /// instance's event stream starts after it, so a run never receives the events of
    /// the runs before it.
    public var latestEventId: Int64?

    enum CodingKeys: String, CodingKey {
        case authToken = "auth_token"
        case expiresAt = "expires_at"
        case endUser = "end_user"
        case latestEventId = "latest_event_id"
    }

    public init(authToken: String, expiresAt: Int64, endUser: EndUser, latestEventId: Int64? = nil) {
        self.authToken = authToken
        self.expiresAt = expiresAt
        self.endUser = endUser
        self.latestEventId = latestEventId
    }
}

/// Every error response: `{"error": {"code": ..., "message": ...}}`.
public struct ErrorResponse: Codable, Equatable, Sendable {
    public struct Detail: Codable, Equatable, Sendable {
        public var code: ErrorCode
        public var message: String
    }

    public var error: Detail

    public init(code: ErrorCode, message: String) {
        self.error = Detail(code: code, message: message)
    }
}
