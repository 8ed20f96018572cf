import Foundation

/// Where a voice call is in its life on the platform (seed 002's `CallStatus`, the
/// server's column: `callReceived.status`, not the provider's `stateChanged`).
///
/// ```swift
/// if call.status == .waiting { print("about \(call.estimatedWait ?? 0) s to wait") }
/// ```
public enum CallStatus: String, Codable, Equatable, Sendable, CaseIterable {
    /// A scheduled call booked for its `schedule_time`, not yet due (not in progress: the
    /// end user may start other calls meanwhile). The seeds name no status for it.
    case scheduled
    /// A scheduled call came due: the platform calls the end user back (a VoIP push and
    /// `incoming_call_event`) and waits for the app to accept or decline. The seeds name
    /// no status for it.
    case ringing
    /// An agent took the call; its audio is being set up.
    case connecting
    /// In the queue, for an agent.
    case waiting
    /// Talking with an agent.
    case connected
    /// The agent or the end user put the call on hold.
    case onHold = "on_hold"
    /// A cellular call on the device paused it; the app resumes it (`resumeCall`).
    case interrupted
    case ended
    /// The platform could not keep the call (it restarted under it, say).
    case failed

    /// Whether the call is over.
    public var isFinished: Bool { self == .ended || self == .failed }

    /// Whether the call is live (ringing, waiting, with an agent): neither over nor only
    /// booked for later.
    public var isInProgress: Bool { !isFinished && self != .scheduled }
}

/// What a call record is (not named by the seeds, which tell them apart by how they
/// start): an `instant` call waits in the queue for an agent, a `voicemail` is a message
/// the end user leaves for the queue, connected at once to its voicemail box, and a
/// `scheduled` call is booked for a slot; when it comes due the platform calls the end
/// user back, and once accepted it waits for an agent as an instant call does.
public enum CallType: String, Codable, Equatable, Sendable, CaseIterable {
    case instant
    case voicemail
    case scheduled
}

/// The end user's answer to recording (seed 002): asked on an `ask_user` queue before the
/// call connects; `not_asked` is what scheduled calls send.
public enum RecordingPermission: String, Codable, Equatable, Sendable, CaseIterable {
    case granted
    case denied
    case notAsked = "not_asked"
}

/// Why a call ended (`end_reason` of ``CallResponse``).
public struct CallEndReason: Vocabulary {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let endUser: Self = "end_user"
    public static let agent: Self = "agent"
    public static let restart: Self = "restart"
    /// The end user took the voicemail a wait-time deflection offered (``CallDeflection``).
    public static let voicemail: Self = "voicemail"

    /// A scheduled call the end user cancelled before it came due.
    public static let cancelled: Self = "cancelled"
    /// A scheduled call booked again for another slot (`callIdForRescheduling`): the new
    /// booking is another call.
    public static let rescheduled: Self = "rescheduled"
    /// The end user declined the callback of a scheduled call.
    public static let declined: Self = "declined"
    /// The callback of a scheduled call rang out unanswered.
    public static let noAnswer: Self = "no_answer"
    /// A scheduled call came due while the end user was on another call.
    public static let busy: Self = "busy"

    public static let allCases: [Self] = [.endUser, .agent, .restart, .voicemail, .cancelled, .rescheduled, .declined, .noAnswer, .busy]

    public var meaning: String? {
        switch self {
        case .endUser: "the end user hung up"
        case .agent: "the agent ended the call"
        case .restart: "the platform restarted while the call was under way (its status is failed)"
        case .voicemail: "the end user left a voicemail instead of waiting (the deflection offered it)"
        case .cancelled: "the end user cancelled the scheduled call before it came due"
        case .rescheduled: "the end user booked the scheduled call for another slot (the new booking is another call)"
        case .declined: "the end user declined the callback of the scheduled call"
        case .noAnswer: "the callback of the scheduled call rang out unanswered"
        case .busy: "the scheduled call came due while the end user was on another call"
        default: nil
        }
    }
}

