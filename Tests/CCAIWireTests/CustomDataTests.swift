import CCAIWire
import Foundation
import Testing

@Suite struct CustomDataTests {
    @Test func unsignedPayloadsEncodeAsOneObject() throws {
        var payload = CustomDataPayload()
        payload["user_name"] = CustomDataItem(label: "Name", value: "John")
        payload["user_age"] = CustomDataItem(label: "Age", value: 30, invisibleToAgent: true)
        payload.externalChatTransfer = ExternalChatTransfer(agent: ExternalChatAgent(name: "John Smith"),
                                                            transcript: [.init(sender: "agent", text: "Hi")])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(CustomData(unsigned: payload)), as: UTF8.self)
        #expect(text == #"{"unsigned":{"external_chat_transfer":{"agent":{"name":"John Smith"},"transcript":[{"sender":"agent","text":"Hi"}]},"user_age":{"invisible_to_agent":true,"label":"Age","type":"number","value":30},"user_name":{"label":"Name","type":"string","value":"John"}}}"#)
        #expect(try JSONDecoder().decode(CustomData.self, from: Data(text.utf8)) == CustomData(unsigned: payload))
    }

    @Test func itemTypesDefaultFromTheValue() {
        #expect(CustomDataItem(label: "a", value: true).type == .boolean)
        #expect(CustomDataItem(label: "a", value: 1.5).type == .number)
        #expect(CustomDataItem(label: "a", value: "https://x.test", type: .url).type == .url)
        #expect(CustomData(signed: "a.b.c").signed == "a.b.c")
    }
}
