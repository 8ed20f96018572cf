import CCAISandbox
import Foundation
import Testing

/// A route that takes a file (`Endpoint.takesFile`) takes it as the whole body or as the
/// part named `file` of a `multipart/form-data` body, which the server reads with
/// libmicrohttpd's post processor: the handler sees the same request either way.
@Suite struct FileFormTests {
    /// What the handler saw.
    struct Seen: Codable {
        var type: String
        var name: String
        var bytes: String
    }

    private func makeServer(limits: HTTPServer.Limits = HTTPServer.Limits()) throws -> HTTPServer {
        var router = HTTPRouter()
        let seen: HTTPRouter.Handler = { request in
            try .json(Seen(type: request.headers["content-type"] ?? "", name: request.query["name"] ?? "",
                           bytes: request.body.base64EncodedString()), status: 201)
        }
        router.add("POST", "/file", maximumBodyBytes: 1 << 20, authentication: .none, takesFile: true, seen)
        router.add("POST", "/json", authentication: .none, seen)
        return try HTTPServer(router: router, address: "127.0.0.1", port: 0, limits: limits)
    }

    /// A form of `parts` (their headers, then their bytes) between `boundary` lines, closed
    /// unless `closed` is false.
    private func form(_ parts: [(headers: [String], body: Data)], boundary: String = "b0undary", closed: Bool = true) -> Data {
        var data = Data()
        for part in parts {
            data.append(Data("--\(boundary)\r\n".utf8))
            for header in part.headers { data.append(Data("\(header)\r\n".utf8)) }
            data.append(Data("\r\n".utf8))
            data.append(part.body)
            data.append(Data("\r\n".utf8))
        }
        if closed { data.append(Data("--\(boundary)--\r\n".utf8)) }
        return data
    }

    private func filePart(_ bytes: Data, type: String? = "image/png", filename: String = "cat.png") -> (headers: [String], body: Data) {
        (["Content-Disposition: form-data; name=\"file\"; filename=\"\(filename)\""] + (type.map { ["Content-Type: \($0)"] } ?? []),
         bytes)
    }

    private func send(_ server: HTTPServer, _ body: Data, path: String = "/file",
                      type: String = "multipart/form-data; boundary=b0undary") async throws -> Curl.Reply {
        try await Curl.request("POST", "\(server.baseURL)\(path)", body: body, headers: ["Content-Type": type])
    }

    /// Bytes that look like the form's own syntax: a line break and dashes, a boundary's start.
    private let awkwardBytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x2D, 0x2D, 0x62, 0x30, 0x00, 0xFF, 0x0D, 0x0A])

    @Test func theFilePartIsTheBodyItsTypeTheRequestsAndItsFilenameTheName() async throws {
        let server = try makeServer()
        let note = (headers: ["Content-Disposition: form-data; name=\"note\""], body: Data("not the file".utf8))
        let reply = try await send(server, form([note, filePart(awkwardBytes)]))
        #expect(reply.status == 201, "\(reply.body)")
        let seen = try JSONDecoder().decode(Seen.self, from: Data(reply.body.utf8))
        #expect(seen.type == "image/png" && seen.name == "cat.png" && seen.bytes == awkwardBytes.base64EncodedString())

        let named = try await send(server, form([filePart(awkwardBytes)]), path: "/file?name=given.png")
        #expect(try JSONDecoder().decode(Seen.self, from: Data(named.body.utf8)).name == "given.png", "the query's name wins")

        let raw = try await send(server, awkwardBytes, type: "image/gif")
        let rawSeen = try JSONDecoder().decode(Seen.self, from: Data(raw.body.utf8))
        #expect(rawSeen.type == "image/gif" && rawSeen.bytes == awkwardBytes.base64EncodedString(), "a whole-body file still works")

        let elsewhere = try await send(server, form([filePart(awkwardBytes)]), path: "/json")
        #expect(try JSONDecoder().decode(Seen.self, from: Data(elsewhere.body.utf8)).type.hasPrefix("multipart/form-data"),
                "a route that takes no file gets the form as it came")
        await server.stop()
    }

    @Test func aLargeFilePartIsSpooledAndArrivesWhole() async throws {
        var limits = HTTPServer.Limits()
        limits.spoolAfterBytes = 1_024
        let server = try makeServer(limits: limits)
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let reply = try await send(server, form([filePart(bytes, type: "video/mp4", filename: "clip.mp4")]))
        let seen = try JSONDecoder().decode(Seen.self, from: Data(reply.body.utf8))
        #expect(reply.status == 201 && seen.type == "video/mp4" && Data(base64Encoded: seen.bytes) == bytes)
        await server.stop()
    }

    @Test func aFormWithoutExactlyOneTypedFilePartIsA400() async throws {
        let server = try makeServer()
        let cases: [(Data, String, String)] = [
            (form([filePart(awkwardBytes), filePart(awkwardBytes)]), "multipart/form-data; boundary=b0undary",
             "an upload takes one part named file"),
            (form([(["Content-Disposition: form-data; name=\"photo\""], awkwardBytes)]), "multipart/form-data; boundary=b0undary",
             "the form has no part named file"),
            (form([filePart(awkwardBytes, type: nil)]), "multipart/form-data; boundary=b0undary",
             "the form's file part has no Content-Type"),
            (form([filePart(awkwardBytes)], closed: false), "multipart/form-data; boundary=b0undary",
             "ends before its closing boundary"),
            (form([filePart(awkwardBytes)]), "multipart/form-data", "needs a boundary parameter"),
            (form([filePart(Data()), filePart(Data("<script>".utf8), type: "text/html", filename: "evil.html")]),
             "multipart/form-data; boundary=b0undary", "an upload takes one part named file"),
            (form([filePart(awkwardBytes)]), "multipart/form-data; boundary=b0undary; charset=utf-8",
             "give the Content-Type's boundary parameter last"),
            (form([filePart(awkwardBytes)]), "multipart/form-data; Boundary=b0undary", "boundary=VALUE (lowercase, no spaces)"),
            (form([filePart(awkwardBytes)]), "multipart/form-data; boundary=", "the form's boundary is empty or too long"),
            (form([(["Content-Disposition: form-data; name=\"file\"", "Content-Type: image/png",
                     "Content-Transfer-Encoding: base64"], Data("iVBORw0K".utf8))]),
             "multipart/form-data; boundary=b0undary", "Content-Transfer-Encoding"),
        ]
        for (body, type, words) in cases {
            let reply = try await send(server, body, type: type)
            #expect(reply.status == 400 && reply.body.contains(words) && reply.body.contains("invalid_argument"),
                    "\(words): \(reply.status) \(reply.body)")
        }
        #expect(try await send(server, form([filePart(awkwardBytes)])).status == 201, "the server goes on")
        let charsetFirst = try await send(server, form([filePart(awkwardBytes)]), type: "multipart/form-data; charset=utf-8; boundary=b0undary")
        #expect(charsetFirst.status == 201, "other parameters before the boundary: \(charsetFirst.body)")
        let lookalike = try await send(server, form([filePart(awkwardBytes)]), type: "multipart/form-datax; boundary=b0undary")
        #expect(try JSONDecoder().decode(Seen.self, from: Data(lookalike.body.utf8)).type.hasPrefix("multipart/form-datax"),
                "another media type is not read as a form")
        await server.stop()
    }

    @Test func aFormCountsAgainstTheRoutesLimitAsItComes() async throws {
        let server = try makeServer()
        let reply = try await send(server, form([filePart(Data(count: (1 << 20) + 1))]))
        #expect(reply.status == 413 && reply.body.contains("too_large"))
        await server.stop()
    }
}
