import CCAIWire
import Foundation

/// Options of `initializeCall` (seed 002).
public struct CallOptions: Sendable, Equatable {
    /// Whether the SDK plays the queue's audible messages itself, at their moments of a
    /// call (``CallService/audibleMessagePlayed``); off, the app resolves and renders them
    /// (``AudibleMessageService``).
    public var playAudibleMessages: Bool
    /// Whether the system's call screen is shown (no system UI here: it is kept only).
    public var callKitEnabled: Bool

    public init(playAudibleMessages: Bool = true, callKitEnabled: Bool = true) {
        self.playAudibleMessages = playAudibleMessages
        self.callKitEnabled = callKitEnabled
    }
}

/// Voice calls (seed 002): their signalling on the platform, and the device's controls.
/// There is no audio on this host: mute and speaker are the device's own state, and the
/// device's interruptions are simulated (``simulateInterruption(seconds:)``). Available
/// after `CCAI.initializeCall`.
///
/// ```swift
/// ccai.initializeCall()
/// let call = try await ccai.callService!.startInstantCall(InstantCallRequest(menuId: 1, recordingPermission: .granted))
/// for await event in ccai.callService!.callEvents() {
///     if case .callReceived(let call) = event, call.status == .connected { break }
/// }
/// try await ccai.callService!.endCall()
/// ```
public final class CallService: @unchecked Sendable {
    private let api: APIClient
    private let pump: EventPump
    public let options: CallOptions
    private let announcer: AudibleMessagePlayer?
    private let lock = NSLock()
    private var current: CallResponse?
    /// The newest records of the current call the stream brought, numbered in order
    /// (``answered(_:)``): at most ``keptStreamRecords``.
    private var streamRecords: [(number: Int, call: CallResponse)] = []
    private var lastStreamRecord = 0
    private static let keptStreamRecords = 16
    private var muted = false
    private var speakerEnabled = false
    private var providerState: CallProviderState = .disconnected
    /// The callbacks already told as `incomingCallEvent` (each once, however it arrived).
    private var announcedIncoming = Set<Int>()
    /// The custom data of the request that started a call, by call.
    private var requestedCustomData: (callID: Int, data: CustomData?)?
    /// The sign-in's signed custom data (``EndUserService/signedCustomData``).
    private let signedCustomData: @Sendable () -> [String: JSONValue]

    init(api: APIClient, pump: EventPump, options: CallOptions, messages: AudibleMessageService,
         signedCustomData: @escaping @Sendable () -> [String: JSONValue] = { [:] }) {
        self.signedCustomData = signedCustomData
        self.api = api
        self.pump = pump
        self.options = options
        announcer = options.playAudibleMessages ? AudibleMessagePlayer(messages: messages, pump: pump) : nil
        pump.observe { [weak self] event in
            guard let self else { return }
            if event.name == CallServiceEvent.Name.callReceived.streamName, case .callReceived(let call)? = CallServiceEvent(event) {
                self.updateCurrent(call)
            } else if event.name == PlatformEventName.incomingCall.rawValue, let call = try? event.decoded(as: CallResponse.self) {
                self.announceIncoming(call, source: .eventStream)
            }
        }
    }

    /// The call events, typed, in the order they happened: what every publisher below
    /// filters. Every call is a new subscriber.
    public func callEvents() -> AsyncStream<CallServiceEvent> {
        pump.subscribe { CallServiceEvent($0) }
    }

    /// The call events as ``callEvents()`` has them, each made into what `transform` makes
    /// of it (nil skips it), for a subscriber with no task of its own (``EventInbox``).
    public func callEvents<Value: Sendable>(wake: @escaping @Sendable (EventInbox<Value>) -> Void,
                                            _ transform: @escaping @Sendable (CallServiceEvent) -> Value?) -> EventInbox<Value> {
        pump.inbox(wake: wake) { CallServiceEvent($0).flatMap(transform) }
    }

