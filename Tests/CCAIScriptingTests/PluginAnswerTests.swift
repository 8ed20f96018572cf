@testable import CCAIScripting
import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime
import Testing

/// What plugins may answer smart actions and forms with, and what they may not.
@Suite struct PluginAnswerTests {
    private func action(_ type: SmartActionType) -> SmartAction {
        SmartAction(id: 7, router: CommunicationRouter(id: 3, type: .chat), type: type, createdAt: 0, updatedAt: 0)
    }

    /// A plugin folder with `id.png` in it, and a symlink that leads out of it.
    private static let folder: String = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plugin-answers-" + UUID().uuidString).path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/id.png", contents: Data("PNG".utf8))
        try? FileManager.default.createSymbolicLink(atPath: folder + "/passwd.png", withDestinationPath: "/etc/passwd")
        return folder
    }()

    private func answer(_ value: LuaValue, _ type: SmartActionType) throws -> SmartActionAnswer {
        try SmartActionAnswer(value, for: action(type), folder: Self.folder)
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
        let file: LuaValue = ["images": .array([["path": "id.png", "mime_type": "image/png"]])]
        guard case .media(let read) = try answer(file, .photo), case .images(let fromFile, _) = read.content else {
            throw Failure("image file")
        }
        #expect(fromFile.first?.data == Data("PNG".utf8) && fromFile.first?.fileName == "id.png")
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
            (["images": .array([["path": "missing.png", "mime_type": "image/png"]])], .photo, "cannot read 'missing.png'"),
            (["images": .array([["path": "/etc/passwd", "mime_type": "image/png"]])], .photo, "is absolute"),
            (["images": .array([["path": "../../etc/passwd", "mime_type": "image/png"]])], .photo, "has a '..'"),
            (["images": .array([["path": "passwd.png", "mime_type": "image/png"]])], .photo, "leads outside"),
            (["videos": .array([["data": "x", "mime_type": "video/mp4", "name": "../../../../tmp/pwned.mp4"]])], .video,
             "not a path"),
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