/// What `startInstantCall` sends (seed 002).
///
/// ```swift
/// InstantCallRequest(menuId: 1, recordingPermission: .granted)
/// ```
public struct InstantCallRequest: Codable, Equatable, Sendable {
    public var menuId: Int
    /// Required on a queue whose `recordingOption` is `ask_user`; ignored otherwise.
    public var recordingPermission: RecordingPermission?
    public var customData: CustomData?
    public var ticketId: String?

    enum CodingKeys: String, CodingKey {
        case menuId = "menu_id"
        case recordingPermission = "recording_permission"
        case customData = "custom_data"
        case ticketId = "ticket_id"
    }

    public init(menuId: Int, recordingPermission: RecordingPermission? = nil, customData: CustomData? = nil, ticketId: String? = nil) {
        self.menuId = menuId
        self.recordingPermission = recordingPermission
        self.customData = customData
        self.ticketId = ticketId
    }
}

/// A voice call as the platform reports it: what `callReceived` emits each time its record
/// changes (seed 002's `Call`, `CallResponse`).
public struct CallResponse: Codable, Equatable, Sendable {
    public var id: Int
    public var menuId: Int
    public var type: CallType
    public var status: CallStatus
    /// Seconds the platform expects the call to wait for an agent, while it waits.
    public var estimatedWait: Int?
    public var agent: ChatAgent?
    public var virtualAgent: ChatAgent?
    /// What the end user answered, when the queue asked.
    public var recordingPermission: RecordingPermission?
    /// Whether the call is recorded: what the queue's `recordingOption` and the answer decided.
    public var recorded: Bool
    public var endReason: CallEndReason?
    /// Why the queue took a voicemail rather than a call (a `voicemail` only).
    public var voicemailReason: VoicemailReason?
    /// The number the platform calls back (a `scheduled` call only), in E.164.
    public var phoneNumber: String?
    /// The slot a `scheduled` call is booked for, Unix seconds.
    public var scheduleTime: Double?
    public var createdAt: Double
    public var connectedAt: Double?
    public var endedAt: Double?
    /// Whether a post-session flow is configured for the call (seed 000, as for chats).
    public var postSessionRequired: Bool
    /// Whether the end user must opt in before the flow runs (when one is configured).
    public var postSessionOptInRequired: Bool?
    /// Where the post-session phase of the ended call is: `in_progress`, `ready`, `completed`.
    public var postSessionTransferStatus: PostSessionTransferStatus?

    enum CodingKeys: String, CodingKey {
        case id, type, status, agent, recorded
        case postSessionRequired = "post_session_required"
        case postSessionOptInRequired = "post_session_opt_in_required"
        case postSessionTransferStatus = "post_session_transfer_status"
        case menuId = "menu_id"
        case estimatedWait = "estimated_wait"
        case virtualAgent = "virtual_agent"
        case recordingPermission = "recording_permission"
        case endReason = "end_reason"
        case voicemailReason = "voicemail_reason"
        case phoneNumber = "phone_number"
        case scheduleTime = "schedule_time"
        case createdAt = "created_at"
        case connectedAt = "connected_at"
        case endedAt = "ended_at"
    }

    public init(id: Int, menuId: Int, type: CallType = .instant, status: CallStatus, estimatedWait: Int? = nil,
                agent: ChatAgent? = nil, virtualAgent: ChatAgent? = nil, recordingPermission: RecordingPermission? = nil,
                recorded: Bool = false, endReason: CallEndReason? = nil, voicemailReason: VoicemailReason? = nil,
                phoneNumber: String? = nil, scheduleTime: Double? = nil, createdAt: Double, connectedAt: Double? = nil,
                endedAt: Double? = nil, postSessionRequired: Bool = false, postSessionOptInRequired: Bool? = nil,
                postSessionTransferStatus: PostSessionTransferStatus? = nil) {
        self.postSessionRequired = postSessionRequired
        self.postSessionOptInRequired = postSessionOptInRequired
        self.postSessionTransferStatus = postSessionTransferStatus
        self.id = id
        self.menuId = menuId
        self.type = type
        self.status = status
        self.estimatedWait = estimatedWait
        self.agent = agent
        self.virtualAgent = virtualAgent
        self.recordingPermission = recordingPermission
        self.recorded = recorded
        self.endReason = endReason
        self.voicemailReason = voicemailReason
        self.phoneNumber = phoneNumber
        self.scheduleTime = scheduleTime
        self.createdAt = createdAt
        self.connectedAt = connectedAt
        self.endedAt = endedAt
    }

