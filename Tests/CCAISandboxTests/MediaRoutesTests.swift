import CCAISandbox
import CCAIWire
import Foundation
import Testing

/// The end user's uploads (limits, kinds, smart actions) and downloads.
@Suite struct MediaRoutesTests {
    private func upload(_ server: HTTPServer, _ chat: Int, _ token: String, kind: String, mimeType: String, bytes: Int,
                        query: String = "") async throws -> Curl.Reply {
        try await Curl.request("POST", "\(server.baseURL)/chats/\(chat)/media?kind=\(kind)\(query)",
                               body: Data(repeating: 0x61, count: bytes),
                               headers: ["Authorization": "Bearer \(token)", "Content-Type": mimeType])
    }

    @Test(.timeLimit(.minutes(1))) func uploadsKeepToTheLimits() async throws {
        let (_, server) = try SandboxHTTP.serveOverTheWire(configuration: try await LuaConfigurations.configuration(
            "menus = { { id = 1, name = \"Help\", channels = { chat = {} } } }"))
        let ana = try await SandboxHTTP.token(server, "media-ana")
        let chat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1}"#),
                                          as: ChatResponse.self)
        let image = try await upload(server, chat.id, ana, kind: "image", mimeType: "image/png", bytes: 2 << 20,
                                     query: "&name=scan.png&client_message_id=m1")
        #expect(image.status == 201, "\(image.body)")
        let message = try SandboxHTTP.decode(image, as: ChatMessage.self)
        #expect(message.type == "media" && message.media?.name == "scan.png" && message.media?.size == 2 << 20
                && message.media?.type == .photo)
        let retried = try await upload(server, chat.id, ana, kind: "image", mimeType: "image/png", bytes: 10,
                                       query: "&client_message_id=m1")
        #expect(retried.status == 200)
        #expect(try SandboxHTTP.decode(retried, as: ChatMessage.self).id == message.id, "a retried upload is stored once")

        let bigImage = try await upload(server, chat.id, ana, kind: "image", mimeType: "image/jpeg", bytes: (2 << 20) + 1)
        #expect(bigImage.status == 413 && bigImage.body.contains("images may be at most 2 MB") && bigImage.body.contains("too_large"),
                "\(bigImage.body)")
        let video = try await upload(server, chat.id, ana, kind: "video", mimeType: "video/mp4", bytes: 20 << 20)
        #expect(video.status == 201)
        let bigVideo = try await upload(server, chat.id, ana, kind: "video", mimeType: "video/mp4", bytes: (20 << 20) + 1)
        #expect(bigVideo.status == 413 && bigVideo.body.contains("videos may be at most 20 MB"), "\(bigVideo.body)")
        let huge = try await upload(server, chat.id, ana, kind: "video", mimeType: "video/mp4", bytes: 33 << 20)
        #expect(huge.status == 413, "beyond what the route reads at all")

        let wrongType = try await upload(server, chat.id, ana, kind: "image", mimeType: "video/mp4", bytes: 10)
        #expect(wrongType.status == 400 && wrongType.body.contains("Content-Type"))
        #expect(try await upload(server, chat.id, ana, kind: "audio", mimeType: "audio/mpeg", bytes: 10).status == 400)
        #expect(try await upload(server, chat.id, ana, kind: "image", mimeType: "image/png", bytes: 0).status == 400)
        let noAction = try await upload(server, chat.id, ana, kind: "image", mimeType: "image/png", bytes: 10, query: "&smart_action_id=77")
        #expect(noAction.status == 404)
        let badAction = try await upload(server, chat.id, ana, kind: "image", mimeType: "image/png", bytes: 10,
                                         query: "&smart_action_id=seven")
        #expect(badAction.status == 400 && badAction.body.contains("smart_action_id: an integer expected, got 'seven'"))

        let tooBigForJSON = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana,
                                                       String(repeating: " ", count: (1 << 20) + 1))
        #expect(tooBigForJSON.status == 413, "other routes keep the 1 MiB limit")

        let download = try await SandboxHTTP.call(server, "GET", "/media/\(try #require(message.media).id)", ana)
        #expect(download.status == 200 && download.body.count == 2 << 20)
        let bob = try await SandboxHTTP.token(server, "media-bob")
        #expect(try await SandboxHTTP.call(server, "GET", "/media/\(try #require(message.media).id)", bob).status == 404,
                "another end user's file is not found")
        _ = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/end", ana)
        #expect(try await upload(server, chat.id, ana, kind: "image", mimeType: "image/png", bytes: 10).status == 409)
        await server.stop()
    }

    /// What a client generated from docs/openapi.yaml sends: the file as the `file` part of
    /// a form, named by its filename.
    @Test func aFileSentAsAFormIsStoredAsSentAndDownloadsTheSame() async throws {
        let (_, server) = try SandboxHTTP.serveOverTheWire(configuration: try await LuaConfigurations.configuration(
            "menus = { { id = 1, name = \"Help\", channels = { chat = {} } } }"))
        let ana = try await SandboxHTTP.token(server, "form-ana")
        let chat = try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1}"#),
                                          as: ChatResponse.self)
        let png = Data("PNG\r\n--Xy, almost the boundary\r\n".utf8)
        var body = Data("--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"receipt.png\"\r\n".utf8)
        body.append(Data("Content-Type: image/png\r\n\r\n".utf8) + png + Data("\r\n--XyZ--\r\n".utf8))
        let reply = try await Curl.request("POST", "\(server.baseURL)/chats/\(chat.id)/media?kind=image", body: body,
                                           headers: ["Authorization": "Bearer \(ana)", "Content-Type": "multipart/form-data; boundary=XyZ"])
        #expect(reply.status == 201, "\(reply.body)")
        let media = try #require(try SandboxHTTP.decode(reply, as: ChatMessage.self).media)
        #expect(media.name == "receipt.png" && media.size == png.count && media.mimeType == "image/png")
        let download = try await SandboxHTTP.call(server, "GET", "/media/\(media.id)", ana)
        #expect(download.status == 200 && download.headers["content-type"] == "image/png" && Data(download.body.utf8) == png)
        #expect(download.headers["content-disposition"]?.contains("receipt.png") == true)
        await server.stop()
    }
}
