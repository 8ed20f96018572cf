import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing

@Suite struct QueueMenuServiceTests {
    @Test func menusWaitTimesAndDirectAccess() async throws {
        let sandbox = try Sandbox()
        let delegate = SigningDelegate(identifier: "menus")
        let ccai = try makeSDK(sandbox, delegate: delegate, cache: false, language: "es")
        let service = try #require(ccai.queueMenuService)
        let (menus, direct) = try await service.get()
        #expect(!direct && menus.first?.name == "Facturación", "the SDK's language by default")
        let (english, _) = try await service.get(language: "en")
        #expect(english.findMenu(byId: 21)?.name == "Devices")
        let (vip, isDirect) = try await service.get(key: "vip")
        #expect(isDirect && vip.map(\.id) == [9])
        #expect(try await service.getWaitTimes(menuId: 1) == WaitTimes(chat: 10, voiceCall: 10))
        do {
            _ = try await service.getWaitTimes(menuId: 404)
            Issue.record("expected not_found")
        } catch let error as CCAIError {
            #expect(error.code == .notFound && error.status == 404)
        }
    }
}
