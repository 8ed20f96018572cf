/// The statuses of a chat the Apps API reports (`status` of ``AppsChat``), named once.
/// The names are the published ones (docs/platform-fidelity.md says where each comes
/// from); how the sandbox's own chat states map onto them is one table in CCAISandbox,
/// `AppsChatStatusMapping`.
public enum AppsChatStatus: String, CaseIterable, Codable, Sendable {
    /// Waiting for a human agent (or for the app's pre-session answers).
    case queued
    /// With an agent, human or virtual.
    case assigned
    /// Ended by the end user (or the company's server for them) or an agent.
    case finished
    /// Ended because the end user wrote nothing for the idle time.
    case noResponse = "no_response"
    /// Ended by the end user before any agent, human or virtual, took it.
    case canceled
    /// Ended by the platform itself (the sandbox restarted while it was open).
    case failed

    /// Whether the chat is over.
    public var isTerminal: Bool { self != .queued && self != .assigned }
}

/// The finer state under a status (`status_text` of ``AppsChat``): our own words, as the
/// public pages give the statuses but not the texts.
public enum AppsChatSubStatus: String, CaseIterable, Codable, Sendable {
    case awaitingPreSession = "awaiting_pre_session"
    case waitingForAgent = "waiting_for_agent"
    case escalating
    case withVirtualAgent = "with_virtual_agent"
    case withAgent = "with_agent"
    case finishedByEndUser = "finished_by_end_user"
    case finishedByAgent = "finished_by_agent"
    case deflected
    case idleTimeout = "idle_timeout"
    case abandonedInQueue = "abandoned_in_queue"
    case platformRestart = "platform_restart"
}
