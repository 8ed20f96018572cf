import CCAIWire
import Foundation

/// Text in several languages: `{ en = "Billing", es = "Facturación" }`, or one string.
public struct LocalizedText: Codable, Sendable, Equatable {
    public var byLanguage: [String: String]

    public init(_ byLanguage: [String: String]) {
        self.byLanguage = byLanguage
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            byLanguage = ["": text]
        } else {
            byLanguage = try container.decode([String: String].self)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(byLanguage)
    }

    /// The text in `language`, else in `fallback`, else any.
    func text(_ language: String, fallback: String) -> String? {
        byLanguage[language] ?? byLanguage[fallback] ?? byLanguage[""] ?? byLanguage.sorted { $0.key < $1.key }.first?.value
    }
}

/// A queue as an admin configures it (docs/sdk-and-sandbox.md, configuration).
public struct MenuConfiguration: Codable, Sendable {
    public struct ChannelsConfiguration: Codable, Sendable {
        public struct Chat: Codable, Sendable {
            public var redaction: Bool?
            public var virtualAgent: String?
            public var preSessionSmartAction: Bool?
        }

        public struct VoiceCall: Codable, Sendable {
            public var instant: Bool?
            public var schedule: Bool?
            public var recording: RecordingOption?
            public var phoneNumber: String?
            public var preSessionSmartAction: Bool?
            /// Every caller is sent to voicemail for now (`temporary_redirection`); needs
            /// a `phone_number`, as every voicemail does.
            public var redirectToVoicemail: Bool?
            /// What a waiting call is offered once its estimate reaches a threshold.
            public var waitDeflection: WaitDeflectionConfiguration?
            /// How scheduled calls are booked (with `schedule = true`).
            public var scheduling: SchedulingConfiguration?
            /// The id of the virtual agent (`virtual_agents`) that answers the queue's calls
            /// first; the caller, or its script, escalates to a human.
            public var virtualAgent: String?
            /// Callers may ask for a human while they wait, before the virtual agent has them.
            public var allowSkipVirtualAgent: Bool?
        }

        public struct Email: Codable, Sendable {
            public var email: String
            public var instructionMessage: String?
        }

        public struct ExternalLinks: Codable, Sendable {
            public var links: [ExternalDeflection]
        }

        public var chat: Chat?
        public var voiceCall: VoiceCall?
        public var email: Email?
        public var externalDeflectionLink: ExternalLinks?
    }

    public struct Capacity: Codable, Sendable {
        /// The queue is over capacity once this many sessions wait.
        public var maxWaiting: Int?
        /// ... or once the estimated wait reaches this many seconds.
        public var waitThresholdSeconds: Double?
    }

    public struct Deflection: Codable, Sendable {
        /// The queue users are sent to after hours.
        public var afterHours: Int?
        /// The queue users are sent to when this one is over capacity.
        public var overCapacity: Int?
    }

    public var id: Int
    public var name: LocalizedText
    public var position: Int?
    public var hidden: Bool?
    public var directAccessKeys: [String]?
    /// Business hours of this queue; nil inherits the company's.
    public var hours: BusinessHours?
    public var afterHoursMessage: LocalizedText?
    public var preSessionSmartAction: Bool?
    /// What a pre-session requirement (of the queue or its chat channel) asks for;
    /// `{ "text" }` by default.
    public var preSessionSmartActionTypes: [SmartActionType]?
    public var channels: ChannelsConfiguration?
    public var capacity: Capacity?
    public var deflection: Deflection?
    /// Post-session rules of this queue and the queues below it (key by key over the
    /// parent's, then the company's).
    public var postSession: PostSessionConfiguration?
    /// Announcements of this queue's calls by kind (`all_agents_busy`...), over the
    /// parent's, kind by kind, then the company's.
    public var audibleMessages: [String: AudibleMessageConfiguration]?
    public var children: [MenuConfiguration]?

    /// The pre-session smart actions a chat on this queue starts with (none unless the
    /// queue or its chat channel requires them).
    var preSessionChatActions: [SmartActionType] {
        guard preSessionSmartAction == true || channels?.chat?.preSessionSmartAction == true else { return [] }
        return preSessionSmartActionTypes ?? [.text]
    }

    /// This menu and all its descendants.
    var flattened: [MenuConfiguration] {
        [self] + (children ?? []).flatMap(\.flattened)
    }
}

/// A human agent of the sandbox (docs/sdk-and-sandbox.md, agent scripts): the queues it serves and, when it
/// has one, the Lua script that drives it (see docs/sdk-and-sandbox.md).
public struct AgentConfiguration: Codable, Sendable {
    public var name: String
    /// The queues the agent serves.
    public var menus: [Int]
    /// A Lua file returning `function(agent, session)`; relative to the configuration file.
    public var script: String?
    /// The most chats the agent handles at once (no limit by default); chats beyond wait
    /// queued until one of the agent's chats ends.
    public var maxChats: Int?
    /// When the agent works, every day in the company's time zone (none: always). Outside
    /// them it takes no new chat or call; at a shift's end it finishes the sessions it has.
    public var shifts: [AgentShift]?
    /// `true`: a person plays the agent at the sandbox's console (`ccai sandbox serve
    /// --console`, docs/console.md). Chats wait on its queues until the person takes one;
    /// what they write reaches the customer as any agent's message does. No script.
    public var console: Bool?

    /// Whether a person plays the agent at the console.
    var isPlayedAtTheConsole: Bool { console == true }
}

/// A virtual agent of the sandbox (docs/sdk-and-sandbox.md, agent scripts), named by its id in a queue's
/// `chat = { virtual_agent = "billing-va" }`. It takes the queue's chats first. Without a
/// script it answers by keyword rules and escalates to a human when asked for one.
public struct VirtualAgentConfiguration: Codable, Sendable {
    /// An answer given when the customer's message contains one of the keywords.
    public struct Rule: Codable, Sendable {
        public var keywords: [String]
        public var answer: String
    }

    /// An escalation option the end user may pick (`ChatEscalationOption`).
    public struct EscalationOption: Codable, Sendable {
        public var id: Int
        /// `chat` (to a human agent, the default) or another channel (`email`,
        /// `voice_call`...): the chat then ends and the app continues on that channel.
        public var deflectionChannel: String?
    }

    /// The name the customer sees (default: the virtual agent's id).
    public var name: String?
    /// A Lua file returning `function(agent, session)`; relative to the configuration file.
    public var script: String?
    public var rules: [Rule]?
    public var escalationOptions: [EscalationOption]?
}

extension SandboxConfiguration {
    /// The menus from the root down to menu `id`, that menu last (empty for an unknown id).
    func menuPath(to id: Int) -> [MenuConfiguration] {
        func search(_ menus: [MenuConfiguration]) -> [MenuConfiguration]? {
            for menu in menus {
                if menu.id == id { return [menu] }
                if let below = search(menu.children ?? []) { return [menu] + below }
            }
            return nil
        }
        return search(menus ?? []) ?? []
    }

    /// A menu's name in `language`, else in the company's default language.
    func menuName(_ menu: MenuConfiguration, language: String) -> String {
        menu.name.text(language, fallback: company.languages.first ?? language) ?? ""
    }

    /// Menu `id`'s names from the root down in `language`, joined by " / ": the
    /// `materialized_path` of the Apps API's wait times and of the session metadata.
    func materializedPath(to id: Int, language: String) -> String {
        menuPath(to: id).map { menuName($0, language: language) }.joined(separator: " / ")
    }
}
