import Foundation

/// One HTTP request as the server received it.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string (`/queue_menus/12`).
    public var path: String
    /// Query parameters, decoded.
    public var query: [String: String]
    /// Headers with lowercased names.
    public var headers: [String: String]
    public var body: Data
    /// Parameters captured by the route pattern (`:id` -> `"12"`).
    public var parameters: [String: String] = [:]

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
    static func bearerToken(_ header: String?) -> String? {
        guard let header, header.lowercased().hasPrefix("bearer ") else { return nil }
        let token = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
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

    /// A readable sentence for a decoding error, naming the field.
    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? LuaStyle.snake($0.stringValue) }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            return "the field '\(field)' is required"
        case .typeMismatch(let type, let context):
            return "the field '\(path(context.codingPath))' must be \(LuaStyle.describe(type))"
        case .valueNotFound(let type, let context):
            return "the field '\(path(context.codingPath))' must be \(LuaStyle.describe(type)), not null"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "the body is not valid JSON"
                : "the field '\(path(context.codingPath))' is invalid: \(context.debugDescription)"
        @unknown default:
            return "the body does not match what this endpoint expects"
        }
    }
}

/// Names as the wire spells them.
enum LuaStyle {
    static func snake(_ key: String) -> String {
        var result = ""
        for (index, character) in key.enumerated() {
            if character.isUppercase, index > 0 { result.append("_") }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        default: return "of type \(type)"
        }
    }
}
