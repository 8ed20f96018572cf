@testable import CCAIKit
import CCAIWire
import Foundation
import Testing

/// An event read from the stream keeps the text it arrived as: models decode from it once,
/// and its JSON tree is parsed only when a reader asks for `data` (issue 36: parsing every
/// event into a tree took a fifth of a VU's CPU).
@Suite struct PlatformEventTests {
    @Test func aStreamedEventParsesItsDataOnlyWhenRead() throws {
        let event = PlatformEvent(id: "7", name: "chat_received", text: #"{"id": 4, "status": "queued"}"#)
        #expect(event.data["id"] == .integer(4) && event.data["status"] == "queued")
        #expect(event == PlatformEvent(id: "7", name: "chat_received", data: ["status": "queued", "id": 4]))
        #expect(PlatformEvent(id: nil, name: "x", text: "not json").data == .string("not json"), "text that is not JSON reads as a string")
        #expect(!event.isNull && PlatformEvent(id: nil, name: "chat_received", text: " null\n").isNull)
        #expect(PlatformEvent(name: "state_changed", data: .null).isNull)
        var changed = event
        changed.data = ["id": 5]
        #expect(changed.data == ["id": 5] && changed.text == nil, "data set by the SDK replaces the text")
    }

    @Test func modelsDecodeFromTheTextReceived() throws {
        let event = PlatformEvent(id: "8", name: "chat_received", text: #"{"value": 3}"#)
        struct Payload: Decodable, Equatable { var value: Int }
        #expect(try event.decoded(as: Payload.self) == Payload(value: 3))
    }

    @Test func everyReaderOfAnEventDecodesItsModelOnce() throws {
        let event = PlatformEvent(id: "9", name: "chat_received", text: #"{"value": 3}"#)
        let copy = event
        #expect(try event.decoded(as: CountedPayload.self).value == 3)
        #expect(try copy.decoded(as: CountedPayload.self).value == 3, "a copy of the event shares the decoded model")
        #expect(CountedPayload.decodes.value == 1)
        struct Other: Decodable, Equatable { var value: Double }
        #expect(try event.decoded(as: Other.self) == Other(value: 3), "another type decodes from the text")
        #expect(try event.decoded(as: CountedPayload.self).value == 3)
        #expect(CountedPayload.decodes.value == 2, "the model kept is the last one decoded")
        copy.forgetDecodedModel()
        #expect(try event.decoded(as: CountedPayload.self).value == 3)
        #expect(CountedPayload.decodes.value == 3, "once told, an event keeps its text only")
        #expect(throws: DecodingError.self) { try PlatformEvent(id: nil, name: "x", text: "[]").decoded(as: CountedPayload.self) }
    }

    @Test func anEndedSessionWithAPostSessionFlowIsTheRateTarget() throws {
        func event<Model: Encodable>(_ name: PlatformEventName, _ model: Model) throws -> PlatformEvent {
            PlatformEvent(id: nil, name: name.rawValue, text: String(decoding: try JSONEncoder().encode(model), as: UTF8.self))
        }
        let ended = ChatResponse(id: 4, status: .ended, menuId: 7, lang: "en", postSessionRequired: true,
                                 postSessionTransferStatus: .ready, createdAt: 1, endedAt: 2)
        #expect(RateService.target(of: try event(.chatReceived, ended)) == RateTarget(communicationId: 4, communicationType: "chats"))
        var completed = ended
        completed.postSessionTransferStatus = .completed
        #expect(RateService.target(of: try event(.chatReceived, completed)) == nil, "the flow is over")
        var withoutFlow = ended
        withoutFlow.postSessionRequired = false
        #expect(RateService.target(of: try event(.chatReceived, withoutFlow)) == nil, "no flow is configured")
        var live = ended
        live.status = .active
        #expect(RateService.target(of: try event(.chatReceived, live)) == nil, "the chat has not ended")
        let call = CallResponse(id: 9, menuId: 7, status: .ended, createdAt: 1, endedAt: 2, postSessionRequired: true)
        #expect(RateService.target(of: try event(.callReceived, call)) == RateTarget(communicationId: 9, communicationType: "calls"))
        #expect(RateService.target(of: try event(.messagesReceived, ended)) == nil, "only chats and calls received are read")
        #expect(RateService.target(of: PlatformEvent(id: nil, name: "chat_received", text: "null")) == nil)
    }
}

/// A model that counts how often it is decoded (only the test above decodes it).
private struct CountedPayload: Decodable, Sendable {
    static let decodes = Counter()
    var value: Int

    init(from decoder: any Decoder) throws {
        enum Keys: String, CodingKey { case value }
        value = try decoder.container(keyedBy: Keys.self).decode(Int.self, forKey: .value)
        Self.decodes.increment()
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func increment() { lock.withLock { count += 1 } }
    }
}
