@testable import CCAIBridge
import CCAIKit
@testable import CCAISandbox
import CCAIWire
import Foundation
import Synchronization
import TestSupport
import Testing

/// Pushes of an agent's message (seed 004: the platform keeps the end user informed while
/// the app is in the background): sent only while no event stream is open, delivered by
/// the local push network to the device holding the token, and the messages themselves
/// still arrive once the app is back.
@Suite struct PushDeliveryTests {
    /// What a sandbox sends, and to which token, before the network delivers it.
    final class Recorder: PushSink {
        let network = LocalPushNetwork()
        let sent = Mutex<[(PushRecord, String)]>([])
        func deliver(_ push: PushRecord, to token: String) async {
            sent.withLock { $0.append((push, token)) }
            await network.deliver(push, to: token)
        }
    }

    private func device(_ sandbox: Sandbox, network: LocalPushNetwork, _ identifier: String) throws -> (CCAI, SigningDelegate) {
        let delegate = SigningDelegate(identifier: identifier)
        return (try makeSDK(sandbox, delegate: delegate, cache: false, pushNetwork: network), delegate)
    }

    /// The next message from the agent among those received.
    private func agentMessage(_ messages: inout AsyncStream<[ChatMessage]>.Iterator) async -> ChatMessage? {
        while let batch = await messages.next() {
            if let message = batch.first(where: { $0.sender.type == .agent }) { return message }
        }
        return nil
    }

    @Test(.timeLimit(.minutes(1))) func anAgentsMessageIsPushedOnlyWhileTheAppIsAway() async throws {
        let recorder = Recorder()
        let sandbox = try Sandbox(pushSink: recorder, log: { _ in })
        let (ccai, delegate) = try device(sandbox, network: recorder.network, "push-away")
        let (other, otherDelegate) = try device(sandbox, network: recorder.network, "push-other")
        defer { withExtendedLifetime((delegate, otherDelegate)) {} }
        ccai.initializeChat()
        let chat = try #require(ccai.chatService)
        let push = try #require(ccai.pushNotificationService)
        let token = Data(repeating: 0xC4, count: 32)
        try await push.updatePushToken(data: token, type: .apns)
        try await #require(other.pushNotificationService).updatePushToken(data: Data(repeating: 0x5A, count: 32), type: .apns)
        var received = push.receivedPushes().makeAsyncIterator()
        var messages = chat.messagesReceived.makeAsyncIterator()
        for await state in chat.stateChanged where state == .connected { break }

        let started = try await chat.start(request: ChatRequest(menuId: 8))
        let greeting = try #require(await agentMessage(&messages))
        #expect(recorder.sent.withLock { $0.isEmpty }, "the greeting came on the open stream: \(greeting.text ?? "")")

        await ccai.setInBackground(true)
        #expect(ccai.isInBackground)
        _ = try await chat.sendMessage(.text(content: "Where is my parcel?"))
        let delivered = try #require(await received.next())
        #expect(delivered.type == .apns)
        let part = try #require(delivered.payload[PushPayload.key]).decoded(as: PushPayload.self)
        #expect(part.kind == .chatMessage && part.chatId == started.id)
        let alert = try #require(part.alert)
        #expect(alert.hasPrefix("Ben: ") && delivered.payload["aps"] == .object(["alert": .string(alert)]))
        let (record, sentTo) = try #require(recorder.sent.withLock { $0.first })
        #expect(sentTo == token.map { String(format: "%02x", $0) }.joined() && record.tokenSuffix == "c4c4c4c4")
        #expect(record.type == .apns && record.payload == part, "the operator's record is the push")
        #expect(await push.handlePushNotification(delivered.payload))

        await ccai.setInBackground(false)
        let reply = try #require(await agentMessage(&messages))
        #expect(alert == "Ben: " + (reply.text ?? ""), "the message the push announced arrives once back: \(reply)")
        #expect(recorder.sent.withLock { $0.count } == 1, "only the message sent while away was pushed, to its end user only")
    }

    /// A device holds one end user at a time: when another end user registers a token,
    /// the platform pushes nothing more of the first one's to it.
    @Test func aTokenRegisteredByAnotherEndUserIsTheirsAlone() async throws {
        let sandbox = try Sandbox(log: { _ in })
        let network = LocalPushNetwork()
        let (first, firstDelegate) = try device(sandbox, network: network, "shared-first")
        let (second, secondDelegate) = try device(sandbox, network: network, "shared-second")
        defer { withExtendedLifetime((firstDelegate, secondDelegate)) {} }
        let token = Data(repeating: 0x77, count: 32)
        try await #require(first.pushNotificationService).updatePushToken(data: token, type: .apns)
        try await #require(second.pushNotificationService).updatePushToken(data: token, type: .apns)
        let firstID = try #require(first.endUserService?.endUser?.id), secondID = try #require(second.endUserService?.endUser?.id)
        let payload = PushPayload(kind: .chatMessage, chatId: 1, alert: "Ben: hello")
        #expect(try await sandbox.pushes.send(payload, type: .apns, endUserID: firstID) == nil, "the token is no longer the first's")
        #expect(try await sandbox.pushes.send(payload, type: .apns, endUserID: secondID)?.tokenSuffix == "77777777")
    }

