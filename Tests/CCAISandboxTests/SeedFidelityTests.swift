import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// Rules of the seeds the sandbox keeps: English as the last language, reserved CRM keys.
@Suite struct SeedFidelityTests {
    @Test func theLastLanguageIsEnglish() async throws {
        var configuration = SandboxConfiguration.builtIn
        configuration.company.languages = ["es", "el"]
        let client = InProcessClient(try Sandbox(configuration: configuration, clock: ManualClock(QueueMenuTests.mondayMorning)))
        let ana = try await client.signIn("language-ana", at: QueueMenuTests.mondayMorning)
        let french = try await client.call("POST", "/chats", token: ana, json: #"{"menu_id": 8, "lang": "fr-CA"}"#)
            .decode(as: ChatResponse.self)
        #expect(french.lang == "en", "neither the language nor its parent is enabled: English (seed 000)")
        _ = await client.call("POST", "/chats/\(french.id)/end", token: ana)
        let greek = try await client.call("POST", "/chats", token: ana, json: #"{"menu_id": 8, "lang": "el-GR"}"#)
            .decode(as: ChatResponse.self)
        #expect(greek.lang == "el", "the parent dialect")
    }

    /// Seed 001, "Send message preview (only works when Task virtual agent is not active)":
    /// while a virtual agent has the chat a preview is a conflict that says why; once the
    /// chat is escalated toward a human, previews work.
    @Test func previewsAreRefusedWhileAVirtualAgentHasTheChat() async throws {
        let client = InProcessClient(try Sandbox(clock: ManualClock(QueueMenuTests.mondayMorning)))
        let ana = try await client.signIn("preview-ana", at: QueueMenuTests.mondayMorning)
        let chat = try await client.call("POST", "/chats", token: ana, json: #"{"menu_id": 7}"#).decode(as: ChatResponse.self)
        let withNova = try await eventually {
            try await client.call("GET", "/chats/\(chat.id)", token: ana).decode(as: ChatResponse.self).virtualAgent != nil
        }
        #expect(withNova)
        let preview = #"{"text": "my order", "timestamp": 1}"#
        let refused = await client.call("POST", "/chats/\(chat.id)/preview", token: ana, json: preview)
        #expect(refused.status == 409 && refused.text.contains("message previews are off while the virtual agent Nova has the chat"),
                "\(refused.status) \(refused.text)")
        #expect(await client.call("POST", "/chats/\(chat.id)/escalate", token: ana).status == 200)
        let accepted = await client.call("POST", "/chats/\(chat.id)/preview", token: ana, json: preview)
        #expect(accepted.status == 200, "\(accepted.status) \(accepted.text)")
    }

    @Test func reservedCRMKeysAreSignedBooleans() async throws {
        let client = InProcessClient(try Sandbox(clock: ManualClock(QueueMenuTests.mondayMorning)))
        let signer = JWTSigner(algorithm: .hs384, secret: "dev-secret")
        func signIn(_ customData: JSONValue) async throws -> InProcessClient.Reply {
            let jwt = try signer.sign(["identifier": "crm-ana", "custom_data": customData], issuedAt: QueueMenuTests.mondayMorning,
                                      lifetime: 600)
            return await client.call("POST", "/auth/end_user", json: #"{"company_key":"dev-key","jwt":"\#(jwt)"}"#)
        }
        let wrong = try await signIn(["reserved_bad_actor": ["label": "Bad actor", "value": "no", "type": "string"]])
        #expect(wrong.status == 400 && wrong.text.contains("reserved_bad_actor: a boolean expected"), "\(wrong.text)")
        let right = try await signIn(["reserved_bad_actor": ["label": "Bad actor", "value": false, "type": "boolean"]])
        #expect(right.status == 200)
        let token = try right.decode(as: AuthResponse.self).authToken
        let unsigned = await client.call("POST", "/chats", token: token, json: """
            {"menu_id": 8, "custom_data": {"unsigned": {"reserved_repeat_customer": {"label": "Repeat", "value": true}}}}
            """)
        #expect(unsigned.status == 400 && unsigned.text.contains("reserved_repeat_customer: reserved CRM keys are accepted only in signed"))
        let forged = await client.call("POST", "/chats", token: token, json: #"{"menu_id": 8, "custom_data": {"signed": "a.b.c"}}"#)
        #expect(forged.status == 400 && forged.text.contains("custom_data.signed: the JWT is refused"), "\(forged.text)")
    }
}
