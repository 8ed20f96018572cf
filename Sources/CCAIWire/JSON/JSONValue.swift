import Foundation

/// Any JSON value, for payloads whose shape is open (JWT claims, custom data).
///
/// ```swift
/// let claims: JSONValue = ["identifier": "vu-1", "iat": 1_700_000_000]
/// let text = try claims.jsonText()        // {"iat":1700000000,"identifier":"vu-1"}
/// ```
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }

    /// The value as a number of seconds or units: integers and floats alike.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .number(let d): return d
        default: return nil
        }
    }

    /// The value decoded as `type` (with the type's own `CodingKeys`).
    public func decoded<Value: Decodable>(as type: Value.Type) throws -> Value {
        try JSONValue.decoder.decode(type, from: JSONValue.encoder.encode(self))
    }

    /// Compact JSON text with sorted keys.
    public func jsonText() throws -> String {
        String(decoding: try JSONValue.encoder.encode(self), as: UTF8.self)
    }

    /// The JSON of an encodable value (as its `CodingKeys` spell it).
    ///
    /// ```swift
    /// let data = try JSONValue(encoding: chat)   // .object(["id": 7, "menu_id": 1, ...])
    /// ```
    public init<Value: Encodable>(encoding value: Value) throws {
        self = try JSONValue.decoder.decode(JSONValue.self, from: JSONValue.plainEncoder.encode(value))
    }

    /// Parses JSON text.
    public init(jsonText: String) throws {
        self = try JSONValue.decoder.decode(JSONValue.self, from: Data(jsonText.utf8))
    }

    // The coders hold options only; one of each serves every call.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    private static let plainEncoder = JSONEncoder()
    private static let decoder = JSONDecoder()
}

extension JSONValue: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .integer(let i): try container.encode(i)
        case .number(let d): try container.encode(d)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