    /// The provider's line: `connecting`, `connected`, `disconnected`, or an error. Like
    /// the seed's current-value publisher, a new subscriber gets the state as it is first.
    public var stateChanged: AsyncStream<CallProviderState> {
        let later = events(.stateChanged) { if case .stateChanged(let state) = $0 { state } else { nil } }
        let now = lock.withLock { providerState }
        return AsyncStream { continuation in
            continuation.yield(now)
            let task = Task {
                var last = now
                for await state in later where state != last {   // a change racing the subscription is told once
                    last = state
                    continuation.yield(state)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The whole call each time the platform's record of it changes (status, agent, wait).
    public var callReceived: AsyncStream<CallResponse> {
        events(.callReceived) { if case .callReceived(let call) = $0 { call } else { nil } }
    }

    /// A new estimate of the waiting call's wait.
    public var waitTimeUpdated: AsyncStream<CallWaitTimePayload> {
        events(.waitTimeUpdated) { if case .waitTimeUpdated(let payload) = $0 { payload } else { nil } }
    }

    /// An agent joined or left the call (an assignment, a transfer).
    public var participantUpdated: AsyncStream<CallParticipantPayload> {
        events(.participantUpdated) { if case .participantUpdated(let payload) = $0 { payload } else { nil } }
    }

    /// The platform offers a waiting call another way in (its wait passed the queue's
    /// threshold): scheduled call, phone number or voicemail; once per call.
    public var deflectionOffered: AsyncStream<CallDeflection> {
        events(.deflectionOffered) { if case .deflectionOffered(let offer) = $0 { offer } else { nil } }
    }

    /// An announcement the SDK played, with `playAudibleMessages` on: its caption and
    /// audio, at its moment of the call (no audio here: the event is the playing).
    public var audibleMessagePlayed: AsyncStream<AudibleMessagePlayback> {
        events(.audibleMessagePlayed) { if case .audibleMessagePlayed(let playback) = $0 { playback } else { nil } }
    }

    /// The platform calls back for a scheduled call that came due: accept it with
    /// ``acceptIncomingCall(callId:)`` or decline it with ``declineIncomingCall(callId:)``.
    public var incomingCallEvent: AsyncStream<IncomingCallEvent> {
        events(.incomingCallEvent) { if case .incomingCallEvent(let incoming) = $0 { incoming } else { nil } }
    }

    /// A cellular call paused the call; resume it with ``resumeCall(_:)`` afterwards.
    public var interruptionDetected: AsyncStream<CallInterruption> {
        events(.interruptionDetected) { if case .interruptionDetected(let interruption) = $0 { interruption } else { nil } }
    }

    private func events<Value: Sendable>(_ name: CallServiceEvent.Name, _ pick: @escaping @Sendable (CallServiceEvent) -> Value?)
        -> AsyncStream<Value>
    {
        pump.subscribe { event in CallServiceEvent(event, only: name).flatMap(pick) }
    }

    /// The call this service works on (the last started or resumed), as last reported.
    public var currentCall: CallResponse? { lock.withLock { current } }

    /// The custom data of the current call's session as the app sent it (the project's
    /// addition, as ``ChatService/sessionCustomData``): the sign-in's signed items with the
    /// call request's over them. Nil without a current call.
    public var sessionCustomData: SessionCustomData? {
        let (call, requested) = lock.withLock { (current, requestedCustomData) }
        guard let call else { return nil }
        return SessionCustomData(signedIn: signedCustomData(), request: requested?.callID == call.id ? requested?.data : nil)
    }

    /// Refreshes the current call from the platform (the project's, as a chat's `checkStatus`).
    @discardableResult
    public func checkStatus() async throws -> CallResponse {
        let call = try requireCurrentCall()
        return try await answered { try await api.send(Endpoints.call, ["id": call.id], as: CallResponse.self) }
    }

    /// Whether the device's microphone is muted (the device's state: the platform is not told).
    public var isMuted: Bool { lock.withLock { muted } }
    /// Whether the device plays the call on its speaker.
    public var isSpeakerEnabled: Bool { lock.withLock { speakerEnabled } }
    /// Whether the call is on hold, by either side, as the platform last reported it.
    public var isOnHold: Bool { lock.withLock { current?.status == .onHold } }

    /// Starts an instant call on a queue; it waits for an agent (`waiting`, with an
    /// estimate), then an agent takes it (`connecting`, `connected`), each a
    /// `callReceived`. On a queue that asks the end user about recording (`ask_user`),
    /// `recordingPermission` must be `granted` or `denied` (`invalid_argument`
    /// otherwise). A call in progress, or a queue closed or over capacity, is a `conflict`
    /// that says why (voicemail is then the way in).
    @discardableResult
    public func startInstantCall(_ request: InstantCallRequest) async throws -> CallResponse {
        let call = try await placing { try await api.send(Endpoints.startInstantCall, body: request, as: CallResponse.self) }
        lock.withLock { requestedCustomData = (call.id, request.customData) }
        return call
    }

    /// Places a call on the line (`connecting`, then `connected` once the platform has it,
    /// `disconnected` when it refused). A call already on the line keeps it: the platform
    /// refuses the second one.
    private func placing(_ start: () async throws -> CallResponse) async throws -> CallResponse {
        let onLine = currentCall?.isInProgress == true
        if !onLine { changeProviderState(.connecting) }
        do {
            let call = try await start()
            remember(call)
            changeProviderState(.connected)
            return call
        } catch {
            if !onLine { changeProviderState(.disconnected) }
            throw error
        }
    }

    /// Leaves a message for a queue that cannot take the call now (after hours, over
    /// capacity, redirecting its callers; its voice channel's `voicemailReason` says so),
    /// or that a wait-time deflection offered it to the waiting call, which then ends. The
    /// voicemail is connected at once and recorded; end it with ``endCall()``. A queue
    /// taking calls is a `conflict`, one without a voicemail box an `invalid_argument`.
    @discardableResult
    public func startVoicemail(_ request: VoicemailRequest) async throws -> CallResponse {
        try await placing { try await api.send(Endpoints.startVoicemail, body: request, as: CallResponse.self) }
    }

    /// The wait-time deflection the platform offered to call `callId`, or nil when none was.
    public func getCallDeflection(callId: Int) async throws -> CallDeflection? {
        do {
            return try await api.send(Endpoints.callDeflection, ["id": callId], as: CallDeflection.self)
        } catch let error as CCAIError where error.status == 404 && error.message.hasPrefix("no deflection") {
            return nil
        }
    }

    /// The slots a queue offers scheduled calls, soonest first (from its business hours in
    /// the company's time zone and its calls per slot); with `callIdForRescheduling`, the
    /// end user's booking being moved does not take its own slot. A queue that takes no
    /// scheduled calls (`scheduleEnabled` off) is a `conflict`.
    public func getScheduledTimeSlots(menuId: Int, callIdForRescheduling: Int? = nil) async throws -> [Date] {
        let query = callIdForRescheduling.map { ["call_id_for_rescheduling": String($0)] } ?? [:]
        let slots = try await api.send(Endpoints.scheduledTimeSlots, ["id": menuId], query: query, as: ScheduledTimeSlots.self)
        return slots.timeSlots.map { Date(timeIntervalSince1970: $0) }
    }

    /// Books a slot of ``getScheduledTimeSlots(menuId:callIdForRescheduling:)``: the
    /// scheduled call (`scheduled`; keep its id to move or cancel it). With
    /// `callIdForRescheduling` it replaces that booking, whose slot is freed. A phone
    /// number not in E.164 form, a slot not offered or taken is an `invalid_argument`
    /// naming it; a second booking is a `conflict`.
    @discardableResult
    public func createScheduledCall(_ request: ScheduledCallRequest) async throws -> CallResponse {
        guard PhoneNumber.isE164(request.phoneNumber) else {
            throw CallError.invalidPhoneNumber(request.phoneNumber)
        }
        return try await api.send(Endpoints.createScheduledCall, body: request, as: CallResponse.self)
    }

    /// Cancels a booking that has not come due; returns it, ended (`cancelled`).
    @discardableResult
    public func cancelScheduledCall(callId: Int) async throws -> CallResponse {
        try await api.send(Endpoints.cancelScheduledCall, ["id": callId], as: CallResponse.self)
    }

    /// Answers the platform's callback (an ``incomingCallEvent``): the call becomes the
    /// current one and waits for an agent like an instant call. A call that is not ringing
    /// (declined, rung out) is a `conflict`.
    @discardableResult
    public func acceptIncomingCall(callId: Int) async throws -> CallResponse {
        try await placing { try await api.send(Endpoints.acceptIncomingCall, ["id": callId], as: CallResponse.self) }
    }

    /// Declines the platform's callback; returns the call, ended (`declined`).
    @discardableResult
    public func declineIncomingCall(callId: Int) async throws -> CallResponse {
        try await api.send(Endpoints.declineIncomingCall, ["id": callId], as: CallResponse.self)
    }

    /// A VoIP push the app handed over: when it is the platform's callback of a scheduled
    /// call, the call is fetched and told as an ``incomingCallEvent`` (once). False for a
    /// payload that is not the platform's, or not a call.
    func handleVoIPPush(_ payload: PushPayload) async throws -> Bool {
        guard payload.kind == .incomingCall, let id = payload.callId else { return false }
        let call = try await api.send(Endpoints.call, ["id": id], as: CallResponse.self)
        announceIncoming(call, source: .voipPush)
        return true
    }

    private func announceIncoming(_ call: CallResponse, source: IncomingCallEvent.Source) {
        guard call.status == .ringing, lock.withLock({ announcedIncoming.insert(call.id).inserted }),
            let data = try? JSONValue(encoding: IncomingCallEvent(call: call, source: source))
        else { return }
        pump.emit(PlatformEvent(name: CallServiceEvent.Name.incomingCallEvent.streamName, data: data))
    }

    /// The end user's call in progress, if any (after an app restart, say).
    public func getLastCallInProgress() async throws -> CallResponse? {
        do {
            return try await api.send(Endpoints.currentCall, as: CallResponse.self)
        } catch let error as CCAIError where error.status == 404 {
            return nil
        }
    }

    /// Brings a call in progress back: an interrupted call is connected again, another
    /// call in progress is taken as the current one. A call that has ended is a `conflict`.
    public func resumeCall(_ call: CallResponse) async throws {
        let resumed = try await api.send(Endpoints.resumeCall, ["id": call.id], as: CallResponse.self)
        remember(resumed)
        changeProviderState(.connected)
    }

    /// Hangs up the current call (the seeds describe the end-call flow without naming it).
    public func endCall() async throws {
        let call = try requireCurrentCall()
        try await answered { try await api.send(Endpoints.endCall, ["id": call.id], as: CallResponse.self) }
    }

    /// Leaves the queue's virtual agent for a human: the call waits for an agent again.
    /// Show the button that calls it when `call.canEscalate(allowSkipVirtualAgent:)` says
    /// so (seed 002 names the check, not the request: this is the project's own). A call
    /// no virtual agent has is a `conflict`.
    ///
    /// ```swift
    /// if call.canEscalate(allowSkipVirtualAgent: voice.allowSkipVirtualAgent ?? false) {
    ///     try await ccai.callService?.escalateToHumanAgent()
    /// }
    /// ```
    @discardableResult
    public func escalateToHumanAgent() async throws -> CallResponse {
        let call = try requireCurrentCall()
        return try await answered { try await api.send(Endpoints.escalateCall, ["id": call.id], as: CallResponse.self) }
    }

    /// Mutes or unmutes the device's microphone; without a call in progress, `not_found`.
    public func setMuted(_ isMuted: Bool) throws {
        _ = try requireCallInProgress()
        lock.withLock { muted = isMuted }
    }

    /// Plays the call on the device's speaker, or not; without a call in progress, `not_found`.
    public func setSpeakerEnabled(_ isEnabled: Bool) throws {
        _ = try requireCallInProgress()
        lock.withLock { speakerEnabled = isEnabled }
    }

    /// Puts the connected call on hold, or takes it off hold (the platform is told: the
    /// agent hears the hold). A call in another status is a `conflict` naming it.
    @discardableResult
    public func setOnHold(_ isOnHold: Bool) async throws -> CallResponse {
        let call = try requireCallInProgress()
        return try await answered {
            try await api.send(Endpoints.holdCall, ["id": call.id], body: CallHoldRequest(onHold: isOnHold), as: CallResponse.self)
        }
    }

    // MARK: - Post-session (seed 000, as for chats)

    /// Signals that the post-session phase of the current call, which has ended, begins
    /// (`postSessionTransferStatus` -> `in_progress`). Out of order, on a call in progress
    /// or one without post-session: `conflict`.
    @discardableResult
    public func startPostSession() async throws -> CallResponse {
        let call = try requireCurrentCall()
        return try await answered { try await api.send(Endpoints.startPostSession.call, ["id": call.id], as: CallResponse.self) }
    }

    /// Signals that the app is ready for the flow (`in_progress` -> `ready`).
    @discardableResult
    public func readyPostSession() async throws -> CallResponse {
        let call = try requireCurrentCall()
        return try await answered { try await api.send(Endpoints.readyPostSession.call, ["id": call.id], as: CallResponse.self) }
    }

    /// The one post-session flow of the current call, as the hierarchy chooses it from the
    /// platform's settings (virtual agent > survey > CSAT), or nil when none is configured.
    public func getPostSessionFlow() async throws -> PostSessionFlow? {
        let call = try requireCurrentCall()
        let settings = try await api.send(Endpoints.postSessionSettings.call, ["id": call.id], as: PostSessionSettings.self)
        return settings.flow(communicationId: call.id, communicationType: .calls)
    }

    /// Plays the device's part of a cellular call (not named by the seeds: the device
    /// detects it on a phone): the platform is told the call is `interrupted`,
    /// `interruptionDetected` is emitted, and this returns once `seconds` have passed on
    /// the SDK's clock. The call stays interrupted until ``resumeCall(_:)``.
    public func simulateInterruption(seconds: Double) async throws {
        guard seconds >= 0, seconds.isFinite, seconds <= 86_400 else {
            throw CallError.invalidInterruption(seconds: seconds)
        }
        let call = try requireCallInProgress()
        try await answered {
            try await api.send(Endpoints.interruptCall, ["id": call.id], body: CallInterruptionRequest(seconds: seconds),
                               as: CallResponse.self)
        }
        let interruption = CallInterruption(callId: call.id, seconds: seconds)
        pump.emit(PlatformEvent(name: CallServiceEvent.Name.interruptionDetected.streamName, data: try JSONValue(encoding: interruption)))
        try await api.clock.sleep(for: seconds)
    }

    private func requireCurrentCall() throws -> CallResponse {
        guard let call = currentCall else { throw CallError.noCurrentCall }
        return call
    }

    private func requireCallInProgress() throws -> CallResponse {
        let call = try requireCurrentCall()
        guard call.isInProgress else {
            throw CallError.noCallInProgress(callId: call.id, status: call.status)
        }
        return call
    }

    /// Sends a request about the current call and takes its answer as the current call,
    /// unless the stream already brought that very record while the request was under way.
    /// The platform publishes every change of a call as it makes it, so the stream then has
    /// the answer's change and may have later ones: an escalated call can be taken by an
    /// agent, and its `connected` record arrive, before the escalation's answer (`waiting`).
    /// Other records that arrive meanwhile are earlier changes; the answer is newer.
    @discardableResult
    private func answered(_ send: () async throws -> CallResponse) async throws -> CallResponse {
        let before = lock.withLock { lastStreamRecord }
        let call = try await send()
        let overtaken = lock.withLock {
            current?.id == call.id && streamRecords.contains { $0.number > before && $0.call == call }
        }
        if !overtaken { remember(call) }
        return call
    }

    /// Notes a record of the current call the stream brought; under the lock.
    private func noteStreamRecord(_ call: CallResponse) {
        lastStreamRecord &+= 1
        streamRecords.append((lastStreamRecord, call))
        if streamRecords.count > Self.keptStreamRecords { streamRecords.removeFirst() }
    }

    private func remember(_ call: CallResponse) {
        let previous: CallResponse? = lock.withLock {
            defer { current = call }
            return current?.id == call.id ? current : nil
        }
        announcer?.announce(previous: previous, now: call)
        if !call.isInProgress { callFinished() }
    }

    /// Takes the platform's newer record of the current call: a finished call does not go
    /// back in progress.
    private func updateCurrent(_ call: CallResponse) {
        let change: (previous: CallResponse, finished: Bool)? = lock.withLock {
            guard let known = current, known.id == call.id else { return nil }
            guard known.isInProgress else {
                // An ended call changes only by its post-session phase, which only moves
                // on: a late record of an earlier step is not taken back.
                if !call.isInProgress, Self.step(call.postSessionTransferStatus) > Self.step(known.postSessionTransferStatus) {
                    current = call
                    noteStreamRecord(call)
                }
                return nil
            }
            current = call
            noteStreamRecord(call)
            return (known, !call.isInProgress)
        }
        guard let change else { return }
        announcer?.announce(previous: change.previous, now: call)
        if change.finished { callFinished() }
    }

    /// How far a post-session phase is: not started, in progress, ready, completed.
    private static func step(_ status: PostSessionTransferStatus?) -> Int {
        status.map { 1 + (PostSessionTransferStatus.allCases.firstIndex(of: $0) ?? 0) } ?? 0
    }

    /// The call is over: the device's controls reset and the line goes down.
    private func callFinished() {
        lock.withLock {
            muted = false
            speakerEnabled = false
        }
        changeProviderState(.disconnected)
    }

    private func changeProviderState(_ state: CallProviderState) {
        let changed: Bool = lock.withLock {
            guard providerState != state else { return false }
            providerState = state
            return true
        }
        if changed { pump.emit(PlatformEvent(name: CallServiceEvent.Name.stateChanged.streamName, data: state.json)) }
    }
}