    /// Reads a call; a record from before calls had post-session (a stored event, a push)
    /// has none.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        menuId = try container.decode(Int.self, forKey: .menuId)
        type = try container.decode(CallType.self, forKey: .type)
        status = try container.decode(CallStatus.self, forKey: .status)
        estimatedWait = try container.decodeIfPresent(Int.self, forKey: .estimatedWait)
        agent = try container.decodeIfPresent(ChatAgent.self, forKey: .agent)
        virtualAgent = try container.decodeIfPresent(ChatAgent.self, forKey: .virtualAgent)
        recordingPermission = try container.decodeIfPresent(RecordingPermission.self, forKey: .recordingPermission)
        recorded = try container.decode(Bool.self, forKey: .recorded)
        endReason = try container.decodeIfPresent(CallEndReason.self, forKey: .endReason)
        voicemailReason = try container.decodeIfPresent(VoicemailReason.self, forKey: .voicemailReason)
        phoneNumber = try container.decodeIfPresent(String.self, forKey: .phoneNumber)
        scheduleTime = try container.decodeIfPresent(Double.self, forKey: .scheduleTime)
        createdAt = try container.decode(Double.self, forKey: .createdAt)
        connectedAt = try container.decodeIfPresent(Double.self, forKey: .connectedAt)
        endedAt = try container.decodeIfPresent(Double.self, forKey: .endedAt)
        postSessionRequired = try container.decodeIfPresent(Bool.self, forKey: .postSessionRequired) ?? false
        postSessionOptInRequired = try container.decodeIfPresent(Bool.self, forKey: .postSessionOptInRequired)
        postSessionTransferStatus = try container.decodeIfPresent(PostSessionTransferStatus.self, forKey: .postSessionTransferStatus)
    }

    /// Whether the call is live: not over, and not only booked for later.
    public var isInProgress: Bool { status.isInProgress }

    /// Whether the end user may ask for a human now (seed 002): while a virtual agent has
    /// the call, and, when the queue lets callers skip its virtual agent
    /// (`allowSkipVirtualAgent`, from the menu's configuration), while the call waits.
    ///
    /// ```swift
    /// talkToAgentButton.isHidden = !(call.canEscalate(allowSkipVirtualAgent: menu.allowSkip))
    /// ```
    public func canEscalate(allowSkipVirtualAgent: Bool) -> Bool {
        guard isInProgress, agent == nil else { return false }
        return virtualAgent != nil || (allowSkipVirtualAgent && status == .waiting)
    }
}

/// The seed's name for a call as `callReceived` emits it.
public typealias Call = CallResponse

/// The data of a `wait_time_updated`: the platform's new estimate for a waiting call.
public struct CallWaitTimePayload: Codable, Equatable, Sendable {
    public var callId: Int
    /// Seconds until an agent is expected to take the call.
    public var estimatedWait: Int

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
        case estimatedWait = "estimated_wait"
    }

    public init(callId: Int, estimatedWait: Int) {
        self.callId = callId
        self.estimatedWait = estimatedWait
    }
}

/// The data of a `participant_updated`: an agent joined or left the call (an assignment,
/// a transfer).
public struct CallParticipantPayload: Codable, Equatable, Sendable {
    public var callId: Int
    public var change: ChatMemberPayload.Change
    public var participant: ChatMember

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
        case change, participant
    }

    public init(callId: Int, change: ChatMemberPayload.Change, participant: ChatMember) {
        self.callId = callId
        self.change = change
        self.participant = participant
    }
}

/// What `setOnHold` sends.
public struct CallHoldRequest: Codable, Equatable, Sendable {
    public var onHold: Bool

    enum CodingKeys: String, CodingKey { case onHold = "on_hold" }

    public init(onHold: Bool) { self.onHold = onHold }
}

/// What the device reports when a cellular call interrupts the CCAI call: how long the
/// interruption is expected to last, if known.
public struct CallInterruptionRequest: Codable, Equatable, Sendable {
    public var seconds: Double?

    public init(seconds: Double? = nil) { self.seconds = seconds }
}
