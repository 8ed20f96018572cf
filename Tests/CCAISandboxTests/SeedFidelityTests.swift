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
