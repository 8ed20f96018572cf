@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing

/// The ways in besides an instant call: voicemail (after hours, over capacity, a queue
/// redirecting its callers, a wait-time deflection taken), the deflection itself, and the
/// queues' audible messages.
@Suite struct CallAlternativesTests {
    private static let closedAllWeek = "{ mon = false, tue = false, wed = false, thu = false, fri = false, sat = false, sun = false }"

    /// Queue 5 is closed all week, 6 redirects to voicemail, 7 takes calls and has no
    /// agent, deflecting waits of 250 s or more (the handle time is 300 s), 8 takes calls
    /// with no voicemail box, 9 is closed without one.
    private static func sandbox(preventDirectPstnCall: Bool = false) async throws -> Sandbox {
        var configuration = try await LuaConfigurations.configuration("""
            handle_time_seconds = 300,
            menus = {
              { id = 5, name = "Closed", hours = \(closedAllWeek), channels = { voice_call = { instant = true, phone_number = "+15550105" } } },
              { id = 6, name = "Away", channels = { voice_call = { instant = true, phone_number = "+15550106", redirect_to_voicemail = true } } },
              { id = 7, name = "Busy", channels = { voice_call = { instant = true, phone_number = "+15550107",
                  wait_deflection = { after_seconds = 250, offers = { "phone_number", "voicemail" }, message = "A long wait: leave a message?" } } } },
              { id = 8, name = "Open", channels = { voice_call = { instant = true } } },
              { id = 9, name = "Shut", hours = \(closedAllWeek), channels = { voice_call = { instant = true } } },
            },
            agents = { { name = "Ava", menus = { 8 } } }
            """)
        configuration.company.preventDirectPstnCall = preventDirectPstnCall
        configuration.adminToken = "operator-token"
        return try Sandbox(configuration: configuration, log: { _ in })
    }

    @Test func aClosedQueueTakesAVoicemailThatIsStoredForTheOperator() async throws {
        let client = InProcessClient(try await Self.sandbox())
        let ana = try await CallingEndUser(client, "vm-ana")
        let menus = try await ana.call("GET", "/queue_menus").decode(as: QueueMenusResponse.self).menus
        let voice = try #require(menus.first { $0.id == 5 }?.channels?.voiceCall)
        #expect(voice.voicemailReason == .afterHourDeflection && voice.instantEnabled == false)
        #expect(await ana.call("POST", "/calls", #"{"menu_id": 5}"#).status == 409)

        let reply = await ana.call("POST", "/calls/voicemail", #"{"menu_id": 5}"#)
        #expect(reply.status == 201, "\(reply.text)")
        let voicemail = try reply.decode(as: CallResponse.self)
        #expect(voicemail.type == .voicemail && voicemail.status == .connected && voicemail.recorded)
        #expect(voicemail.voicemailReason == .afterHourDeflection && voicemail.connectedAt != nil && voicemail.agent == nil)
        let again = await ana.call("POST", "/calls/voicemail", #"{"menu_id": 5}"#)
        #expect(again.status == 409 && again.text.contains("in progress"), "\(again.text)")
        let held = await ana.call("PUT", "/calls/\(voicemail.id)/hold", #"{"on_hold": true}"#)
        #expect(held.status == 409 && held.text.contains("voicemail"), "\(held.text)")
        let ended = try await ana.call("POST", "/calls/\(voicemail.id)/end").decode(as: CallResponse.self)
        #expect(ended.status == .ended && ended.endReason == .endUser)

        #expect(await client.call("GET", "/admin/voicemails").status == 401)
        let listed = try await client.call("GET", "/admin/voicemails", token: "operator-token").decode(as: VoicemailRecords.self)
        #expect(listed.voicemails == [VoicemailRecord(callId: voicemail.id, menuId: 5, endUserId: ana.id, reason: .afterHourDeflection,
                                                      status: .ended, createdAt: voicemail.createdAt, endedAt: ended.endedAt)])
        let after = try await client.call("GET", "/admin/voicemails", query: ["after": String(voicemail.id)], token: "operator-token")
        #expect(try after.decode(as: VoicemailRecords.self).voicemails.isEmpty)
        #expect(await client.call("GET", "/admin/voicemails", query: ["limit": "0"], token: "operator-token").status == 400)
    }

