import CCAIWire
import Foundation

/// The call provider's local VoIP leg (seed 002, `stateChanged`): `connecting` while a
/// call is being placed, `connected` once the device is on the platform's line (waiting
/// or talking), `disconnected` when the call is over, or an error. Not the call's status,
/// which `callReceived` carries: "read them as columns, not rows".
public typealias CallProviderState = ChatProviderState

/// A cellular call on the device paused the CCAI call (seed 002, `interruptionDetected`).
public struct CallInterruption: Codable, Equatable, Sendable {
    public var callId: Int
    /// What interrupted it: `cellular_call`.
    public var reason: String
    /// How long the interruption is expected to last, when known.
    public var seconds: Double?

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
        case reason, seconds
    }

    public init(callId: Int, reason: String = "cellular_call", seconds: Double? = nil) {
        self.callId = callId
        self.reason = reason
        self.seconds = seconds
    }
}

/// An audible message the SDK played at its moment of a call (`playAudibleMessages`):
/// there is no audio here, so the playing is this event, with what a player would show
/// and play.
public struct AudibleMessagePlayback: Codable, Equatable, Sendable {
    public var callId: Int
    public var kind: AudibleMessageKind
    public var text: String
    public var audioUrl: String?

    enum CodingKeys: String, CodingKey {
        case callId = "call_id"
        case kind, text
        case audioUrl = "audio_url"
    }

    public init(callId: Int, message: AudibleMessage) {
        self.callId = callId
        kind = message.kind
        text = message.text
        audioUrl = message.audioUrl
    }
}

/// The platform calls the end user back (seed 002, `incomingCallEvent`): a scheduled call
/// came due and rings; the app accepts it (``CallService/acceptIncomingCall(callId:)``) or
/// declines it. Told once per call, whichever way it arrived first: the end user's event
/// stream, or a VoIP push the app handed to `CCAI.handleVoIPPush(payload:completion:)`.
public struct IncomingCallEvent: Codable, Equatable, Sendable {
    /// How the SDK heard of the call.
    public enum Source: String, Codable, Equatable, Sendable, CaseIterable {
        case eventStream = "event_stream"
        case voipPush = "voip_push"
    }

    /// The call, `ringing`, with its queue, number and slot.
    public var call: CallResponse
    public var source: Source

    public init(call: CallResponse, source: Source) {
        self.call = call
        self.source = source
    }
}

/// One event of the call service, typed: what its publishers (`stateChanged`,
/// `callReceived`, `waitTimeUpdated`, `participantUpdated`, `interruptionDetected`,
/// `deflectionOffered`, `audibleMessagePlayed`, `incomingCallEvent`) emit, in the order they happened.
///
/// ```swift
/// for await event in ccai.callService!.callEvents() {
///     if case .callReceived(let call) = event, call.status == .connected { break }
/// }
/// ```
public enum CallServiceEvent: Equatable, Sendable {
    case stateChanged(CallProviderState)
    case callReceived(CallResponse)
    case waitTimeUpdated(CallWaitTimePayload)
    case participantUpdated(CallParticipantPayload)
    case interruptionDetected(CallInterruption)
    case deflectionOffered(CallDeflection)
    case audibleMessagePlayed(AudibleMessagePlayback)
    case incomingCallEvent(IncomingCallEvent)

    /// The events' names, as scripts subscribe to them on `ccai.call`.
    public struct Name: RawRepresentable, Hashable, Sendable {
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }
        private init(_ event: PlatformEventName) { rawValue = event.rawValue }

        /// The provider's line (the SDK's own, not a platform event).
        public static let stateChanged = Name(rawValue: "state_changed")
        public static let callReceived = Name(.callReceived)
        public static let waitTimeUpdated = Name(.waitTimeUpdated)
        public static let participantUpdated = Name(.participantUpdated)
        /// Detected on the device (the SDK's own, not a platform event).
        public static let interruptionDetected = Name(rawValue: "interruption_detected")
        public static let deflectionOffered = Name(.deflectionOffered)
        /// Played by the SDK (its own, not a platform event).
        public static let audibleMessagePlayed = Name(rawValue: "audible_message_played")
        /// The SDK's own, from the platform's `incoming_call` or a VoIP push.
        public static let incomingCallEvent = Name(rawValue: "incoming_call_event")

        public static let allCases: [Name] = [.stateChanged, .callReceived, .waitTimeUpdated, .participantUpdated, .interruptionDetected,
                                              .deflectionOffered, .audibleMessagePlayed, .incomingCallEvent]

        /// How the SDK's own events travel among the platform's (the chat provider's
        /// `state_changed` is another event).
        var streamName: String {
            switch self {
            case .stateChanged: "call_state_changed"
            case .interruptionDetected: "call_interruption_detected"
            case .audibleMessagePlayed: "call_audible_message_played"
            case .incomingCallEvent: "call_incoming_call_event"
            default: rawValue
            }
        }
    }

    public var name: Name {
        switch self {
        case .stateChanged: .stateChanged
        case .callReceived: .callReceived
        case .waitTimeUpdated: .waitTimeUpdated
        case .participantUpdated: .participantUpdated
        case .interruptionDetected: .interruptionDetected
        case .deflectionOffered: .deflectionOffered
        case .audibleMessagePlayed: .audibleMessagePlayed
        case .incomingCallEvent: .incomingCallEvent
        }
    }

    /// The call event a stream event is; nil for other services' events, events not named
    /// `only` (when given) and data that does not fit.
    init?(_ event: PlatformEvent, only: Name? = nil) {
        if let only, event.name != only.streamName { return nil }
        switch event.name {
        case Name.stateChanged.streamName:
            guard let state = CallProviderState(event.data) else { return nil }
            self = .stateChanged(state)
        case Name.callReceived.streamName:
            guard let call = try? event.decoded(as: CallResponse.self) else { return nil }
            self = .callReceived(call)
        case Name.waitTimeUpdated.streamName:
            guard let payload = try? event.decoded(as: CallWaitTimePayload.self) else { return nil }
            self = .waitTimeUpdated(payload)
        case Name.participantUpdated.streamName:
            guard let payload = try? event.decoded(as: CallParticipantPayload.self) else { return nil }
            self = .participantUpdated(payload)
        case Name.interruptionDetected.streamName:
            guard let interruption = try? event.decoded(as: CallInterruption.self) else { return nil }
            self = .interruptionDetected(interruption)
        case Name.deflectionOffered.streamName:
            guard let offer = try? event.decoded(as: CallDeflection.self) else { return nil }
            self = .deflectionOffered(offer)
        case Name.audibleMessagePlayed.streamName:
            guard let playback = try? event.decoded(as: AudibleMessagePlayback.self) else { return nil }
            self = .audibleMessagePlayed(playback)
        case Name.incomingCallEvent.streamName:
            guard let incoming = try? event.decoded(as: IncomingCallEvent.self) else { return nil }
            self = .incomingCallEvent(incoming)
        default:
            return nil
        }
    }
}