    /// Devices come and go in a long-lived program: those gone are forgotten as new ones
    /// register, and a push to their tokens reaches nobody.
    @Test func devicesGoneAreForgotten() async throws {
        let network = LocalPushNetwork()
        let sandbox = try Sandbox(log: { _ in })
        for index in 0..<200 {
            let (device, delegate) = try device(sandbox, network: network, "passing-\(index)")
            let token = String(format: "%064x", index)
            network.register(token, type: .apns, for: try #require(device.pushNotificationService))
            withExtendedLifetime(delegate) {}
        }
        let (kept, delegate) = try device(sandbox, network: network, "kept")
        defer { withExtendedLifetime(delegate) {} }
        let push = try #require(kept.pushNotificationService)
        network.register(String(repeating: "ab", count: 32), type: .apns, for: push)
        var inbox = push.receivedPushes().makeAsyncIterator()
        let record = PushRecord(id: 1, endUserId: 1, type: .apns, tokenSuffix: "", payload: PushPayload(kind: .chatMessage, chatId: 1),
                                sentAt: 0)
        await network.deliver(record, to: String(format: "%064x", 3))
        await network.deliver(record, to: String(repeating: "ab", count: 32))
        #expect(await inbox.next()?.type == .apns, "the live device still gets its pushes")
        #expect(network.addressCount < 64, "the gone devices' addresses were swept: \(network.addressCount)")
    }

    /// A lock screen shows a line: the alert is the sender and the text cut to 178
    /// characters, or what was sent when it is not text.
    @Test func theAlertIsTheSenderAndTheTextCut() {
        let long = ChatMessage(id: 1, chatId: 1, sequence: 1, sender: ChatMessageSender(type: .agent, name: "Ada"),
                               text: String(repeating: "é", count: 300), createdAt: 0)
        let alert = Pushes.alert(for: long)
        #expect(alert.unicodeScalars.count == Pushes.alertLength && alert.hasPrefix("Ada: éé") && alert.hasSuffix("…"))
        let marks = ChatMessage(id: 3, chatId: 1, sequence: 3, sender: ChatMessageSender(type: .agent, name: "Zed"),
                                text: "a" + String(repeating: "\u{301}", count: 5_000), createdAt: 0)
        #expect(Pushes.alert(for: marks).utf8.count < 4 * Pushes.alertLength, "combining marks count one by one")
        let file = ChatMessage(id: 2, chatId: 1, sequence: 2, sender: ChatMessageSender(type: .virtualAgent), type: .media,
                               media: ChatMedia(id: 1, type: .photo, name: "a.png", mimeType: "image/png", size: 10), createdAt: 0)
        #expect(Pushes.alert(for: file) == "sent a file")
    }

    /// A token another device registers is that device's from then on; a device that
    /// clears its token gets nothing more, as APNs drops a push for an uninstalled app.
    @Test func theNetworkDeliversToTheDeviceHoldingTheToken() async throws {
        let sandbox = try Sandbox(log: { _ in })
        let network = LocalPushNetwork()
        let (first, firstDelegate) = try device(sandbox, network: network, "token-first")
        let (second, secondDelegate) = try device(sandbox, network: network, "token-second")
        defer { withExtendedLifetime((firstDelegate, secondDelegate)) {} }
        let firstPushes = try #require(first.pushNotificationService), secondPushes = try #require(second.pushNotificationService)
        let token = Data(repeating: 0x11, count: 32), hex = String(repeating: "11", count: 32)
        try await firstPushes.updatePushToken(data: token, type: .voip)
        var secondInbox = secondPushes.receivedPushes().makeAsyncIterator()
        var firstInbox = firstPushes.receivedPushes().makeAsyncIterator()
        let record = PushRecord(id: 1, endUserId: 1, type: .voip, tokenSuffix: "11111111",
                                payload: PushPayload(kind: .incomingCall, callId: 5), sentAt: 0)
        await network.deliver(record, to: hex)
        #expect(await firstInbox.next()?.payload[PushPayload.key] == .object(["kind": "incoming_call", "call_id": 5]))

        try await secondPushes.updatePushToken(data: token, type: .voip)
        await network.deliver(record, to: hex.uppercased())
        #expect(await secondInbox.next()?.type == .voip, "the token moved to the second device")
        try await secondPushes.updatePushToken(data: nil, type: .voip)
        try await firstPushes.updatePushToken(data: Data(repeating: 0x22, count: 32), type: .voip)
        await network.deliver(record, to: hex)
        var later = record
        later.payload.callId = 6
        await network.deliver(later, to: String(repeating: "22", count: 32))
        #expect(await firstInbox.next()?.payload[PushPayload.key] == .object(["kind": "incoming_call", "call_id": 6]),
                "the cleared token reaches nobody; the first device's new one reaches it")
    }
}
