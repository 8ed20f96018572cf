import CCAIWire
import Foundation

/// An agent started or stopped typing (seed 000, `typingEvent`).
public enum TypingEvent: Equatable, Sendable {
    case started
    case ended
}

/// A member joined or left the chat, agent transfers and disconnects included (seed 000,
/// `memberEvent`). The identity is the member's name.
public enum MemberEvent: Equatable, Sendable {
    case joined(identity: String?)
    case left(identity: String?)
}

/// The chat provider's connection to the platform (seed 000, `stateChanged`): not the
/// chat's status, which `chatReceived` carries.
public enum ChatProviderState: Equatable, Sendable {
    case connecting
    case connected
    case disconnected
    case error(message: String)
}

/// One event of the chat service, typed: what its publishers (`messagesReceived`,
/// `typingEvent`, `memberEvent`, `stateChanged`, `chatReceived`, `coldTransferSubject`,
/// `networkConnectivityChanged`) emit, in the order they happened.
///
/// ```swift
/// for await event in ccai.chatService!.chatEvents() {
///     if case .chatReceived(let chat?) = event, chat.status == .ended { break }
/// }
/// ```
public enum ChatServiceEvent: Equatable, Sendable {
    case messagesReceived([ChatMessage])
    case typingEvent(TypingEvent)
    case memberEvent(MemberEvent)
    case stateChanged(ChatProviderState)
    case chatReceived(ChatResponse?)
    case coldTransfer(ColdTransfer)
    case networkConnectivityChanged(Bool)

    /// The events' names, as scripts subscribe to them: the platform's chat events (named
    /// by ``PlatformEventName``) and the two the SDK makes of its own connection.
    public struct Name: RawRepresentable, Hashable, Sendable {
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }
        private init(_ event: PlatformEventName) { rawValue = event.rawValue }

        public static let messagesReceived = Name(.messagesReceived)
        public static let typingEvent = Name(.typingEvent)
        public static let memberEvent = Name(.memberEvent)
        public static let chatReceived = Name(.chatReceived)
        public static let coldTransfer = Name(.coldTransfer)
        /// The provider's connection (not a platform event).
        public static let stateChanged = Name(rawValue: "state_changed")
        /// The event stream lost or back (not a platform event).
        public static let networkConnectivityChanged = Name(rawValue: "network_connectivity_changed")

        public static let allCases: [Name] = [.messagesReceived, .typingEvent, .memberEvent, .stateChanged, .chatReceived,
                                              .coldTransfer, .networkConnectivityChanged]
    }

    public var name: Name {
        switch self {
        case .messagesReceived: .messagesReceived
        case .typingEvent: .typingEvent
        case .memberEvent: .memberEvent
        case .stateChanged: .stateChanged
        case .chatReceived: .chatReceived
        case .coldTransfer: .coldTransfer
        case .networkConnectivityChanged: .networkConnectivityChanged
        }
    }

    /// The chat event a platform event (or one the SDK makes of its connection) is; nil
    /// for other services' events, for events not named `only` (when given: nothing else
    /// is decoded) and for data that does not fit.
    init?(_ event: PlatformEvent, only: Name? = nil) {
        if let only, event.name != only.rawValue { return nil }
        switch Name(rawValue: event.name) {
        case .messagesReceived:
            // Seed 000: "Lists of incoming chat messages (from agents, virtual agents, or
            // system)". The end user's own are what sendMessage returned, and in getMessages.
            guard let messages = try? event.decoded(as: [ChatMessage].self) else { return nil }
            let incoming = messages.filter { $0.sender.type != "end_user" }
            guard !incoming.isEmpty else { return nil }
            self = .messagesReceived(incoming)
        case .typingEvent:
            guard let payload = try? event.decoded(as: ChatTypingPayload.self) else { return nil }
            self = .typingEvent(payload.typing ? .started : .ended)
        case .memberEvent:
            guard let payload = try? event.decoded(as: ChatMemberPayload.self) else { return nil }
            switch payload.type {
            case .joined: self = .memberEvent(.joined(identity: payload.member.name))
            case .left: self = .memberEvent(.left(identity: payload.member.name))
            }
        case .stateChanged:
            guard let state = ChatProviderState(event.data) else { return nil }
            self = .stateChanged(state)
        case .chatReceived:
            self = .chatReceived(event.isNull ? nil : try? event.decoded(as: ChatResponse.self))
        case .coldTransfer:
            guard let transfer = try? event.decoded(as: ColdTransfer.self) else { return nil }
            self = .coldTransfer(transfer)
        case .networkConnectivityChanged:
            guard let connected = event.data.boolValue else { return nil }
            self = .networkConnectivityChanged(connected)
        default:
            return nil
        }
    }
}

extension ChatProviderState {
    /// As the SDK's own `state_changed` event carries it: the case name, or
    /// `{ "type": "error", "message": ... }`.
    var json: JSONValue {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case .disconnected: "disconnected"
        case .error(let message): ["type": "error", "message": .string(message)]
        }
    }

    init?(_ json: JSONValue) {
        switch json {
        case "connecting": self = .connecting
        case "connected": self = .connected
        case "disconnected": self = .disconnected
        default:
            guard json["type"] == "error", case .string(let message)? = json["message"] else { return nil }
            self = .error(message: message)
        }
    }
}
