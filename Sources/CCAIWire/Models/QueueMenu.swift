/// A queue and its channels (seed 001), as `queueMenuService.get` returns it: a tree.
///
/// Wire models that clients decode spell their snake_case keys in `CodingKeys`: they
/// decode without a key strategy (much faster than `convertFromSnakeCase`) and encode the
/// same with `convertToSnakeCase` or without.
public struct QueueMenu: Codable, Hashable, Sendable, Identifiable {
    public var id: Int
    public var name: String?
    public var hidden: Bool?
    public var position: Int?
    public var settings: [QueueMenuSetting]?
    public var children: [QueueMenu]?
    public var channels: Channels?
    /// Where the platform redirects this queue's users now (after hours, over capacity).
    public var redirectionExtra: QueueMenuRedirection?
    /// The deflection rules routing other queues into this one right now.
    public var deflectionFrom: [QueueMenuDeflection]?

    enum CodingKeys: String, CodingKey {
        case id
        case name
        case hidden
        case position
        case settings
        case children
        case channels
        case redirectionExtra = "redirection_extra"
        case deflectionFrom = "deflection_from"
    }

    public init(id: Int, name: String? = nil, hidden: Bool? = nil, position: Int? = nil,
                settings: [QueueMenuSetting]? = nil, children: [QueueMenu]? = nil, channels: Channels? = nil,
                redirectionExtra: QueueMenuRedirection? = nil, deflectionFrom: [QueueMenuDeflection]? = nil) {
        self.id = id
        self.name = name
        self.hidden = hidden
        self.position = position
        self.settings = settings
        self.children = children
        self.channels = channels
        self.redirectionExtra = redirectionExtra
        self.deflectionFrom = deflectionFrom
    }
}

public struct Channels: Codable, Hashable, Sendable {
    public var email: EmailChannel?
    public var chat: ChatChannel?
    public var voiceCall: VoiceCallChannel?
    public var externalDeflectionLink: ExternalDeflectionLink?

    enum CodingKeys: String, CodingKey {
        case email
        case chat
        case voiceCall = "voice_call"
        case externalDeflectionLink = "external_deflection_link"
    }

    public init(email: EmailChannel? = nil, chat: ChatChannel? = nil, voiceCall: VoiceCallChannel? = nil,
                externalDeflectionLink: ExternalDeflectionLink? = nil) {
        self.email = email
        self.chat = chat
        self.voiceCall = voiceCall
        self.externalDeflectionLink = externalDeflectionLink
    }
}

public struct VoiceCallChannel: Codable, Hashable, Sendable {
    /// Live voice calls are possible now.
    public var instantEnabled: Bool?
    public var preSessionSmartAction: Bool?
    public var scheduleEnabled: Bool?
    public var recordingOption: RecordingOption?
    public var voicemailReason: VoicemailReason?
    public var phoneNumber: String?
    public var scheduleDeflectionType: String?
    public var deflected: Bool?
    public var deflectedReason: String?
    /// A virtual agent answers the queue's calls first.
    public var virtualAgent: Bool?
    /// Callers may ask for a human before the virtual agent has them, while they wait
    /// (the argument of `CallResponse.canEscalate(allowSkipVirtualAgent:)`).
    public var allowSkipVirtualAgent: Bool?

    enum CodingKeys: String, CodingKey {
        case instantEnabled = "instant_enabled"
        case preSessionSmartAction = "pre_session_smart_action"
        case scheduleEnabled = "schedule_enabled"
        case recordingOption = "recording_option"
        case voicemailReason = "voicemail_reason"
        case phoneNumber = "phone_number"
        case scheduleDeflectionType = "schedule_deflection_type"
        case deflected
        case deflectedReason = "deflected_reason"
        case virtualAgent = "virtual_agent"
        case allowSkipVirtualAgent = "allow_skip_virtual_agent"
    }

    public init(instantEnabled: Bool? = nil, preSessionSmartAction: Bool? = nil, scheduleEnabled: Bool? = nil,
                recordingOption: RecordingOption? = nil, voicemailReason: VoicemailReason? = nil,
                phoneNumber: String? = nil, scheduleDeflectionType: String? = nil, deflected: Bool? = nil,
                deflectedReason: String? = nil, virtualAgent: Bool? = nil, allowSkipVirtualAgent: Bool? = nil) {
        self.virtualAgent = virtualAgent
        self.allowSkipVirtualAgent = allowSkipVirtualAgent
        self.instantEnabled = instantEnabled
        self.preSessionSmartAction = preSessionSmartAction
        self.scheduleEnabled = scheduleEnabled
        self.recordingOption = recordingOption
        self.voicemailReason = voicemailReason
        self.phoneNumber = phoneNumber
        self.scheduleDeflectionType = scheduleDeflectionType
        self.deflected = deflected
        self.deflectedReason = deflectedReason
    }
}

/// The chat channel of a queue (the seeds name it without fields; these are the ones the
/// sandbox knows).
public struct ChatChannel: Codable, Hashable, Sendable {
    /// Chats can start now.
    public var enabled: Bool?
    public var preSessionSmartAction: Bool?
    /// Sensitive data in messages is redacted before agents see it.
    public var redaction: Bool?
    public var deflected: Bool?
    public var deflectedReason: String?

    enum CodingKeys: String, CodingKey {
        case enabled
        case preSessionSmartAction = "pre_session_smart_action"
        case redaction
        case deflected
        case deflectedReason = "deflected_reason"
    }

    public init(enabled: Bool? = nil, preSessionSmartAction: Bool? = nil, redaction: Bool? = nil,
                deflected: Bool? = nil, deflectedReason: String? = nil) {
        self.enabled = enabled
        self.preSessionSmartAction = preSessionSmartAction
        self.redaction = redaction
        self.deflected = deflected
        self.deflectedReason = deflectedReason
    }
}

