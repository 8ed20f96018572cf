import CCAIWire
import LuaRuntime

/// A binding's arguments: a model that ``LuaDecoder`` reads from what the script passed (its
/// properties are the options table's keys in snake_case). The same model gives the
/// signature (``ArgumentLayout/parameters(of:)``) and the fields a call may name.
///
/// ```swift
/// struct RatingRequest: BindingArguments {
///     static let layout = ArgumentLayout.table("request")
///     var communicationId: Int
///     var rating: Int
///     func problem() -> ArgumentProblem? {
///         (1...5).contains(rating) ? nil : ArgumentProblem("rating", "an integer from 1 to 5 expected, got \(rating)")
///     }
/// }
/// ```
protocol BindingArguments: Decodable {
    /// How a script passes them.
    static var layout: ArgumentLayout { get }
    /// What the type cannot say (a range, a non-empty string), checked after decoding.
    func problem() -> ArgumentProblem?
    /// The shape the stubs show: the model's own, or, for an argument read as the script
    /// wrote it, the shape of the models that describe what it may be.
    static func shape(in schema: LuaSchema) throws -> LuaShape
}

extension BindingArguments {
    func problem() -> ArgumentProblem? { nil }
    static func shape(in schema: LuaSchema) throws -> LuaShape { try schema.shape(of: Self.self) }
}

/// A value the model's type admits but the binding does not: its field in the options
/// table (nil: the argument itself) and what was expected.
struct ArgumentProblem: Error, Equatable {
    var field: String?
    var expected: String

    init(_ field: String?, _ expected: String) {
        self.field = field
        self.expected = expected
    }
}

/// An argument that is one value, not an options table: `set_muted(true)`,
/// `end_user.save(user)` (``ArgumentLayout/value(_:optional:)``; nil allowed when the value
/// is optional).
///
/// ```swift
/// struct MutedArgument: ValueArgument {
///     static let name = "muted"
///     var value: Bool
/// }
/// ```
protocol ValueArgument: BindingArguments {
    associatedtype Value: Decodable
    /// The argument's name in errors and stubs.
    static var name: String { get }
    var value: Value { get }
    init(value: Value)
}

extension ValueArgument {
    static var layout: ArgumentLayout { .value(name, optional: Value.self is ExpressibleByNilLiteral.Type) }

    init(from decoder: Decoder) throws {
        self.init(value: try decoder.singleValueContainer().decode(Value.self))
    }
}

/// The arguments of a function that takes none (any given are ignored).
struct NoArguments: BindingArguments {
    static let layout = ArgumentLayout.none
}

/// How a script passes a binding's arguments (LUA-API section 1: one options table, last;
/// with one parameter, also that parameter alone).
enum ArgumentLayout: Sendable {
    /// No arguments.
    case none
    /// One options table, called `name` in errors and stubs; absent, it reads as empty.
    case table(String)
    /// One options table, or the value of its one field `field` alone:
    /// `ccai.queue_menu.get_wait_times(12)` is `get_wait_times{ menu_id = 12 }`.
    case positional(String, field: String)
    /// One value that is the model itself (`ccai.end_user.save(user)`,
    /// `ccai.language.set_language_code("es")`), nil allowed when `optional`. A model given
    /// back as data may carry fields it does not read (`display_name`): they are not refused.
    case value(String, optional: Bool)
    /// The model's field `field` first, then an options table of its other fields:
    /// `download_media(media.id, { media_type = "photo" })` (a Swift method whose first
    /// parameter is unlabeled).
    case leading(String, options: String)

    /// The argument's name in errors and stubs (the options table's, for ``leading(_:options:)``).
    var name: String? {
        switch self {
        case .none: return nil
        case .table(let name), .positional(let name, _), .value(let name, _), .leading(_, let name): return name
        }
    }

    /// Where a field is: the argument's position, and its label in errors (`options.status`;
    /// the argument itself for nil).
    func place(of field: String?) -> (index: Int, label: String?) {
        if case .leading(let first, _) = self, let field, field == first || field.hasPrefix(first + ".") || field.hasPrefix(first + "[") {
            return (1, field)
        }
        let label = [name, field].compactMap { $0 }.joined(separator: ".")
        if case .leading = self { return (2, label) }
        return (1, label.isEmpty ? nil : label)
    }

    /// Whether a field the model does not read is refused: in an options table, where it is
    /// a typo; not in a model given back as data (a value, or a leading one).
    var refusesUnknownFields: Bool {
        if case .value = self { return false }
        return true
    }

    /// Whether an unknown field at `path` is refused: not inside a leading value.
    func refusesUnknownFields(at path: String) -> Bool {
        guard refusesUnknownFields else { return false }
        guard case .leading(let first, _) = self else { return true }
        return !(path.hasPrefix(first + ".") || path.hasPrefix(first + "["))
    }

