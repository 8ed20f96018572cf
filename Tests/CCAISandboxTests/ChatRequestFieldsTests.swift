@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// Seed 001's `ChatRequest(menuId:lang:ticketId:greeting:customData:displayOrderInAdapter:
/// isScreenShareable:isVerifiable:)`: the two fields for the agent's side are checked and
/// kept with the chat, which hands the agents its custom data's keys in that order
/// (Tests/Scenarios/scripted_agents.lua checks what an agent script sees).
@Suite struct ChatRequestFieldsTests {
    @Test func anAdapterOrderIsCheckedBeforeTheChatStarts() async throws {
        let client = InProcessClient(try Sandbox(clock: ManualClock(QueueMenuTests.mondayMorning)))
        let ana = try await client.signIn("adapter-ana", at: QueueMenuTests.mondayMorning)
        let tooMany = (1...101).map { "\"k\($0)\"" }.joined(separator: ",")
        for (order, problem) in [
            ("[\(tooMany)]", "the field 'display_order_in_adapter' may list at most 100 keys, got 101"),
            (#"["plan", ""]"#, "the field 'display_order_in_adapter[2]' must not be empty"),
            (#"["plan\nx"]"#, "the field 'display_order_in_adapter[1]' must not contain control or format characters"),
            (#"["plan", "tier", "plan"]"#, "the field 'display_order_in_adapter[3]' repeats the key 'plan'"),
        ] {
            let refused = await client.call("POST", "/chats", token: ana, json: #"{"menu_id": 8, "display_order_in_adapter": \#(order)}"#)
            #expect(refused.status == 400 && refused.text.contains(problem), "\(refused.status) \(refused.text)")
        }
        #expect(await client.call("GET", "/chats/current", token: ana).status == 404, "no chat started")
    }

    @Test func theChatKeepsWhatItsAgentsGet() async throws {
        let client = InProcessClient(try Sandbox(clock: ManualClock(QueueMenuTests.mondayMorning)))
        let ana = try await client.signIn("adapter-bo", at: QueueMenuTests.mondayMorning)
        let body = #"""
            {"menu_id": 8, "is_verifiable": true, "display_order_in_adapter": ["tier", "gone", "plan"],
             "custom_data": {"unsigned": {"plan": {"label": "Plan", "value": "gold"}, "os": {"label": "OS", "value": "16"},
                             "tier": {"label": "Tier", "value": 2}, "ssn": {"label": "SSN", "value": "1", "invisible_to_agent": true}}}}
            """#
        let chat = try await client.call("POST", "/chats", token: ana, json: body).decode(as: ChatResponse.self)
        let kept = try #require(try await client.sandbox.store.sessionData(chatID: chat.id))
        #expect(kept.isVerifiable && kept.displayOrderInAdapter == ["tier", "gone", "plan"])
        #expect(kept.adapterOrder() == ["tier", "plan", "os", "ssn"], "listed keys first, then the others by name")
        #expect(kept.adapterOrder(agentView: true) == ["tier", "plan", "os"], "hidden items are not the agent's")
        #expect(await client.call("POST", "/chats/\(chat.id)/end", token: ana).status == 200)

        let plain = try await client.call("POST", "/chats", token: ana, json: #"{"menu_id": 8}"#).decode(as: ChatResponse.self)
        #expect(try await client.sandbox.store.sessionData(chatID: plain.id) == ChatSessionData(customData: [:]),
                "not verifiable, no order, when the request does not say")
    }
}
