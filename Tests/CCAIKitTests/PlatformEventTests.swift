@testable import CCAIKit
import CCAIWire
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
}
