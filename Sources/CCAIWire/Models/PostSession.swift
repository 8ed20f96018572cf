import Foundation

/// Where a chat's post-session phase is (seed 000's `postSessionTransferStatus`):
/// `startPostSession()` moves it to `inProgress`, `readyPostSession()` to `ready`, and the
/// platform to `completed` when the flow is done.
public enum PostSessionTransferStatus: String, Codable, Equatable, Sendable, CaseIterable {
    case inProgress = "in_progress"
    case ready
    case completed
}

/// The kinds of post-session flow, in the seeds' order of precedence: a post-session
/// virtual agent wins over a survey, a survey over CSAT.
public enum PostSessionFlowType: String, Codable, Equatable, Sendable, CaseIterable {
    case virtualAgent = "virtual_agent"
    case survey
    case csat
}

/// The one post-session flow the hierarchy chose for a session (seed 000's
/// `PostSessionFlow`).
///
/// ```swift
/// PostSessionSettings(surveyId: 1, csat: true).flow(communicationId: 7, communicationType: "chats")
/// // PostSessionFlow(type: .survey, communicationId: 7, communicationType: "chats", surveyId: 1)
/// ```
public struct PostSessionFlow: Codable, Equatable, Sendable {
    public var type: PostSessionFlowType
    public var communicationId: Int
    public var communicationType: CommunicationType
    public var surveyId: Int?
    public var virtualAgentId: String?

    enum CodingKeys: String, CodingKey {
        case type
        case communicationId = "communication_id"
        case communicationType = "communication_type"
        case surveyId = "survey_id"
        case virtualAgentId = "virtual_agent_id"
    }

    public init(type: PostSessionFlowType, communicationId: Int, communicationType: CommunicationType, surveyId: Int? = nil,
                virtualAgentId: String? = nil) {
        self.type = type
        self.communicationId = communicationId
        self.communicationType = communicationType
        self.surveyId = surveyId
        self.virtualAgentId = virtualAgentId
    }
}

/// The post-session rules an admin sets (company-wide, per queue), as the platform gives
/// them for a session (`GET /chats/{id}/post_session`). Absent keys inherit: a queue's
/// settings override its parent's key by key, the top queue's override the company's.
public struct PostSessionSettings: Codable, Equatable, Sendable {
    public var virtualAgentId: String?
    public var surveyId: Int?
    public var csat: Bool?
    /// Whether the end user must opt in before the flow runs.
    public var optIn: Bool?

    enum CodingKeys: String, CodingKey {
        case virtualAgentId = "virtual_agent_id"
        case surveyId = "survey_id"
        case csat
        case optIn = "opt_in"
    }

    public init(virtualAgentId: String? = nil, surveyId: Int? = nil, csat: Bool? = nil, optIn: Bool? = nil) {
        self.virtualAgentId = virtualAgentId
        self.surveyId = surveyId
        self.csat = csat
        self.optIn = optIn
    }

    /// These settings over `inherited`: each key set here wins, the others are inherited.
    public func overriding(_ inherited: PostSessionSettings) -> PostSessionSettings {
        PostSessionSettings(virtualAgentId: virtualAgentId ?? inherited.virtualAgentId, surveyId: surveyId ?? inherited.surveyId,
                            csat: csat ?? inherited.csat, optIn: optIn ?? inherited.optIn)
    }

    /// The settings in force from the most general (the company's) to the most specific
    /// (the session's queue), applied key by key.
    public static func effective(_ layers: [PostSessionSettings]) -> PostSessionSettings {
        layers.reduce(PostSessionSettings()) { inherited, layer in layer.overriding(inherited) }
    }

    /// The one flow these settings choose (virtual agent > survey > CSAT), or nil when
    /// none is configured.
    public func flow(communicationId: Int, communicationType: CommunicationType) -> PostSessionFlow? {
        if let virtualAgentId {
            return PostSessionFlow(type: .virtualAgent, communicationId: communicationId, communicationType: communicationType,
                                   virtualAgentId: virtualAgentId)
        }
        if let surveyId {
            return PostSessionFlow(type: .survey, communicationId: communicationId, communicationType: communicationType,
                                   surveyId: surveyId)
        }
        if csat == true {
            return PostSessionFlow(type: .csat, communicationId: communicationId, communicationType: communicationType)
        }
        return nil
    }

    /// Whether any flow is configured (seed 000's `postSessionRequired`).
    public var isFlowConfigured: Bool { virtualAgentId != nil || surveyId != nil || csat == true }
}
