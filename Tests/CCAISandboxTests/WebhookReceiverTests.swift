import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// The receiver scripts use (`--webhook-listen`), reached over loopback by curl (a client
/// independent of the project's own): only signed, fresh, well-formed and new deliveries
/// get through.
struct WebhookReceiverTests {
    let signing = WebhookSignature(primarySecret: "primary-secret-0123", secondarySecret: "secondary-secret-4567")
    let clock = ManualClock()

    func envelope(id: Int = 1, event: String = "chat_created", chatID: Int = 42) -> Data {
        Data(#"{"chat_id":\#(chatID),"data":{"status":"queued"},"event":"\#(event)","id":\#(id),"timestamp":"2027-01-15T08:00:00Z"}"#.utf8)
    }

    func post(_ receiver: WebhookReceiver, _ body: Data, headers: [String: String], path: String = "/") async throws -> Curl.Reply {
        try await Curl.request("POST", receiver.baseURL + path, body: body,
                               headers: headers.merging(["Content-Type": "application/json"]) { given, _ in given })
    }

    @Test func aSignedDeliveryIsHandedOnAndEverythingElseIsRefusedWithNothingHandedOn() async throws {
        // The receiver knows only the secondary secret: rotation.
        let (receiver, deliveries) = try WebhookReceiver.stream(path: "/hooks", signature: WebhookSignature(primarySecret: "secondary-secret-4567"),
                                                                clock: clock)
        let body = envelope()
        let headers = signing.headers(body: body, at: clock.now())

        #expect(try await post(receiver, body, headers: [:], path: "/hooks").status == 401)
        #expect(try await post(receiver, body + Data(" ".utf8), headers: headers, path: "/hooks").status == 401)
        let stale = signing.headers(body: body, at: clock.now().addingTimeInterval(-301))
        let staleReply = try await post(receiver, body, headers: stale, path: "/hooks")
        #expect(staleReply.status == 401 && staleReply.body.contains("seconds old"))
        let forged = WebhookSignature(primarySecret: "someone-elses-secret").headers(body: body, at: clock.now())
        #expect(try await post(receiver, body, headers: forged, path: "/hooks").status == 401)
        let garbage = Data("not json".utf8)
        let garbageReply = try await post(receiver, garbage, headers: signing.headers(body: garbage, at: clock.now()), path: "/hooks")
        #expect(garbageReply.status == 400 && garbageReply.body.contains("not a webhook envelope"))
        #expect(try await post(receiver, body, headers: headers, path: "/elsewhere").status == 404)
        #expect(try await Curl.request("GET", receiver.baseURL + "/hooks").status == 405)

        let accepted = try await post(receiver, body, headers: headers, path: "/hooks")
        #expect(accepted.status == 204)
        let replay = try await post(receiver, body, headers: headers, path: "/hooks")
        #expect(replay.status == 409 && replay.body.contains("replay"))
        // The same signatures spelled otherwise are the same delivery.
        var respelled = headers
        let parts = (headers["X-Signature"] ?? "").split(separator: " ")
        respelled["X-Signature"] = parts.reversed().joined(separator: "   ")
        #expect(try await post(receiver, body, headers: respelled, path: "/hooks").status == 409)

        await receiver.stop()
        var received: [WebhookReceiver.Delivery] = []
        for await delivery in deliveries { received.append(delivery) }
        #expect(received.count == 1)
        #expect(received.first?.event == "chat_created" && received.first?.chatID == 42)
        #expect(received.first?.data == ["status": "queued"])
        #expect(received.first?.envelope.id == 1)
    }

    @Test func aBodyPastTheLimitIsRefusedBeforeItIsRead() async throws {
        let (receiver, _) = try WebhookReceiver.stream(signature: signing, clock: clock)
        defer { Task { await receiver.stop() } }
        let body = Data(repeating: UInt8(ascii: " "), count: WebhookReceiver.maximumBodyBytes + 1)
        let reply = try await post(receiver, body, headers: signing.headers(body: body, at: clock.now()))
        #expect(reply.status == 413)
    }

    @Test func theSameDeliveryAfterTheToleranceIsStaleNotAReplay() async throws {
        let (receiver, _) = try WebhookReceiver.stream(signature: signing, clock: clock)
        let body = envelope()
        let headers = signing.headers(body: body, at: clock.now())
        #expect(try await post(receiver, body, headers: headers).status == 204)
        clock.advance(by: 301)
        let reply = try await post(receiver, body, headers: headers)
        #expect(reply.status == 401 && reply.body.contains("301 seconds old"))
        // A new signature of the same delivery (a sender's retry) is new.
        #expect(try await post(receiver, body, headers: signing.headers(body: body, at: clock.now())).status == 204)
        await receiver.stop()
    }
}
