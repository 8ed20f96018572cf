@testable import CCAIWire
import Foundation
import Testing

/// The webhook signature as the chat platform API guide describes it, and every way a
/// request could try to pass without it.
struct WebhookSignatureTests {
    let body = Data(#"{"chat_id":42,"event":"chat_created"}"#.utf8)
    let signedAt = Date(timeIntervalSince1970: 1_800_000_000)
    let signing = WebhookSignature(primarySecret: "primary-secret-0123", secondarySecret: "secondary-secret-4567")

    /// Values computed apart (Python's hmac and base64) for the timestamp "1800000000"
    /// followed by the body.
    static let primaryVector = "Enhc60AjVdAlG+zlDsP70exFBsSn5fFUe/duR1rb8LM="
    static let secondaryVector = "Tl1Wj6iWD2JN4eutw+LPGf+XuVizzEcSEeWMMNBAls4="

    @Test func signsTheTimestampFollowedByTheBodyAsAnIndependentHMACDoes() {
        let headers = signing.headers(body: body, at: signedAt.addingTimeInterval(0.9))
        #expect(headers["X-Signature-Timestamp"] == "1800000000")
        #expect(headers["X-Signature"] == "primary=\(Self.primaryVector) secondary=\(Self.secondaryVector)")
    }

    @Test func withoutASecondSecretOnlyThePrimarySignatureIsSent() {
        let headers = WebhookSignature(primarySecret: "primary-secret-0123").headers(body: body, at: signedAt)
        #expect(headers["X-Signature"] == "primary=\(Self.primaryVector)")
    }

    @Test func verifiesWhatItSigns() throws {
        let headers = signing.headers(body: body, at: signedAt)
        let time = try signing.verify(body: body, signature: headers["X-Signature"], timestamp: headers["X-Signature-Timestamp"],
                                      now: signedAt.addingTimeInterval(30))
        #expect(time == signedAt)
    }

    @Test func eitherSecretOfTheReceiverMatchesEitherSignature() throws {
        let headers = signing.headers(body: body, at: signedAt)
        // A receiver that moved to the secondary secret alone, under either name.
        for receiver in [WebhookSignature(primarySecret: "secondary-secret-4567"),
                         WebhookSignature(primarySecret: "unrelated-secret-000", secondarySecret: "secondary-secret-4567")] {
            try receiver.verify(body: body, signature: headers["X-Signature"], timestamp: headers["X-Signature-Timestamp"],
                                now: signedAt)
        }
    }

    @Test func refusesAChangedBodyTimestampOrSecret() {
        let headers = signing.headers(body: body, at: signedAt)
        let signature = headers["X-Signature"]
        #expect(throws: WebhookSignatureError.mismatch) {
            try signing.verify(body: body + Data(" ".utf8), signature: signature, timestamp: "1800000000", now: signedAt)
        }
        #expect(throws: WebhookSignatureError.mismatch) {
            try signing.verify(body: body, signature: signature, timestamp: "1800000001", now: signedAt)
        }
        #expect(throws: WebhookSignatureError.mismatch) {
            try WebhookSignature(primarySecret: "another-secret-89ab").verify(body: body, signature: signature,
                                                                               timestamp: "1800000000", now: signedAt)
        }
    }

    @Test func refusesMissingHeaders() {
        #expect(throws: WebhookSignatureError.missingSignature) {
            try signing.verify(body: body, signature: nil, timestamp: "1800000000", now: signedAt)
        }
        #expect(throws: WebhookSignatureError.missingSignature) {
            try signing.verify(body: body, signature: "", timestamp: "1800000000", now: signedAt)
        }
        #expect(throws: WebhookSignatureError.missingTimestamp) {
            try signing.verify(body: body, signature: "primary=\(Self.primaryVector)", timestamp: nil, now: signedAt)
        }
    }

    @Test(arguments: [
        "primary",                                               // no value
        "primary=",                                              // empty
        "primary=not-base64!",                                   // not Base64
        "primary=AAAA",                                          // Base64 of 3 bytes, not 32
        "tertiary=\(primaryVector)",                             // unknown name
        "secondary=\(primaryVector)",                            // no primary
        "primary=\(primaryVector) primary=\(primaryVector)",     // twice
        "primary=\(primaryVector)," + String(repeating: "x", count: 600),  // too long
    ])
    func refusesMalformedSignatureHeaders(header: String) {
        #expect {
            try signing.verify(body: body, signature: header, timestamp: "1800000000", now: signedAt)
        } throws: { error in
            if case .malformedSignature = error as? WebhookSignatureError { return true }
            return false
        }
    }

    @Test(arguments: ["-1800000000", "+1800000000", "1800000000.5", "1.8e9", " 1800000000", "18000000000000", "now"])
    func refusesTimestampsThatAreNotWholeUnixSeconds(timestamp: String) {
        #expect {
            try signing.verify(body: body, signature: "primary=\(Self.primaryVector)", timestamp: timestamp, now: signedAt)
        } throws: { error in
            if case .malformedTimestamp = error as? WebhookSignatureError { return true }
            return false
        }
    }

    @Test func refusesTimestampsOutsideTheToleranceEitherWayAndAcceptsItsEdge() throws {
        let signature = "primary=\(Self.primaryVector)"
        try signing.verify(body: body, signature: signature, timestamp: "1800000000", now: signedAt.addingTimeInterval(300))
        try signing.verify(body: body, signature: signature, timestamp: "1800000000", now: signedAt.addingTimeInterval(-300))
        #expect(throws: WebhookSignatureError.stale(ageSeconds: 301, tolerance: 300)) {
            try signing.verify(body: body, signature: signature, timestamp: "1800000000", now: signedAt.addingTimeInterval(301))
        }
        #expect(throws: WebhookSignatureError.fromTheFuture(aheadSeconds: 301, tolerance: 300)) {
            try signing.verify(body: body, signature: signature, timestamp: "1800000000", now: signedAt.addingTimeInterval(-301))
        }
        var strict = signing
        strict.tolerance = 10
        #expect(throws: WebhookSignatureError.stale(ageSeconds: 11, tolerance: 10)) {
            try strict.verify(body: body, signature: signature, timestamp: "1800000000", now: signedAt.addingTimeInterval(11))
        }
    }

    @Test func theStaleCheckComesBeforeTheSignatureSoAReplayIsNamed() {
        let headers = signing.headers(body: body, at: signedAt)
        let error = #expect(throws: WebhookSignatureError.self) {
            try signing.verify(body: body, signature: headers["X-Signature"], timestamp: headers["X-Signature-Timestamp"],
                               now: signedAt.addingTimeInterval(3_600))
        }
        #expect(error?.description.contains("3600 seconds old") == true)
    }

    @Test func theEnvelopeIsWrittenInSnakeCaseAndReadBack() throws {
        let envelope = WebhookEnvelope(id: 7, event: WebhookEventName.agentMessage.rawValue, chatId: 42,
                                       timestamp: "2027-01-15T08:00:00Z", data: ["text": "Hello"])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(envelope), as: UTF8.self)
        #expect(text == #"{"chat_id":42,"data":{"text":"Hello"},"event":"agent_message","id":7,"timestamp":"2027-01-15T08:00:00Z"}"#)
        let read = try JSONDecoder().decode(WebhookEnvelope.self, from: Data(text.utf8))
        #expect(read == envelope)
        #expect(read.name == .agentMessage)
    }

    @Test func eventNamesAreSnakeCaseAndSaidOnce() {
        let names = WebhookEventName.allCases.map(\.rawValue)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "_" } })
        #expect(names.contains("chat_created"))
    }
}