/// The e-mail channel: the address of the queue and the admin's instructions (seed 002).
public struct EmailChannel: Codable, Hashable, Sendable {
    public var email: String?
    public var instructionMessage: String?

    enum CodingKeys: String, CodingKey {
        case email
        case instructionMessage = "instruction_message"
    }

    public init(email: String? = nil, instructionMessage: String? = nil) {
        self.email = email
        self.instructionMessage = instructionMessage
    }
}

public struct ExternalDeflectionLink: Codable, Hashable, Sendable {
    public var enabled: Bool?
    public var links: [ExternalDeflection]?

    enum CodingKeys: String, CodingKey {
        case enabled
        case links
    }

    public init(enabled: Bool? = nil, links: [ExternalDeflection]? = nil) {
        self.enabled = enabled
        self.links = links
    }
}

public struct ExternalDeflection: Codable, Hashable, Sendable {
    public var url: String
    public var displayName: String
    public var enabled: Bool?

    enum CodingKeys: String, CodingKey {
        case url
        case displayName = "display_name"
        case enabled
    }

    public init(url: String, displayName: String, enabled: Bool? = nil) {
        self.url = url
        self.displayName = displayName
        self.enabled = enabled
    }
}

/// Queue-level settings (seed 003).
public struct QueueMenuSetting: Codable, Hashable, Sendable {
    public var sdk: QueueMenuSDKSetting?
    public var afterHours: AfterHoursSetting?

    enum CodingKeys: String, CodingKey {
        case sdk
        case afterHours = "after_hours"
    }

    public init(sdk: QueueMenuSDKSetting? = nil, afterHours: AfterHoursSetting? = nil) {
        self.sdk = sdk
        self.afterHours = afterHours
    }
}

public struct QueueMenuSDKSetting: Codable, Hashable, Sendable {
    public var preSessionSmartAction: Bool?
    /// What the queue asks for before a session when it requires pre-session smart
    /// actions (the seeds' "photo upload, or text input").
    public var preSessionSmartActionTypes: [SmartActionType]?

    enum CodingKeys: String, CodingKey {
        case preSessionSmartAction = "pre_session_smart_action"
        case preSessionSmartActionTypes = "pre_session_smart_action_types"
    }

    public init(preSessionSmartAction: Bool? = nil, preSessionSmartActionTypes: [SmartActionType]? = nil) {
        self.preSessionSmartAction = preSessionSmartAction
        self.preSessionSmartActionTypes = preSessionSmartActionTypes
    }
}

/// The after-hours message of a queue (`settings[].after_hours.message.text`).
public struct AfterHoursSetting: Codable, Hashable, Sendable {
    public struct Message: Codable, Hashable, Sendable {
        public var text: String?
        public init(text: String?) { self.text = text }
    }

    public var message: Message?

    public init(message: Message?) {
        self.message = message
    }
}

/// One deflection rule routing a source queue into this one (seed 003).
public struct QueueMenuDeflection: Codable, Hashable, Sendable {
    public var deflectionType: DeflectionType?
    /// The source queue.
    public var menuId: Int?

    enum CodingKeys: String, CodingKey {
        case deflectionType = "deflection_type"
        case menuId = "menu_id"
    }

    public init(deflectionType: DeflectionType?, menuId: Int?) {
        self.deflectionType = deflectionType
        self.menuId = menuId
    }
}

/// Where a queue's users are sent now, and why.
public struct QueueMenuRedirection: Codable, Hashable, Sendable {
    /// The target queue.
    public var menuId: Int?
    public var deflectionType: DeflectionType?
    /// The admin's message (the after-hours message, say).
    public var message: String?

    enum CodingKeys: String, CodingKey {
        case menuId = "menu_id"
        case deflectionType = "deflection_type"
        case message
    }

    public init(menuId: Int?, deflectionType: DeflectionType?, message: String?) {
        self.menuId = menuId
        self.deflectionType = deflectionType
        self.message = message
    }
}

/// Enum values travel as snake_case strings, on the wire and in Lua (`"after_hour_deflection"`).
public enum DeflectionType: String, Codable, Hashable, Sendable, CaseIterable {
    case afterHourDeflection = "after_hour_deflection"
    case overCapacityDeflection = "over_capacity_deflection"
}

public enum RecordingOption: String, Codable, Hashable, Sendable, CaseIterable {
    case always
    case never
    case askUser = "ask_user"
}

public enum VoicemailReason: String, Codable, Hashable, Sendable, CaseIterable {
    case afterHourDeflection = "after_hour_deflection"
    case overCapacityDeflection = "over_capacity_deflection"
    case temporaryRedirection = "temporary_redirection"
}

/// Estimated waits of a queue's channels, in seconds (`getWaitTimes`).
public struct WaitTimes: Codable, Hashable, Sendable {
    public var chat: Int?
    public var voiceCall: Int?

    enum CodingKeys: String, CodingKey {
        case chat
        case voiceCall = "voice_call"
    }

    public init(chat: Int?, voiceCall: Int?) {
        self.chat = chat
        self.voiceCall = voiceCall
    }
}

/// `GET /queue_menus`: the tree, whether a direct access key matched, and the language used.
public struct QueueMenusResponse: Codable, Hashable, Sendable {
    public var menus: [QueueMenu]
    public var isDirectAccess: Bool
    public var language: String

    enum CodingKeys: String, CodingKey {
        case menus
        case isDirectAccess = "is_direct_access"
        case language
    }

    public init(menus: [QueueMenu], isDirectAccess: Bool, language: String) {
        self.menus = menus
        self.isDirectAccess = isDirectAccess
        self.language = language
    }
}
