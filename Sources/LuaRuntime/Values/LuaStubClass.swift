/// A LuaLS class generated from a `Decodable` type's ``LuaShape``: its `---@class` line, a
/// `---@field` line for each field the type reads (a note after those its names do not
/// explain), then lines added by hand (methods). Stubs made of these follow the models.
///
/// ```swift
/// let message = LuaStubClass("ccai.Message", Message.self, notes: ["created_at": "Unix seconds"])
/// try message.lines(in: LuaSchema(naming: [message]))
/// // ["---@class ccai.Message", "---@field id integer", "---@field created_at number Unix seconds"]
/// ```
public struct LuaStubClass {
    public let name: String
    /// The type whose shape the class is; a field of this type elsewhere is named `name`.
    public let type: ObjectIdentifier
    private let shape: (LuaSchema) throws -> LuaShape
    /// The comment after a field, by its Lua name.
    public var notes: [String: String]
    /// Shapes stated instead of the type's, by field: where the stubs say more than the
    /// type reads (a key read as any string, to report an unknown one in its own words).
    public var fieldShapes: [String: LuaShape]
    /// LuaLS lines after the fields (methods the bindings add).
    public var added: [String]

    public init<Model: Decodable>(_ name: String, _ model: Model.Type, notes: [String: String] = [:],
                                  fieldShapes: [String: LuaShape] = [:], added: [String] = []) {
        self.name = name
        type = ObjectIdentifier(model)
        shape = { try $0.shape(of: Model.self) }
        self.notes = notes
        self.fieldShapes = fieldShapes
        self.added = added
    }

    /// The fields of the class in the order the type reads them, `fieldShapes` applied.
    public func fields(in schema: LuaSchema) throws -> [LuaShape.Field] {
        guard case .object(let fields) = try shape(schema) else { return [] }
        return fields.map { field in
            var stated = field
            stated.shape = fieldShapes[field.name] ?? field.shape
            return stated
        }
    }

    /// `---@class`, the `---@field` lines and the added lines.
    public func lines(in schema: LuaSchema) throws -> [String] {
        ["---@class \(name)"]
            + (try fields(in: schema)).map { "---@field \($0.name) \($0.luaType)" + (notes[$0.name].map { " " + $0 } ?? "") }
            + added
    }
}

/// A LuaLS alias generated from a type's shape: `---@alias ccai.sandbox.Text string|table<string, string> note`.
public struct LuaStubAlias {
    public let name: String
    /// The type the alias names; a field of this type elsewhere is named `name`.
    public let type: ObjectIdentifier
    private let shape: (LuaSchema) throws -> LuaShape
    /// The comment after the type.
    public var note: String?

    public init<Model: Decodable>(_ name: String, _ model: Model.Type, note: String? = nil) {
        self.name = name
        type = ObjectIdentifier(model)
        shape = { try $0.shape(of: Model.self) }
        self.note = note
    }

    /// The `---@alias` line.
    public func line(in schema: LuaSchema) throws -> String {
        "---@alias \(name) \(try shape(schema).luaType)" + (note.map { " " + $0 } ?? "")
    }
}

extension LuaSchema {
    /// A schema that names these classes and aliases wherever their types are met.
    public init(naming classes: [LuaStubClass], aliases: [LuaStubAlias] = [], givenShapes: [ObjectIdentifier: LuaShape] = [:]) {
        self.init(classNames: Dictionary(uniqueKeysWithValues: classes.map { ($0.type, $0.name) } + aliases.map { ($0.type, $0.name) }),
                  givenShapes: givenShapes)
    }
}