    @Test func aRedirectingQueueSendsEveryCallerToVoicemail() async throws {
        let bo = try await CallingEndUser(InProcessClient(try await Self.sandbox()), "vm-bo")
        let menus = try await bo.call("GET", "/queue_menus").decode(as: QueueMenusResponse.self).menus
        let voice = try #require(menus.first { $0.id == 6 }?.channels?.voiceCall)
        #expect(voice.voicemailReason == .temporaryRedirection && voice.instantEnabled == false)
        let refused = await bo.call("POST", "/calls", #"{"menu_id": 6}"#)
        #expect(refused.status == 409 && refused.text.contains("temporary_redirection"), "\(refused.text)")
        let voicemail = try await bo.call("POST", "/calls/voicemail", #"{"menu_id": 6}"#).decode(as: CallResponse.self)
        #expect(voicemail.voicemailReason == .temporaryRedirection)
    }

    @Test func voicemailIsRefusedWhereItIsNotOffered() async throws {
        let cy = try await CallingEndUser(InProcessClient(try await Self.sandbox()), "vm-cy")
        let open = await cy.call("POST", "/calls/voicemail", #"{"menu_id": 7}"#)
        #expect(open.status == 409 && open.text.contains("taking calls"), "\(open.text)")
        let noBox = await cy.call("POST", "/calls/voicemail", #"{"menu_id": 9}"#)
        #expect(noBox.status == 400 && noBox.text.contains("no voicemail box"), "\(noBox.text)")
        #expect(await cy.call("POST", "/calls/voicemail", #"{"menu_id": 999}"#).status == 404)
        #expect(await cy.call("POST", "/calls/voicemail", #"{"menu": 5}"#).status == 400)
        let menus = try await cy.call("GET", "/queue_menus").decode(as: QueueMenusResponse.self).menus
        #expect(menus.first { $0.id == 9 }?.channels?.voiceCall?.voicemailReason == nil, "no phone number, no voicemail box")
    }

    @Test func aLongWaitIsOfferedItsDeflectionOnceAndVoicemailEndsTheWaitingCall() async throws {
        let client = InProcessClient(try await Self.sandbox())
        let (first, second) = (try await CallingEndUser(client, "wd-first"), try await CallingEndUser(client, "wd-second"))
        let ahead = try await first.start(#"{"menu_id": 7}"#)
        #expect(ahead.estimatedWait == 10, "nobody ahead: the published 10 s")
        #expect(await first.call("GET", "/calls/\(ahead.id)/deflection").status == 404, "a short wait is offered nothing")
        #expect(try await first.events(.deflectionOffered).isEmpty)

        let behind = try await second.start(#"{"menu_id": 7}"#)
        #expect(behind.estimatedWait == 310, "one call ahead at 300 s, and 10 s")
        let offer = try await second.call("GET", "/calls/\(behind.id)/deflection").decode(as: CallDeflection.self)
        #expect(offer.callId == behind.id && offer.menuId == 7 && offer.estimatedWait == 310 && offer.thresholdSeconds == 250)
        #expect(offer.offers == [.phoneNumber, .voicemail] && offer.phoneNumber == "+15550107")
        #expect(offer.message == "A long wait: leave a message?")
        let published = try await second.events(.deflectionOffered)
        #expect(published.count == 1 && published.first?["call_id"]?.doubleValue == Double(behind.id))
        #expect(await first.call("GET", "/calls/\(behind.id)/deflection").status == 404, "another user's call is never found")

        let reply = await second.call("POST", "/calls/voicemail", #"{"menu_id": 7}"#)
        #expect(reply.status == 201, "\(reply.text)")
        let voicemail = try reply.decode(as: CallResponse.self)
        #expect(voicemail.type == .voicemail && voicemail.voicemailReason == .overCapacityDeflection)
        let replaced = try await second.call("GET", "/calls/\(behind.id)").decode(as: CallResponse.self)
        #expect(replaced.status == .ended && replaced.endReason == .voicemail)
        let stillWaiting = await first.call("POST", "/calls/voicemail", #"{"menu_id": 7}"#)
        #expect(stillWaiting.status == 409, "the first caller was offered nothing: its call stays in progress")
    }

    @Test func aCompanyThatPreventsDirectCallsNeverOffersThePhoneNumber() async throws {
        let client = InProcessClient(try await Self.sandbox(preventDirectPstnCall: true))
        let (first, second) = (try await CallingEndUser(client, "pstn-first"), try await CallingEndUser(client, "pstn-second"))
        _ = try await first.start(#"{"menu_id": 7}"#)
        let behind = try await second.start(#"{"menu_id": 7}"#)
        let offer = try await second.call("GET", "/calls/\(behind.id)/deflection").decode(as: CallDeflection.self)
        #expect(offer.offers == [.voicemail] && offer.phoneNumber == nil)
    }

    @Test func audibleMessagesInheritKindByKindInTheEndUsersLanguage() async throws {
        let configuration = try await LuaConfigurations.configuration("""
            company = { name = "x", languages = { "en", "es" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret",
                        audible_messages = { welcome = { text = { en = "Welcome to Acme", es = "Bienvenido" } },
                                             goodbye = { text = "Goodbye" } } },
            menus = { { id = 1, name = "Billing", audible_messages = { all_agents_busy = { text = "All agents are busy",
                                                                       audio_url = "https://cdn.acme.test/busy.mp3" } },
                        children = { { id = 11, name = "Refunds", audible_messages = { goodbye = { text = "Bye from refunds" } } } } },
                      { id = 2, name = "Sales" } }
            """)
        let client = InProcessClient(try Sandbox(configuration: configuration, log: { _ in }))
        let token = try await client.signIn("am-dee", at: client.sandbox.clock.now())
        let refunds = try await client.call("GET", "/queue_menus/11/audible_messages", query: ["language": "es-MX"], token: token)
            .decode(as: AudibleMessages.self)
        #expect(refunds == AudibleMessages(menuId: 11, messages: [
            AudibleMessage(kind: .welcome, text: "Bienvenido"),
            AudibleMessage(kind: .allAgentsBusy, text: "All agents are busy", audioUrl: "https://cdn.acme.test/busy.mp3"),
            AudibleMessage(kind: .goodbye, text: "Bye from refunds"),
        ]))
        let sales = try await client.call("GET", "/queue_menus/2/audible_messages", token: token).decode(as: AudibleMessages.self)
        #expect(sales.messages.map(\.kind) == [.welcome, .goodbye] && sales.messages.first?.text == "Welcome to Acme")
        #expect(await client.call("GET", "/queue_menus/99/audible_messages", token: token).status == 404)
        #expect(await client.call("GET", "/queue_menus/2/audible_messages").status == 401)
    }

    @Test func everyProblemOfTheCallSettingsIsListed() async throws {
        let problems = await #expect(throws: ConfigurationError.self) {
            _ = try await LuaConfigurations.configuration("""
                company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret",
                            audible_messages = { welcom = { text = "Hi" } } },
                menus = { { id = 1, name = "a", audible_messages = { on_hold = { text = "Hold", audio_url = "file:///etc/passwd" } },
                            channels = { voice_call = { instant = true, redirect_to_voicemail = true,
                                                        wait_deflection = { after_seconds = -1, offers = { "scheduled_call", "voicemail" } } } } },
                          { id = 2, name = "b", channels = { voice_call = { wait_deflection = { after_seconds = 60, offers = {} } } } } }
                """)
        }
        let text = problems.map { String(describing: $0) } ?? ""
        for expected in ["unknown kind 'welcom'", "did you mean 'welcome'", "on_hold.audio_url: an http or https URL expected",
                         "redirect_to_voicemail: a voicemail box needs", "after_seconds: a number of seconds",
                         "scheduled_call needs the channel's schedule", "voicemail needs the channel's phone_number",
                         "menus[id 2].channels.voice_call.wait_deflection.offers: at least one"] {
            #expect(text.contains(expected), "\(expected) in: \(text)")
        }
    }
}
