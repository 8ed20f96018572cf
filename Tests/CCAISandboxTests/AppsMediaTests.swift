import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// Photos and videos through the Apps API, over the wire: a pre-signed upload URL, the PUT
/// of the file to it without credentials, the file added as the end user's message, the
/// chat's files listed with pre-signed download URLs; and every way to misuse them.
@Suite struct AppsMediaTests {
    static let photo = Data("PNG-test-bytes-0123456789".utf8)

    /// A served sandbox with an end user's chat the server started.
    static func chat() async throws -> (Sandbox, HTTPServer, ManualClock, chatID: Int) {
        let (sandbox, clock) = try await AppsAPITests.sandbox()
        let server = try sandbox.serve()
        let user = try decode(try await AppsAPITests.call(server, "POST", "/apps/api/v1/end_users", #"{"identifier": "pic-1"}"#),
                              as: AppsEndUser.self)
        let started = try await AppsAPITests.call(server, "POST", "/apps/api/v1/chats",
                                                  #"{"chat": {"end_user_id": \#(user.id), "menu_id": 2, "lang": "en"}}"#)
        let chatID = try #require(try AppsAPITests.json(started)["id"].flatMap { if case .integer(let id) = $0 { Int(id) } else { nil } })
        return (sandbox, server, clock, chatID)
    }

    static func decode<Value: Decodable>(_ reply: Curl.Reply, as type: Value.Type) throws -> Value {
        try JSONDecoder().decode(type, from: Data(reply.body.utf8))
    }

    static func uploadURL(_ server: HTTPServer, _ chatID: Int, _ kind: String = "photos", query: String = "?content_type=image/png")
        async throws -> AppsUploadURL
    {
        let reply = try await AppsAPITests.call(server, "GET", "/apps/api/v1/chats/\(chatID)/\(kind)/upload_url" + query)
        #expect(reply.status == 200, "\(reply.body)")
        return try decode(reply, as: AppsUploadURL.self)
    }

    /// A PUT without credentials, as a client following the URL would send it.
    static func put(_ url: String, _ body: Data, contentType: String = "image/png") async throws -> Curl.Reply {
        try await Curl.request("PUT", url, body: body, headers: ["Content-Type": contentType])
    }

    static func add(_ server: HTTPServer, _ chatID: Int, _ uploadID: String, kind: String = "photos") async throws -> Curl.Reply {
        try await AppsAPITests.call(server, "POST", "/apps/api/v1/chats/\(chatID)/\(kind)",
                                    #"{"\#(kind.dropLast())": {"upload_id": "\#(uploadID)", "name": "receipt.png"}}"#)
    }

    @Test func aPhotoGoesUpAddsToTheChatAsTheEndUsersMessageAndComesBackTheSame() async throws {
        let (_, server, _, chatID) = try await Self.chat()
        let upload = try await Self.uploadURL(server, chatID)
        #expect(upload.url.hasPrefix(server.baseURL + "/apps/api/v1/uploads/\(upload.uploadId)?expires="))
        #expect(upload.method == "PUT" && upload.contentType == "image/png" && upload.maxBytes == AttachmentLimits.imageBytes)
        #expect(try await Self.put(upload.url, Self.photo).status == 204, "the URL is the credential: no Basic auth")

        let added = try await Self.add(server, chatID, upload.uploadId)
        #expect(added.status == 201, "\(added.body)")
        let media = try Self.decode(added, as: AppsMedia.self)
        #expect(media.mimeType == "image/png" && media.size == Self.photo.count && media.name == "receipt.png")
        #expect(media.sender?.type == "end_user")
        let again = try await Self.add(server, chatID, upload.uploadId)
        let againMedia = try Self.decode(again, as: AppsMedia.self)
        #expect(again.status == 200 && againMedia.id == media.id, "adding twice is the same photo")

        let listed = try Self.decode(try await AppsAPITests.call(server, "GET", "/apps/api/v1/chats/\(chatID)/photos"), as: [AppsMedia].self)
        #expect(listed.map(\.id) == [media.id] && listed.first?.messageId == media.messageId)
        #expect(try Self.decode(try await AppsAPITests.call(server, "GET", "/apps/api/v1/chats/\(chatID)/videos"), as: [AppsMedia].self).isEmpty)
        let url = try #require(listed.first?.url)
        let downloaded = try await Curl.request("GET", url)
        #expect(downloaded.status == 200 && Data(downloaded.body.utf8) == Self.photo, "the same bytes, without credentials")
        #expect(downloaded.headers["content-type"] == "image/png" && downloaded.headers["x-content-type-options"] == "nosniff")
        #expect(downloaded.headers["content-disposition"]?.hasPrefix("attachment") == true)

        let token = try await SandboxHTTP.token(server, "pic-1")
        let messages = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/chats/\(chatID)/messages", token), as: [ChatMessage].self)
        #expect(messages.contains { $0.id == media.messageId && $0.media?.id == media.id && $0.sender.type == .endUser },
                "the SDK's own message: agents, plugins and transcripts see it")
        await server.stop()
    }

    @Test func anAlteredMissingOrExpiredSignatureIsA403AndNeverA500() async throws {
        let (_, server, clock, chatID) = try await Self.chat()
        let upload = try await Self.uploadURL(server, chatID)
        let other = try await Self.uploadURL(server, chatID)
        let base = server.baseURL + "/apps/api/v1/uploads/\(upload.uploadId)"
        let query = try #require(upload.url.split(separator: "?").last.map(String.init))
        let otherQuery = try #require(other.url.split(separator: "?").last.map(String.init))
        let expires = try #require(query.split(separator: "&").first)
        let tampered: String = String(query.dropLast()) + (query.hasSuffix("A") ? "B" : "A")
        let lengthened: String = query.replacingOccurrences(of: String(expires), with: "expires=9999999999")
        let urls: [String] = [base, "\(base)?\(expires)", "\(base)?\(tampered)", "\(base)?\(otherQuery)", "\(base)?\(lengthened)",
                              "\(base)?expires=x&signature=y", "\(server.baseURL)/apps/api/v1/uploads/nope?\(query)"]
        for url in urls {
            let reply = try await Self.put(url, Self.photo)
            #expect(reply.status == 403, "\(url): \(reply.body)")
            #expect(reply.body.contains("forbidden"))
        }
        let media = try await Curl.request("GET", server.baseURL + "/apps/api/v1/media/1?expires=1&signature=AAAA")
        #expect(media.status == 403)
        #expect(try await Curl.request("GET", server.baseURL + "/apps/api/v1/media/x").status == 403)

        clock.advance(by: AppsUploadLifetimes.url + 1)
        let late = try await Self.put(upload.url, Self.photo)
        #expect(late.status == 403 && late.body.contains("expired"), "\(late.body)")
        await server.stop()
    }

    @Test func theURLTakesOnlyItsContentTypeAndKindsLimitRefusedBeforeTheBodyIsRead() async throws {
        let (sandbox, server, _, chatID) = try await Self.chat()
        let upload = try await Self.uploadURL(server, chatID)
        let wrongType = try await Self.put(upload.url, Self.photo, contentType: "image/jpeg")
        #expect(wrongType.status == 400 && wrongType.body.contains("image/png"), "\(wrongType.body)")
        #expect(try await Self.put(upload.url, Data(), contentType: "image/png").status == 400, "empty")

        let components = try #require(URLComponents(string: upload.url))
        let query = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        let admission = sandbox.router.admit(method: "PUT", path: components.path, authorization: nil,
                                             contentLength: Int64(AttachmentLimits.imageBytes + 1), query: query)
        guard case .refuse(let refusal) = admission else { Issue.record("a photo over 2 MiB was admitted: \(admission)"); return }
        #expect(refusal.status == 413, "refused on its declared length, before a byte of body")
        let fits = sandbox.router.admit(method: "PUT", path: components.path, authorization: nil,
                                        contentLength: Int64(AttachmentLimits.imageBytes), query: query)
        #expect(fits == .read(maximumBodyBytes: AttachmentLimits.videoBytes, authenticated: true), "a signed URL is a credential")

        let big = try await Self.put(upload.url, Data(repeating: 0x41, count: AttachmentLimits.imageBytes + 1))
        #expect(big.status == 413)
        for type in ["image/svg+xml", "text/html", "video/mp4"] {
            let reply = try await AppsAPITests.call(server, "GET", "/apps/api/v1/chats/\(chatID)/photos/upload_url?content_type=\(type)")
            #expect(reply.status == 400, "\(type): \(reply.body)")
        }
        #expect(try await Self.uploadURL(server, chatID, query: "").contentType == "image/jpeg", "the kind's default")
        await server.stop()
    }

    @Test func aVideoIsNotAPhotoAndUnknownOrUnfinishedUploadsAreClear() async throws {
        let (_, server, _, chatID) = try await Self.chat()
        let video = try await Self.uploadURL(server, chatID, "videos", query: "?content_type=video/mp4")
        #expect(video.maxBytes == AttachmentLimits.videoBytes)
        let early = try await Self.add(server, chatID, video.uploadId, kind: "videos")
        #expect(early.status == 409 && early.body.contains("PUT the file"), "\(early.body)")
        #expect(try await Self.put(video.url, Self.photo, contentType: "video/mp4").status == 204)
        let asPhoto = try await Self.add(server, chatID, video.uploadId)
        #expect(asPhoto.status == 409 && asPhoto.body.contains("/videos"), "\(asPhoto.body)")
        #expect(try await Self.add(server, chatID, "0123456789abcdef").status == 404)
        #expect(try await Self.add(server, chatID + 1000, video.uploadId, kind: "videos").status == 404)
        #expect(try await Self.add(server, chatID, video.uploadId, kind: "videos").status == 201)
        #expect(try await Self.put(video.url, Self.photo, contentType: "video/mp4").status == 409, "added: its URL takes nothing more")
        #expect(try Self.decode(try await AppsAPITests.call(server, "GET", "/apps/api/v1/chats/\(chatID)/videos"), as: [AppsMedia].self).count == 1)
        #expect(try await AppsAPITests.call(server, "POST", "/apps/api/v1/chats/\(chatID)/photos", #"{"name": "x"}"#).status == 400)
        #expect(try await AppsAPITests.call(server, "GET", "/apps/api/v1/chats/424242/photos").status == 404)
        #expect(try await AppsAPITests.call(server, "GET", "/apps/api/v1/chats/\(chatID)/photos/upload_url?size=1").status == 400)
        #expect(try await AppsAPITests.call(server, "GET", "/apps/api/v1/chats/\(chatID)/photos",
                                            headers: AppsAPITests.basic("acme", "wrong-token-0123456789")).status == 401)
        await server.stop()
    }

