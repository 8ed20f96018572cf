@testable import CCAIScripting
import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime
import Testing

/// What plugins may answer smart actions and forms with, and what they may not.
@Suite struct PluginAnswerTests {
    private func action(_ type: SmartActionType) -> SmartAction {
        SmartAction(id: 7, chatId: 3, type: type, createdAt: 0, updatedAt: 0)
    }

    private func answer(_ value: LuaValue, _ type: SmartActionType) throws -> SmartActionAnswer {
        try SmartActionAnswer(value, for: action(type), folder: "/plugins/mine")
    }

    @Test func answersThatFitTheirType() throws {
        guard case .result(let text) = try answer(["text": "ACME-1"], .text) else { throw Failure("text") }
        #expect(text == SmartActionResult(text: "ACME-1"))
        guard case .result(let verified) = try answer(["verified": false], .verification) else { throw Failure("verified") }
        #expect(verified.verified == false)
        guard case .result(let share) = try answer(["screen_share": true], .screenShare) else { throw Failure("share") }
        #expect(share.screenShare == true)
        guard case .decline(let reason) = try answer(["decline": "no camera"], .photo) else { throw Failure("decline") }
        #expect(reason == "no camera")
        let images: LuaValue = ["images": .array([["data": "PNG", "mime_type": "image/png", "name": "id.png"]])]
        guard case .media(let content) = try answer(images, .screenshot),
            case .images(let uploads, let smartAction) = content.content
        else { throw Failure("images") }
        #expect(smartAction?.id == 7 && uploads.isEmpty == false, "the upload names the action")
    }

    @Test func answersThatDoNotFitSayWhatTheTypeTakes() {
        let wrong: [(LuaValue, SmartActionType, String)] = [
            (.nil, .text, "got nil"),
            (["text": "x"], .photo, "{ images = "),
            (["images": .array([["path": "a.png", "mime_type": "image/png"]])], .video, "{ videos = "),
            (["verified": "yes"], .verification, "{ verified = true|false }"),
            (["screen_share": false], .screenShare, "{ screen_share = true }"),
            (["decline": ""], .text, "a reason"),
            (["text": ""], .text, "{ text = "),
            (["images": .array([["path": "id.png", "mime_type": "image/png"]])], .photo, "cannot read '/plugins/mine/id.png'"),
        ]
        for (value, type, expected) in wrong {
            do {
                _ = try answer(value, type)
                Issue.record("accepted \(value) for \(type)")
            } catch let error as OutgoingContent.FieldError {
                #expect(error.message.contains(expected), "\(type): \(error.message)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test func formAnswersBecomeText() {
        #expect(FormResponder.text(.integer(34)) == "34")
        #expect(FormResponder.text(.number(120.5)) == "120.5")
        #expect(FormResponder.text(.number(3)) == "3")
        #expect(FormResponder.text(.boolean(true)) == "true")
        #expect(FormResponder.text(.array(["billing", "repair"])) == "billing,repair")
        #expect(FormResponder.text(["x": 1]) == nil)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = "unexpected answer kind: " + description }
    }
}
