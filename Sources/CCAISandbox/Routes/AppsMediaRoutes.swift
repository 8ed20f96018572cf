import CCAIWire
import Foundation

/// Photos and videos of the Apps API's chats (docs/platform-fidelity.md): `GET
/// .../chats/{id}/photos/upload_url` (and `videos`) issues a pre-signed URL, `PUT
/// /apps/api/v1/uploads/{upload_id}` takes the file there, `POST .../chats/{id}/photos`
/// adds it to the chat, `GET .../chats/{id}/photos` lists the chat's, and `GET
/// /apps/api/v1/media/{id}` downloads one at its pre-signed URL. The rules are
/// ``AppsChatMedia``'.
struct AppsMediaRoutes: Sendable {
    let media: AppsChatMedia

    func register(in router: inout HTTPRouter) {
        for kind in AppsMediaKind.allCases {
            router.on(kind.uploadURLEndpoint) { try await self.uploadURL(kind, $0) }
            router.on(kind.addEndpoint) { try await self.add(kind, $0) }
            router.on(kind.listEndpoint) { try await self.list(kind, $0) }
        }
        router.on(Endpoints.appsPutUpload, checkingURL: media.uploadRefusal, put)
        router.on(Endpoints.appsDownloadMedia, checkingURL: media.downloadRefusal, download)
    }

    private func uploadURL(_ kind: AppsMediaKind, _ request: HTTPRequest) async throws -> HTTPResponse {
        try request.refuseQueryParameters(except: ["content_type"])
        return try .json(try await media.uploadURL(kind, chatID: try request.integerParameter("id", "chat id"),
                                                   contentType: request.query["content_type"], origin: Self.origin(request)))
    }

    private func put(_ request: HTTPRequest) async throws -> HTTPResponse {
        try request.refuseQueryParameters(except: [URLSignature.expiresParameter, URLSignature.signatureParameter])
        let contentType = (request.headers["content-type"] ?? "").split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        try media.receive(request.body, contentType: contentType, in: request.parameters["upload_id"] ?? "")
        return HTTPResponse(status: 204)
    }

    private func add(_ kind: AppsMediaKind, _ request: HTTPRequest) async throws -> HTTPResponse {
        let body = try request.decode(AppsAddMediaRequest.self, wrappedIn: kind.rawValue)
        let (added, isNew) = try await media.add(kind, chatID: try request.integerParameter("id", "chat id"), body,
                                                 origin: Self.origin(request))
        return try .json(added, status: isNew ? 201 : 200)
    }

    private func list(_ kind: AppsMediaKind, _ request: HTTPRequest) async throws -> HTTPResponse {
        try request.refuseQueryParameters(except: [])
        return try .json(try await media.list(kind, chatID: try request.integerParameter("id", "chat id"), origin: Self.origin(request)))
    }

    private func download(_ request: HTTPRequest) async throws -> HTTPResponse {
        try request.refuseQueryParameters(except: [URLSignature.expiresParameter, URLSignature.signatureParameter])
        let id = try request.integerParameter("id", "media id")
        let (file, data) = try await media.download(id)
        return HTTPResponse(status: 200, headers: [
            "Content-Type": file.mimeType, "X-Content-Type-Options": "nosniff",
            "Content-Disposition": ContentDisposition.attachment(named: file.name ?? "\(file.type.rawValue)-\(id)"),
        ], body: data)
    }

    /// `http://` and the request's `Host` (the URLs the sandbox signs point back at where
    /// it was reached), or nothing (a path alone) when the header is missing or is not a
    /// host and port.
    static func origin(_ request: HTTPRequest) -> String {
        guard let host = request.headers["host"], !host.isEmpty, host.utf8.count <= 255,
              host.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || ".-:[]".unicodeScalars.contains($0)) })
        else { return "" }
        return "http://" + host
    }
}
