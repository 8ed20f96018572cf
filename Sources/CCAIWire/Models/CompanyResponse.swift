/// Company-level settings (`companyService.get()`).
public struct CompanyResponse: Codable, Equatable, Sendable {
    public var displayName: String
    public var supportEmail: String?
    /// Language codes the company supports, the default first.
    public var languages: [String]
    /// The IANA time zone of business hours (`America/Los_Angeles`).
    public var timeZone: String
    /// Hide direct PSTN dialing in fallback UIs (seed 002).
    public var preventDirectPstnCall: Bool

    enum CodingKeys: String, CodingKey {
        case displayName = "display_name"
        case supportEmail = "support_email"
        case languages
        case timeZone = "time_zone"
        case preventDirectPstnCall = "prevent_direct_pstn_call"
    }

    public init(displayName: String, supportEmail: String?, languages: [String], timeZone: String,
                preventDirectPstnCall: Bool) {
        self.displayName = displayName
        self.supportEmail = supportEmail
        self.languages = languages
        self.timeZone = timeZone
        self.preventDirectPstnCall = preventDirectPstnCall
    }
}
