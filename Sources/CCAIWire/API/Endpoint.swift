import Foundation

/// One operation of the wire API (docs/openapi.yaml): its method, its path template with
/// `{name}` parameters, its `operationId` (the SDK method it serves, in the seeds' words),
/// who may call it, the largest body it reads and the largest answer
/// a client reads from it (a hostile platform cannot fill the host's memory). The SDK calls
/// endpoints, the sandbox registers a handler per endpoint, and a test checks that both
/// and the OpenAPI document list the same operations (docs/adding-an-endpoint.md).
///
/// ```swift
/// Endpoints.sendMessage.path(["id": 42])   // "/chats/42/messages"
/// Endpoints.sendMessage.operation          // "POST /chats/{id}/messages"
/// Endpoints.previousChats.operationID      // "getPreviousChats"
/// ```
public struct Endpoint: Hashable, Sendable, CustomStringConvertible {
    /// Who may call an endpoint.
    public enum Access: Sendable {
        /// Anyone (signing in).
        case anyone
        /// An end user with a valid auth token.
        case endUser
        /// The sandbox's operator, with the configuration's `admin_token`.
        case admin
        /// The company's own server, with HTTP Basic credentials: the company's subdomain
        /// and a token of the configuration's `api_credentials` (the platform's published
        /// Apps API, `/apps/api/v1`).
        case apps
        /// Anyone holding a URL the sandbox signed: its `expires` and `signature` query
        /// parameters are checked before the body is read (the Apps API's pre-signed upload
        /// and download URLs).
        case presigned
    }

    public let method: String
    /// The path template, as the OpenAPI document spells it: `/chats/{id}/messages`.
    public let template: String
    /// The document's `operationId`: the SDK method the operation serves, in the seeds'
    /// words (`getPreviousChats`), or a plain name for operations the SDK has no method
    /// for (`getRatings`). Generated clients name their functions after it.
    public let operationID: String
    public let access: Access
    /// The largest request body read (1 MiB unless the endpoint says otherwise).
    public let maximumBodyBytes: Int

    /// The largest answer a client reads (8 MiB unless the endpoint says otherwise); past
    /// it the SDK aborts the transfer with `too_large`. For an event stream, the largest
    /// event (and the largest error answer).
    public let maximumResponseBytes: Int

    /// Whether the body is a file: the whole body with the file's `Content-Type` (what
    /// CCAIKit sends), or the part named `file` of a `multipart/form-data` body (what
    /// clients generated from the document send), its filename the `name` parameter
    /// unless the query gives one.
    public let takesFile: Bool

    /// The body an endpoint takes unless it says otherwise: 1 MiB.
    public static let defaultMaximumBodyBytes = 1 << 20
    /// The answer a client reads unless the endpoint says otherwise: 8 MiB.
    public static let defaultMaximumResponseBytes = 8 << 20

    public init(_ method: String, _ template: String, operationID: String, access: Access = .endUser,
                maximumBodyBytes: Int = Endpoint.defaultMaximumBodyBytes,
                maximumResponseBytes: Int = Endpoint.defaultMaximumResponseBytes, takesFile: Bool = false) {
        self.method = method
        self.template = template
        self.operationID = operationID
        self.access = access
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumResponseBytes = maximumResponseBytes
        self.takesFile = takesFile
    }

    /// `"POST /chats/{id}/messages"`: how the OpenAPI document and the router name it.
    public var operation: String { "\(method) \(template)" }
    public var description: String { operation }

    /// The names of the template's parameters, in order (`["id", "action"]`).
    public var parameterNames: [String] {
        template.split(separator: "/").compactMap { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? String(segment.dropFirst().dropLast()) : nil
        }
    }

    /// The path with its parameters filled in (each percent-encoded as a path segment).
    public func path(_ parameters: [String: CustomStringConvertible] = [:]) -> String {
        "/" + template.split(separator: "/").map { segment -> String in
            guard segment.hasPrefix("{"), segment.hasSuffix("}") else { return String(segment) }
            let name = String(segment.dropFirst().dropLast())
            let value = parameters[name].map { String(describing: $0) } ?? ""
            return value.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? value
        }.joined(separator: "/")
    }
}
