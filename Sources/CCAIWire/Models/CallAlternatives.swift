import Foundation

/// What `startVoicemail` sends (seed 002): the queue the message is left for.
///
/// ```swift
/// VoicemailRequest(menuId: 1)
/// ```
public struct VoicemailRequest: Codable, Equatable, Sendable {
    public var menuId: Int
    public var customData: CustomData?
    public var ticketId: String?

    enum CodingKeys: String, CodingKey {
        case menuId = "menu_id"
        case customData = "custom_data"
        case ticketId = "ticket_id"
    }

    public init(menuId: Int, customData: CustomData? = nil, ticketId: String? = nil) {
        self.menuId = menuId
        self.customData = customData
        self.ticketId = ticketId
    }
}

/// One way out of a long wait that a ``CallDeflection`` offers.
public enum CallDeflectionOffer: String, Codable, Equatable, Sendable, CaseIterable {
    /// Book a callback instead (`createScheduledCall`).
    case scheduledCall = "scheduled_call"
    /// Dial the queue's phone number (never offered when the company sets
    /// `preventDirectPstnCall`).
    case phoneNumber = "phone_number"
    /// Leave a message (`startVoicemail`, which ends the waiting call).
    case voicemail
}

/// A wait-time deflection (seed 002): the platform's offer of another way in, made once to
/// a waiting call whose estimated wait reached the queue's threshold. `deflectionOffered`
/// emits it and `getCallDeflection(callId:)` reads it back; the seeds leave its fields
/// unnamed, these are the sandbox's.
///
/// ```swift
/// if let offer = try await calls.getCallDeflection(callId: call.id), offer.offers.contains(.voicemail) {
///     try await calls.startVoicemail(VoicemailRequest(menuId: call.menuId))
/// }
/// ```
public struct CallDeflection: Codable, Equatable, Sendable {
    public var callId: Int
    public var menuId: Int
    /// The estimate that passed the threshold, in seconds.
    public var estimatedWait: Int
    /// The queue's threshold, in seconds.
    public var thresholdSeconds: Int
    /// What the end user may do instead, in the admin's order.
    public var offers: [CallDeflectionOffer]
    /// The number to dial, when `phone_number` is offered.
    public var phoneNumber: String?
    /// The admin's prompt, in the end user's language.
    public var message: String?
    public var offeredAt: Double

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
        case menuId = "menu_id"
        case estimatedWait = "estimated_wait"
        case thresholdSeconds = "threshold_seconds"
        case offers
        case phoneNumber = "phone_number"
        case message
        case offeredAt = "offered_at"
    }

    public init(callId: Int, menuId: Int, estimatedWait: Int, thresholdSeconds: Int, offers: [CallDeflectionOffer],
                phoneNumber: String? = nil, message: String? = nil, offeredAt: Double) {
        self.callId = callId
        self.menuId = menuId
        self.estimatedWait = estimatedWait
        self.thresholdSeconds = thresholdSeconds
        self.offers = offers
        self.phoneNumber = phoneNumber
        self.message = message
        self.offeredAt = offeredAt
    }
}

/// When a queue's audible message plays (seed 002's "corresponding state"): each kind
/// belongs to one moment of a call.
public enum AudibleMessageKind: String, Codable, Equatable, Sendable, CaseIterable {
    /// The call reached the platform (its first record).
    case welcome
    /// The call waits for an agent (`waiting`).
    case allAgentsBusy = "all_agents_busy"
    /// A recorded call connects to its agent for the first time.
    case recordingNotice = "recording_notice"
    /// The call is put on hold (`on_hold`).
    case onHold = "on_hold"
    /// The call ended (`ended`).
    case goodbye

    /// Whether a call's new record is this kind's moment, `previous` being the record
    /// before it (nil for a call's first).
    ///
    /// ```swift
    /// AudibleMessageKind.onHold.plays(after: connected, now: held)   // true
    /// ```
    public func plays(after previous: CallResponse?, now call: CallResponse) -> Bool {
        guard previous?.status != call.status else { return false }
        switch self {
        case .welcome: return previous == nil
        case .allAgentsBusy: return call.status == .waiting
        case .recordingNotice: return call.status == .connected && call.recorded && previous?.connectedAt == nil
        case .onHold: return call.status == .onHold
        case .goodbye: return call.status == .ended
        }
    }
}

/// A system announcement an admin set on a queue (seed 002, `resolveMessages(menuId:)`):
/// its caption in the end user's language and where its audio is.
public struct AudibleMessage: Codable, Equatable, Sendable {
    public var kind: AudibleMessageKind
    public var text: String
    public var audioUrl: String?

    enum CodingKeys: String, CodingKey {
        case kind, text
        case audioUrl = "audio_url"
    }

    public init(kind: AudibleMessageKind, text: String, audioUrl: String? = nil) {
        self.kind = kind
        self.text = text
        self.audioUrl = audioUrl
    }
}

/// What `GET /queue_menus/{id}/audible_messages` answers: the queue's messages, in the
/// order of ``AudibleMessageKind``.
public struct AudibleMessages: Codable, Equatable, Sendable {
    public var menuId: Int
    public var messages: [AudibleMessage]

    enum CodingKeys: String, CodingKey {
        case menuId = "menu_id"
        case messages
    }

    public init(menuId: Int, messages: [AudibleMessage]) {
        self.menuId = menuId
        self.messages = messages
    }
}

/// A voicemail as `GET /admin/voicemails` lists it: who left it on which queue, why the
/// queue took a message, and when (no audio here).
public struct VoicemailRecord: Codable, Equatable, Sendable {
    public var callId: Int
    public var menuId: Int
    public var endUserId: Int
    public var reason: VoicemailReason?
    public var status: CallStatus
    public var createdAt: Double
    public var endedAt: Double?

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
        case menuId = "menu_id"
        case endUserId = "end_user_id"
        case reason, status
        case createdAt = "created_at"
        case endedAt = "ended_at"
    }

    public init(callId: Int, menuId: Int, endUserId: Int, reason: VoicemailReason?, status: CallStatus, createdAt: Double,
                endedAt: Double?) {
        self.callId = callId
        self.menuId = menuId
        self.endUserId = endUserId
        self.reason = reason
        self.status = status
        self.createdAt = createdAt
        self.endedAt = endedAt
    }
}

/// What `GET /admin/voicemails` answers: a page of voicemails by call id (``Paging/voicemails``).
public struct VoicemailRecords: Codable, Equatable, Sendable {
    public var voicemails: [VoicemailRecord]

    public init(voicemails: [VoicemailRecord]) { self.voicemails = voicemails }
}