    /// The parameters the stubs and the reference show, from the model's shape: optional
    /// when every field is.
    func parameters<Arguments: BindingArguments>(of type: Arguments.Type) -> [LuaSignature.Parameter] {
        guard let name, let shape = try? type.shape(in: ResultClasses.schema) else { return [] }
        if case .value(_, let optional) = self {
            return [.init(name: name, type: shape.luaType, isOptional: optional)]
        }
        guard case .object(let fields) = shape else {
            preconditionFailure("the arguments \(type) are not a table of fields")
        }
        let table = LuaShape.object(fields)
        let isOptional = fields.allSatisfy(\.isOptional)
        switch self {
        case .none, .value:
            return []
        case .leading(let first, _):
            guard let lead = fields.first(where: { $0.name == first }) else { return [] }
            let others = fields.filter { $0.name != first }
            return [.init(name: first, type: lead.shape.luaType, isOptional: lead.isOptional),
                    .init(name: name, type: LuaShape.object(others).luaType, isOptional: others.allSatisfy(\.isOptional))]
        case .table:
            return [.init(name: name, type: table.luaType, isOptional: isOptional)]
        case .positional(_, let field):
            guard let alone = fields.first(where: { $0.name == field }) else { return [] }
            // A function of one parameter shows it alone (`jwt: string`); its table form is the rule of LUA-API section 1.
            if fields.count == 1 { return [.init(name: field, type: alone.shape.luaType, isOptional: alone.isOptional)] }
            return [.init(name: name, type: table.luaType + "|" + alone.shape.luaType, isOptional: isOptional)]
        }
    }
}

extension LuaCall {
    /// The binding's arguments, read as their layout says. A value of the wrong type, a
    /// missing field, a field the model does not have (with the nearest it has) and a
    /// ``BindingArguments/problem()`` are each an `invalid_argument` naming the field.
    func arguments<Arguments: BindingArguments>(_ type: Arguments.Type) throws -> Arguments {
        let layout = Arguments.layout
        let value = try argumentTable(layout)
        if let (decoded, unknown) = try? LuaDecoder().decodeReportingUnknownKeys(type, from: value),
            !unknown.contains(where: { layout.refusesUnknownFields(at: $0.field) }), decoded.problem() == nil
        {
            return decoded
        }
        // Something is wrong: one pass that finds every problem, to name a misspelt field
        // first, as it is the likely cause of a "required" one.
        let report = LuaDecoder().decodeCollectingProblems(type, from: value)
        let table = layout.place(of: nil)
        let unknown = report.unknownKeys.filter { layout.refusesUnknownFields(at: $0.field) }
        if let first = unknown.min(by: { $0.field < $1.field }) {
            throw argumentError(table.index, table.label, "unknown field '\(first.field)'"
                                + Suggestion.didYouMean(first.key, among: first.known)
                                + " (known: " + first.known.sorted().joined(separator: ", ") + ")")
        }
        if let problem = report.problems.first { throw decodingError(problem, layout) }
        guard let decoded = report.value else { throw argumentError(table.index, table.label, "unexpected shape") }
        if let problem = decoded.problem() {
            let place = layout.place(of: problem.field)
            throw argumentError(place.index, place.label, problem.expected)
        }
        return decoded
    }

    /// A decoding error in the argument's terms. In an options table a wrong value is named
    /// by its field (`bad argument #1 'options.status' to ...`), as a failed check is; in a
    /// model given as a value, the message names the field within it.
    private func decodingError(_ error: DecodingError, _ layout: ArgumentLayout) -> LuaErrorValue {
        let failure = DecodingFailure(error)
        let table = layout.place(of: nil)
        if failure.field.isEmpty { return argumentError(table.index, table.label, failure.detail) }
        if failure.reason != .missing, layout.refusesUnknownFields {
            let place = layout.place(of: failure.field)
            return argumentError(place.index, place.label, failure.detail)
        }
        let place = layout.place(of: failure.reason == .missing ? failure.field : nil)
        if case .leading(let first, _) = layout, failure.field == first {
            return argumentError(place.index, place.label, "a value expected, got nil")
        }
        return argumentError(table.index, table.label, failure.sentence { "field '\($0)'" })
    }

    /// The first argument as the table the model is decoded from: empty when absent, and
    /// `{ [field] = value }` for a positional value.
    private func argumentTable(_ layout: ArgumentLayout) throws -> LuaValue {
        switch layout {
        case .none:
            return .table(LuaTable())
        case .table(let name):
            return isNil(1) ? .table(LuaTable()) : .table(try table(1, name))
        case .positional(let name, let field):
            let value = try value(1, name)
            switch value {
            case .nil: return .table(LuaTable())
            case .table: return value
            default: return [field: value]
            }
        case .value(let name, _):
            return try value(1, name)
        case .leading(let first, let options):
            var table = isNil(2) ? LuaTable() : try self.table(2, options)
            table[first] = try value(1, first)
            return .table(table)
        }
    }
}
