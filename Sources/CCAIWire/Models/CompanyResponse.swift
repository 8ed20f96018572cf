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

    public init(displayName: String, supportEmail: String?, languages: [String], timeZone: String,
                preventDirectPstnCall: Bool) {
        self.displayName = displayName
        self.supportEmail = supportEmail
        self.languages = languages
        self.timeZone = timeZone
        self.preventDirectPstnCall = preventDirectPstnCall
    }
}
