import CCAIBridge
import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import Synchronization
import TestSupport
import Testing
import Timekeeping

/// The SDK's call service against the sandbox: the server's status and the provider's
/// line kept apart, the device's controls, and the refusals.
@Suite struct CallServiceTests {
    /// The pushes a sandbox sends, as an embedding program's sink gets them.
    final class PushCollector: PushSink {
        let pushes = Mutex<[PushRecord]>([])
        func deliver(_ push: PushRecord, to token: String) async { pushes.withLock { $0.append(push) } }
    }

    /// A sandbox open all day whose queue 1 asks about recording; Ada takes its calls.
    private func callSandbox() async throws -> Sandbox {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("calls-\(UUID().uuidString).lua").path
        try """
            return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Phone", channels = { voice_call = { instant = true, recording = "ask_user" } } } },
                     agents = { { name = "Ada", menus = { 1 } } } }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try Sandbox(configuration: try await SandboxConfiguration.load(file: path))
    }

    @Test(.timeLimit(.minutes(1))) func aCallConnectsIsControlledInterruptedResumedAndEnded() async throws {
        let sandbox = try await callSandbox()
        let clock = ManualClock()
        let delegate = SigningDelegate(identifier: "caller")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false, clock: clock)
        #expect(ccai.callService == nil, "nil until initializeCall")
        ccai.initializeCall(CallOptions(playAudibleMessages: false))
        let service = try #require(ccai.callService)
        #expect(service.options == CallOptions(playAudibleMessages: false, callKitEnabled: true))
        var states = service.stateChanged.makeAsyncIterator()
        #expect(await states.next() == .disconnected, "the current state first")
        var calls = service.callReceived.makeAsyncIterator()
        var participants = service.participantUpdated.makeAsyncIterator()
        var interruptions = service.interruptionDetected.makeAsyncIterator()

        let started = try await service.startInstantCall(InstantCallRequest(menuId: 1, recordingPermission: .granted))
        #expect(started.status == .waiting && started.recorded)
        #expect(await states.next() == .connecting)
        #expect(await states.next() == .connected, "the line is up while the call waits: not the call's status")
        var statuses: [CallStatus] = []
        while statuses.last != .connected, let call = await calls.next() { statuses.append(call.status) }
        #expect(statuses == [.waiting, .connecting, .connected])
        #expect(await participants.next()?.participant.name == "Ada")
        #expect(try await service.getLastCallInProgress()?.id == started.id)

        try service.setMuted(true)
        try service.setSpeakerEnabled(true)
        #expect(service.isMuted && service.isSpeakerEnabled)
        #expect(try await service.setOnHold(true).status == .onHold && service.isOnHold)
        #expect(try await service.setOnHold(false).status == .connected && !service.isOnHold)

        let interrupting = Task { try await service.simulateInterruption(seconds: 30) }
        #expect(await interruptions.next() == CallInterruption(callId: started.id, seconds: 30))
        await clock.waitForTimers { $0.contains(30) }
        #expect(service.currentCall?.status == .interrupted)
        clock.advance(by: 30)
        try await interrupting.value
        try await service.resumeCall(try #require(service.currentCall))
        #expect(service.currentCall?.status == .connected)

        try await service.endCall()
        #expect(service.currentCall?.status == .ended && service.currentCall?.endReason == .endUser)
        #expect(await states.next() == .disconnected)
        #expect(!service.isMuted && !service.isSpeakerEnabled, "the device's controls reset with the call")
        #expect(try await service.getLastCallInProgress() == nil)
        withExtendedLifetime(delegate) {}
    }

    @Test(.timeLimit(.minutes(1))) func announcementsPlayAtTheirMomentsAndAnOfferedVoicemailReplacesTheWait() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("calls-\(UUID().uuidString).lua").path
        try """
            return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret",
                                 audible_messages = { welcome = { text = "Welcome" }, goodbye = { text = "Goodbye" } } },
                     menus = { { id = 2, name = "Busy", audible_messages = { all_agents_busy = { text = "All agents are busy",
                                                                                 audio_url = "https://cdn.acme.test/busy.mp3" } },
                                 channels = { voice_call = { instant = true, phone_number = "+15550102",
                                                             wait_deflection = { after_seconds = 0, offers = { "voicemail" } } } } } } }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sandbox = try Sandbox(configuration: try await SandboxConfiguration.load(file: path))
        let delegate = SigningDelegate(identifier: "announced-caller")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        #expect(ccai.audibleMessageService == nil, "nil until initializeCall")
        ccai.initializeCall()
        let service = try #require(ccai.callService)
        #expect(try await ccai.audibleMessageService?.resolveMessages(menuId: 2).map(\.kind) == [.welcome, .allAgentsBusy, .goodbye])
        var played = service.audibleMessagePlayed.makeAsyncIterator()
        var offers = service.deflectionOffered.makeAsyncIterator()

        let waiting = try await service.startInstantCall(InstantCallRequest(menuId: 2))
        #expect(await played.next() == AudibleMessagePlayback(callId: waiting.id, message: AudibleMessage(kind: .welcome, text: "Welcome")))
        let busy = await played.next()
        #expect(busy?.kind == .allAgentsBusy && busy?.audioUrl == "https://cdn.acme.test/busy.mp3" && busy?.callId == waiting.id)
        let offer = try #require(await offers.next())
        #expect(offer.callId == waiting.id && offer.offers == [.voicemail])
        #expect(try await service.getCallDeflection(callId: waiting.id) == offer)

        let voicemail = try await service.startVoicemail(VoicemailRequest(menuId: 2))
        #expect(voicemail.type == .voicemail && voicemail.voicemailReason == .overCapacityDeflection && service.currentCall == voicemail)
        #expect(try await service.getCallDeflection(callId: voicemail.id) == nil, "a voicemail is offered nothing")
        try await service.endCall()
        var voicemailKinds: [AudibleMessageKind] = []
        while voicemailKinds.last != .goodbye, let next = await played.next() {
            if next.callId == voicemail.id { voicemailKinds.append(next.kind) }
        }
        #expect(voicemailKinds == [.welcome, .goodbye])
        withExtendedLifetime(delegate) {}
    }

    @Test(.timeLimit(.minutes(1))) func refusalsSayWhyAndControlsNeedACall() async throws {
        let sandbox = try await callSandbox()
        let delegate = SigningDelegate(identifier: "refused-caller")   // the SDK holds its delegate weakly
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        ccai.initializeCall()
        let service = try #require(ccai.callService)
        func code(_ body: () async throws -> Void) async -> ErrorCode? {
            do {
                try await body()
                return nil
            } catch let error as any SDKError {
                return error.code
            } catch {
                return nil
            }
        }
        #expect(throws: CallError.noCurrentCall, "seed 002's call errors") { try service.setMuted(true) }
        #expect(await code { try service.setMuted(true) } == .notFound, "no call yet")
        #expect(await code { try await service.setOnHold(true) } == .notFound)
        #expect(await code { try await service.simulateInterruption(seconds: 1) } == .notFound)
        #expect(await code { try await service.endCall() } == .notFound)
        #expect(await code { try await service.startInstantCall(InstantCallRequest(menuId: 1)) } == .invalidArgument,
                "an ask_user queue needs the answer")
        let call = try await service.startInstantCall(InstantCallRequest(menuId: 1, recordingPermission: .denied))
        #expect(!call.recorded)
        #expect(await code { try await service.startInstantCall(InstantCallRequest(menuId: 1, recordingPermission: .denied)) } == .conflict,
                "one call at a time")
        #expect(await code { try await service.simulateInterruption(seconds: -1) } == .invalidArgument)
        try await service.endCall()
        #expect(await code { try service.setSpeakerEnabled(true) } == .notFound, "the call has ended")
        #expect(throws: CallError.noCallInProgress(callId: call.id, status: .ended)) { try service.setSpeakerEnabled(true) }
        #expect(await code { try await service.resumeCall(call) } == .conflict, "an ended call cannot be resumed")
        withExtendedLifetime(delegate) {}
    }

    /// A sandbox whose queue 1 a voice virtual agent answers, and Ada after it.
    private func virtualAgentSandbox() async throws -> Sandbox {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("voice-va-\(UUID().uuidString).lua").path
        try """
            return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Assistant", channels = { voice_call = { instant = true, virtual_agent = "bot" } } } },
                     agents = { { name = "Ada", menus = { 1 } } }, virtual_agents = { bot = { name = "Bot" } } }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try Sandbox(configuration: try await SandboxConfiguration.load(file: path))
    }

    /// A queue's voice virtual agent answers first; `canEscalate` shows the app's button and
    /// `escalateToHumanAgent` brings a person.
    @Test(.timeLimit(.minutes(1))) func aCallLeavesTheVirtualAgentForAPerson() async throws {
        let sandbox = try await virtualAgentSandbox()
        let delegate = SigningDelegate(identifier: "escalating-caller")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        ccai.initializeCall(CallOptions(playAudibleMessages: false))
        let service = try #require(ccai.callService)
        await #expect(throws: CallError.noCurrentCall) { try await service.escalateToHumanAgent() }
        var calls = service.callReceived.makeAsyncIterator()
        let menu = try #require(try await ccai.queueMenuService?.get().0.first)
        let allowSkip = menu.channels?.voiceCall?.allowSkipVirtualAgent ?? false

        _ = try await service.startInstantCall(InstantCallRequest(menuId: 1))
        var answered: CallResponse?
        while answered?.virtualAgent == nil, let call = await calls.next() { answered = call }
        #expect(answered?.status == .connected && answered?.canEscalate(allowSkipVirtualAgent: allowSkip) == true)
        let waiting = try await service.escalateToHumanAgent()
        #expect(waiting.status == .waiting && !waiting.canEscalate(allowSkipVirtualAgent: allowSkip))
        var human: CallResponse?
        while human?.agent == nil || human?.status != .connected, let call = await calls.next() { human = call }
        #expect(human?.agent?.name == "Ada")
        await #expect(throws: (any Error).self, "no virtual agent is left") { try await service.escalateToHumanAgent() }
        try await service.endCall()
        withExtendedLifetime(delegate) {}
    }

    /// The stream can bring a call's later changes before a request's answer: here the
    /// escalation's answer (`waiting`) is held until the stream has brought the agent's
    /// `connected`. The late answer does not take the current call back to `waiting`.
    @Test(.timeLimit(.minutes(1))) func anAnswerOvertakenByTheStreamDoesNotUndoTheNewerRecord() async throws {
        let sandbox = try await virtualAgentSandbox()
        let release = Latch()
        let transport = HoldingTransport(base: RouterTransport(router: sandbox.router), release: release) { request in
            request.method == "POST" && request.url.hasSuffix("/escalate")
        }
        let delegate = SigningDelegate(identifier: "overtaken-caller")
        let ccai = CCAI(http: HTTPClient(transport: transport))
        delegate.ccai = ccai
        try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: inProcessHost, delegate: delegate, cacheAuthToken: false))
        ccai.initializeCall(CallOptions(playAudibleMessages: false))
        let service = try #require(ccai.callService)
        var calls = service.callReceived.makeAsyncIterator()
        _ = try await service.startInstantCall(InstantCallRequest(menuId: 1))
        var answered: CallResponse?
        while answered?.virtualAgent == nil, let call = await calls.next() { answered = call }
        let escalation = Task { try await service.escalateToHumanAgent() }
        var human: CallResponse?
        while human?.agent == nil || human?.status != .connected, let call = await calls.next() { human = call }
        #expect(service.currentCall?.status == .connected, "the stream's record is current while the answer is held")
        await release.open()
        let late = try await escalation.value
        #expect(late.status == .waiting, "the answer is the escalation's own record")
        #expect(service.currentCall?.status == .connected && service.currentCall?.agent?.name == "Ada",
                "the newer record the stream brought stays current")
        #expect(service.currentCall?.canEscalate(allowSkipVirtualAgent: true) == false)
        try await service.endCall()
        withExtendedLifetime(delegate) {}
    }

    /// A booked call comes due: the SDK tells the callback once, from the event stream or
    /// the VoIP push the app hands over, and the accepted call reaches the agent.
    @Test(.timeLimit(.minutes(1))) func aScheduledCallIsBookedAndItsCallbackAnswered() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("scheduled-\(UUID().uuidString).lua").path
        try """
            return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                     menus = { { id = 1, name = "Callbacks", channels = { voice_call = { instant = true, schedule = true,
                                 scheduling = { slot_minutes = 5 } } } } },
                     agents = { { name = "Ada", menus = { 1 } } } }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sandboxClock = ManualClock(Date())
        let sink = PushCollector()
        let sandbox = try Sandbox(configuration: try await SandboxConfiguration.load(file: path), clock: sandboxClock, pushSink: sink,
                                  log: { _ in })
        let delegate = SigningDelegate(identifier: "booker")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false)
        ccai.initializeCall(CallOptions(playAudibleMessages: false))
        let service = try #require(ccai.callService)
        let push = try #require(ccai.pushNotificationService)
        var incoming = service.incomingCallEvent.makeAsyncIterator()

        let slots = try await service.getScheduledTimeSlots(menuId: 1)
        let first = try #require(slots.first)
        #expect(slots.count > 1 && slots[1].timeIntervalSince(first) == 300)
        do {
            _ = try await service.createScheduledCall(ScheduledCallRequest(menuId: 1, phoneNumber: "555-0123", scheduleTime: first))
            Issue.record("a number not in E.164 form is refused")
        } catch let error as CallError {
            #expect(error == .invalidPhoneNumber("555-0123") && error.code == .invalidArgument && error.message.contains("E.164"),
                    "\(error)")
        }
        let booking = try await service.createScheduledCall(ScheduledCallRequest(menuId: 1, phoneNumber: "+14155550123", scheduleTime: first))
        #expect(booking.status == .scheduled && booking.scheduleTime == first.timeIntervalSince1970 && service.currentCall == nil)

        #expect(await push.registerForPushNotifications())
        try await push.updatePushToken(data: Data(repeating: 0xAB, count: 32), type: .voip)
        await #expect(throws: CCAIError.self) { try await push.updatePushToken(data: Data([1, 2]), type: .voip) }
        #expect(await !push.handlePushNotification(["aps": ["alert": "the app's own"]]))
        #expect(await !push.handlePushNotification(["ccai": ["kind": "something_else"]]), "an unknown kind is not handled")
        #expect(await !push.handlePushNotification(["ccai": "not a table"]))

        sandboxClock.advance(to: first.addingTimeInterval(1))
        _ = try await sandbox.placeScheduledCallsDue()
        let rung = try #require(await incoming.next())
        #expect(rung.call.id == booking.id && rung.call.status == .ringing && rung.source == .eventStream)
        let voip: [String: JSONValue] = ["ccai": ["kind": "incoming_call", "call_id": .number(Double(booking.id))]]
        #expect(await push.handlePushNotification(voip), "the platform's VoIP push is handled, and told no second time")
        let pushed = sink.pushes.withLock { $0 }
        #expect(pushed.map(\.payload) == [PushPayload(kind: .incomingCall, callId: booking.id)] && pushed.first?.tokenSuffix == "abababab")

        var calls = service.callReceived.makeAsyncIterator()
        let accepted = try await service.acceptIncomingCall(callId: booking.id)
        #expect(accepted.id == booking.id && service.currentCall?.id == booking.id)
        while let call = await calls.next(), call.status != .connected { #expect(call.id == booking.id) }
        try await service.endCall()
        #expect(service.currentCall?.status == .ended)
        withExtendedLifetime(delegate) {}
    }
}

/// Hands requests to `base`, and holds the answers of those `holds` picks until `release`
/// opens: a platform whose stream overtakes its answers.
private struct HoldingTransport: HTTPTransport {
    let base: any HTTPTransport
    let release: Latch
    let holds: @Sendable (HTTPClientRequest) -> Bool

    func perform(_ request: HTTPClientRequest, onChunk: ((Int, Data) -> Bool)?) async throws -> HTTPClientResponse {
        let response = try await base.perform(request, onChunk: onChunk)
        if holds(request) { await release.wait() }
        return response
    }
}
