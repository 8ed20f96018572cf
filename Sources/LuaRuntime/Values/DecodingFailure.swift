/// A `DecodingError` taken apart once, for a message a person reads: the field it is
/// about, spelled as scripts and the wire spell it (`menus[2].queue_id`), what is wrong
/// with it, and the decoder's own words. Every message about a decoding error is made
/// from one: the common form is ``sentence(naming:)``; a caller that words a reason its
/// own way (an HTTP body's `must be an integer`) switches over ``reason``.
///
/// ```swift
/// let failure = DecodingFailure(error)
/// failure.field                          // "menus[2].queue_id"
/// failure.sentence()                     // "menus[2].queue_id is required"
/// failure.sentence { "field '\($0)'" }   // "field 'menus[2].queue_id' is required"
/// ```
public struct DecodingFailure: Sendable, Equatable {
    /// What is wrong with the field.
    public enum Reason: Sendable, Equatable {
        /// A required field is absent.
        case missing
        /// A value of another type; what was expected (`a string`, `an integer`).
        case wrongType(expected: String)
        /// Null where a value was expected; what was expected.
        case null(expected: String)
        /// A value the decoder refused for what it holds (at the top: not a value at all).
        case invalid
    }

    public let reason: Reason
    /// The field's path, with the missing field for ``Reason/missing``; empty for the
    /// value as a whole.
    public let field: String
    /// The decoder's own words (`string expected, got number`); empty for a missing field.
    public let detail: String

    public init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            (reason, field, detail) = (.missing, Self.path(context.codingPath + [key]), "")
        case .typeMismatch(let type, let context):
            (reason, field, detail) = (.wrongType(expected: Self.describe(type)), Self.path(context.codingPath), context.debugDescription)
        case .valueNotFound(let type, let context):
            (reason, field, detail) = (.null(expected: Self.describe(type)), Self.path(context.codingPath), context.debugDescription)
        case .dataCorrupted(let context):
            (reason, field, detail) = (.invalid, Self.path(context.codingPath), context.debugDescription)
        @unknown default:
            (reason, field, detail) = (.invalid, "", String(describing: error))
        }
    }

    /// The common form: `<field> is required` for a missing field, `<field>: <detail>`
    /// otherwise, the field as `naming` names it.
    public func sentence(naming: (String) -> String = { $0 }) -> String {
        reason == .missing ? "\(naming(field)) is required" : "\(naming(field)): \(detail)"
    }

    /// A coding path as a script spells it: `menus[2].channels`, names in snake_case.
    public static func path(_ codingPath: [CodingKey], keys strategy: LuaKeyStrategy = .snakeCase) -> String {
        codingPath.map { key in key.intValue.map { "[\($0)]" } ?? strategy.luaKey(for: key.stringValue) }
            .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
    }

    /// How a message names the type it expected: `a string`, `an integer`.
    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        default: return "of type \(type)"
        }
    }
}