    @Test func aFinishedChatOrAnAppsChatTakesNoUpload() async throws {
        let (_, server, _, chatID) = try await Self.chat()
        let upload = try await Self.uploadURL(server, chatID)
        #expect(try await Self.put(upload.url, Self.photo).status == 204)
        #expect(try await AppsAPITests.call(server, "PATCH", "/apps/api/v1/chats/\(chatID)", #"{"chat": {"status": "finished"}}"#).status == 200)
        #expect(try await Self.add(server, chatID, upload.uploadId).status == 409, "the chat has ended")
        #expect(try await AppsAPITests.call(server, "GET", "/apps/api/v1/chats/\(chatID)/photos/upload_url").status == 409)
        #expect(try await AppsAPITests.call(server, "GET", "/apps/api/v1/chats/\(chatID)/photos").status == 200, "still listed")

        let appUser = try await SandboxHTTP.token(server, "app-user")
        let appChat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", appUser, #"{"menu_id": 1}"#), as: ChatResponse.self)
        #expect(try await AppsAPITests.call(server, "GET", "/apps/api/v1/chats/\(appChat.id)/photos/upload_url").status == 409,
                "an app's chat is its end user's to write in")
        await server.stop()
    }

    @Test func uploadsWaitingToBeAddedAreBoundedAndExpire() async throws {
        let (_, server, clock, chatID) = try await Self.chat()
        for _ in 0..<AppsUploadLifetimes.maximumPending { _ = try await Self.uploadURL(server, chatID) }
        let refused = try await AppsAPITests.call(server, "GET", "/apps/api/v1/chats/\(chatID)/photos/upload_url")
        #expect(refused.status == 429 && refused.body.contains("waiting to be added"), "\(refused.body)")
        clock.advance(by: AppsUploadLifetimes.url + 1)
        _ = try await Self.uploadURL(server, chatID)   // their URLs expired with nothing put: their places are free
        let holding = try await Self.uploadURL(server, chatID)
        #expect(try await Self.put(holding.url, Self.photo).status == 204)
        clock.advance(by: AppsUploadLifetimes.url + 1)
        for _ in 1..<AppsUploadLifetimes.maximumPending { _ = try await Self.uploadURL(server, chatID) }
        #expect(try await AppsAPITests.call(server, "GET", "/apps/api/v1/chats/\(chatID)/photos/upload_url").status == 429,
                "one holding a file keeps its place until it is added or an hour has passed")
        clock.advance(by: AppsUploadLifetimes.kept + 1)
        _ = try await Self.uploadURL(server, chatID)
        await server.stop()
    }
}

/// The numbers of docs/platform-fidelity.md the tests rely on.
enum AppsUploadLifetimes {
    static let url: TimeInterval = 15 * 60
    static let kept: TimeInterval = 60 * 60
    static let maximumPending = 64
}
