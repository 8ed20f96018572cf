import Foundation
import LuaRuntime

/// One HTTP request as the server received it.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string (`/queue_menus/12`).
    public var path: String
    /// Query parameters, decoded; a name given twice keeps its first value.
    public var query: [String: String]
    /// The query parameters given more than once.
    public var repeatedQueryNames: Set<String> = []
    /// Headers with lowercased names.
    public var headers: [String: String]
    public var body: Data
    /// Parameters captured by the route pattern (`:id` -> `"12"`).
    public var parameters: [String: String] = [:]
    /// The address the request came from (`203.0.113.7`); nil in process (no socket).
    public var clientAddress: String?

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                body: Data = Data()) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The bearer token of the `Authorization` header, if any.
    public var bearerToken: String? { Self.bearerToken(headers["authorization"]) }

    /// The token of an `Authorization: Bearer TOKEN` header value.
    /// The scheme is matched in any case, and spaces and tabs around the token are left
    /// out (read as bytes: this runs on every request's headers).
    static func bearerToken(_ header: String?) -> String? {
        guard let header else { return nil }
        let bytes = header.utf8
        let scheme = "bearer ".utf8
        guard bytes.count > scheme.count,
              zip(bytes, scheme).allSatisfy({ $1 == 0x20 ? $0 == 0x20 : $0 | 0x20 == $1 })
        else { return nil }
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        let rest = bytes.dropFirst(scheme.count)
        guard let first = rest.firstIndex(where: { !isBlank($0) }), let last = rest.lastIndex(where: { !isBlank($0) }) else {
            return nil
        }
        return String(decoding: rest[first...last], as: UTF8.self)
    }

    /// Decodes the JSON body with the type's own keys (wire models spell theirs in
    /// snake_case); a 400 error says what is wrong.
    public func decode<Body: Decodable>(_ type: Body.Type) throws -> Body {
        guard !body.isEmpty else { throw HTTPError.badRequest("the request needs a JSON body") }
        do {
            return try HTTPRequest.decoder.decode(type, from: body)
        } catch let error as DecodingError {
            throw HTTPError.badRequest(HTTPRequest.describe(error))
        } catch {
            throw HTTPError.badRequest("the body is not valid JSON")
        }
    }

    static let decoder = JSONDecoder()

    /// A readable sentence for a decoding error, naming the field (``DecodingFailure``).
    static func describe(_ error: DecodingError) -> String {
        let failure = DecodingFailure(error)
        let field = "the field '\(failure.field)'"
        switch failure.reason {
        case .missing: return failure.sentence { "the field '\($0)'" }
        case .wrongType(let expected): return "\(field) must be \(expected)"
        case .null(let expected): return "\(field) must be \(expected), not null"
        case .invalid: return failure.field.isEmpty ? "the body is not valid JSON" : "\(field) is invalid: \(failure.detail)"
        }
    }
}
