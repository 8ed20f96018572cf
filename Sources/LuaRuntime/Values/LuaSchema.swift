import Foundation

/// The shape of a value as a script sees it: what ``LuaDecoder`` reads and ``LuaEncoder``
/// writes for a type, as a LuaLS type.
public indirect enum LuaShape: Equatable, Sendable {
    case boolean, integer, number, string, any
    /// One of these strings (an enumeration's raw values).
    case literals([String])
    case list(LuaShape)
    /// A table by key: `table<string, V>`.
    case map(key: LuaShape, value: LuaShape)
    /// A table with these fields, in the order the type reads them.
    case object([Field])
    /// A class declared elsewhere (``LuaSchema/classNames``).
    case named(String)
    /// Any of these (a value made by hand in one of several shapes).
    case union([LuaShape])

    public struct Field: Equatable, Sendable {
        /// The key as scripts spell it (`chat_id`).
        public var name: String
        public var shape: LuaShape
        public var isOptional: Bool

        public init(name: String, shape: LuaShape, isOptional: Bool) {
            self.name = name
            self.shape = shape
            self.isOptional = isOptional
        }

        /// `integer?`, `"a"|"b"|nil`: the field's LuaLS type.
        public var luaType: String {
            guard isOptional else { return shape.luaType }
            switch shape {
            case .literals, .union: return shape.luaType + "|nil"
            default: return shape.luaType + "?"
            }
        }
    }

    /// The LuaLS type: `"photo"|"video"`, `integer[]`, `{ id: integer, name: string? }`.
    public var luaType: String {
        switch self {
        case .boolean: return "boolean"
        case .integer: return "integer"
        case .number: return "number"
        case .string: return "string"
        case .any: return "any"
        case .literals(let values): return values.map { "\"\($0)\"" }.joined(separator: "|")
        case .list(let element):
            switch element {
            case .literals, .object, .union: return "(\(element.luaType))[]"
            default: return element.luaType + "[]"
            }
        case .map(let key, let value): return "table<\(key.luaType), \(value.luaType)>"
        case .object(let fields):
            return "{ " + fields.map { "\($0.name): \($0.luaType)" }.joined(separator: ", ") + " }"
        case .named(let name): return name
        case .union(let shapes): return shapes.map(\.luaType).joined(separator: "|")
        }
    }
}

/// Finds the ``LuaShape`` of a `Decodable` type by decoding one from nothing: every field it
/// reads is recorded with its type and whether it is optional, an enumeration gives its
/// cases, and a type named in ``classNames`` is referred to by that name inside others (so a
/// tree of menus is `ccai.QueueMenu[]`, not endless). Used to generate editor stubs and the
/// reference from the models themselves.
///
/// ```swift
/// struct Message: Decodable { var id: Int; var text: String? }
/// try LuaSchema().shape(of: Message.self).luaType   // "{ id: integer, text: string? }"
/// ```
public struct LuaSchema {
    /// Classes by type: a field of one of these types is `.named`.
    public var classNames: [ObjectIdentifier: String]
    /// Shapes given instead of found (a JSON value is `any`).
    public var givenShapes: [ObjectIdentifier: LuaShape]
    public var keyStrategy: LuaKeyStrategy

    public init(classNames: [ObjectIdentifier: String] = [:], givenShapes: [ObjectIdentifier: LuaShape] = [:],
                keyStrategy: LuaKeyStrategy = .snakeCase) {
        self.classNames = classNames
        self.givenShapes = givenShapes
        self.keyStrategy = keyStrategy
    }

    /// The shape of `type` itself (its fields, even when it is a named class).
    public func shape<T: Decodable>(of type: T.Type) throws -> LuaShape {
        try ShapeProbe(schema: self).probe(type, naming: false).shape
    }

    /// A value of `type` with every optional field the probe met present: encode it to
    /// see what a script would see of a full one (fields a type writes but never reads).
    public func sample<T: Decodable>(of type: T.Type) throws -> T {
        try ShapeProbe(schema: self).probe(type, naming: false).value
    }
}

/// An array, seen without an element to decode.
private protocol ProbedList {
    static var elementShape: (ShapeProbe) throws -> LuaShape { get }
    static var empty: Self { get }
}

extension Array: ProbedList where Element: Decodable {
    static var elementShape: (ShapeProbe) throws -> LuaShape { { try $0.shape(of: Element.self) } }
    static var empty: Self { [] }
}

/// A dictionary, seen without an entry to decode.
private protocol ProbedMap {
    static var entryShapes: (ShapeProbe) throws -> (key: LuaShape, value: LuaShape) { get }
    static var empty: Self { get }
}

extension Dictionary: ProbedMap where Key: Decodable, Value: Decodable {
    static var entryShapes: (ShapeProbe) throws -> (key: LuaShape, value: LuaShape) {
        { (try $0.shape(of: Key.self), try $0.shape(of: Value.self)) }
    }
    static var empty: Self { [:] }
}

/// What a probe needs to build one value of an enumeration.
private func firstCase<E: CaseIterable & RawRepresentable>(of _: E.Type) -> (value: E?, rawValues: [String]) {
    (E.allCases.first, E.allCases.map { "\($0.rawValue)" })
}

/// One probing pass: the types being probed, to refuse a type that needs itself.
final class ShapeProbe {
    let schema: LuaSchema
    private var inProgress: Set<ObjectIdentifier> = []

    init(schema: LuaSchema) {
        self.schema = schema
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The shape of `type` where no value is needed: a named class by its name, without
    /// probing it (so a class may list itself).
    func shape<T: Decodable>(of type: T.Type) throws -> LuaShape {
        if let name = schema.classNames[ObjectIdentifier(type)] { return .named(name) }
        return try probe(type).shape
    }

    /// A value of `type` and its shape; `naming` refers to a named class by its name.
    func probe<T: Decodable>(_ type: T.Type, naming: Bool = true) throws -> (value: T, shape: LuaShape) {
        let id = ObjectIdentifier(type)
        switch type {
        case is Date.Type: return (Date(timeIntervalSince1970: 0) as! T, .number)
        case is Data.Type: return (Data() as! T, .string)
        case is URL.Type: return (URL(fileURLWithPath: "/") as! T, .string)
        case is LuaValue.Type: return (LuaValue.nil as! T, schema.givenShapes[id] ?? .any)
        default: break
        }
        if let enumeration = type as? any (CaseIterable & RawRepresentable).Type {
            let (value, rawValues) = firstCase(of: enumeration)
            guard let value = value as? T else { throw Failure(description: "\(type) has no case") }
            return (value, .literals(rawValues))
        }
        if let list = type as? any ProbedList.Type {
            return (list.empty as! T, .list(try list.elementShape(self)))
        }
        if let map = type as? any ProbedMap.Type {
            let (key, value) = try map.entryShapes(self)
            return (map.empty as! T, .map(key: key, value: value))
        }
        guard inProgress.insert(id).inserted else {
            throw Failure(description: "\(type) contains itself where it is required")
        }
        defer { inProgress.remove(id) }
        let recorder = ShapeRecorder()
        let value = try T(from: ProbeDecoder(probe: self, recorder: recorder, codingPath: []))
        if naming, let name = schema.classNames[id] { return (value, .named(name)) }
        if let given = schema.givenShapes[id] { return (value, given) }
        return (value, recorder.shape)
    }
}

/// What a type read of its probe decoder.
private final class ShapeRecorder {
    enum Source {
        case shape(LuaShape)
        case nested(ShapeRecorder)
    }

    private var fields: [(name: String, source: Source, isOptional: Bool)] = []
    private var single: LuaShape?
    private var element: LuaShape?
    private var isKeyed = false
    private var isUnkeyed = false
    /// Keys whose nil-ness was asked: their decode is an optional's.
    var askedNil: Set<String> = []

    func keyed() { isKeyed = true }

    func field(_ name: String, _ source: Source, isOptional: Bool) {
        if let index = fields.firstIndex(where: { $0.name == name }) {
            fields[index].isOptional = fields[index].isOptional || isOptional
        } else {
            fields.append((name, source, isOptional || askedNil.contains(name)))
        }
    }

    func single(_ shape: LuaShape) {
        if single == nil { single = shape }
    }

    func unkeyed(_ shape: LuaShape?) {
        isUnkeyed = true
        if element == nil { element = shape }
    }

    var shape: LuaShape {
        if isKeyed {
            return .object(fields.map { field in
                switch field.source {
                case .shape(let shape): return LuaShape.Field(name: field.name, shape: shape, isOptional: field.isOptional)
                case .nested(let recorder): return LuaShape.Field(name: field.name, shape: recorder.shape, isOptional: field.isOptional)
                }
            })
        }
        if isUnkeyed { return .list(element ?? .any) }
        return single ?? .any
    }
}

/// A decoder with no data that answers every question with a plausible value and records
/// what was asked.
private struct ProbeDecoder: Decoder {
    let probe: ShapeProbe
    let recorder: ShapeRecorder
    var codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        recorder.keyed()
        return KeyedDecodingContainer(Keyed(decoder: self))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        recorder.unkeyed(nil)
        return Unkeyed(decoder: self)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer { Single(decoder: self) }

    func name(_ key: CodingKey) -> String { probe.schema.keyStrategy.luaKey(for: key.stringValue) }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: ProbeDecoder
        var codingPath: [CodingKey] { decoder.codingPath }
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { true }

        func decodeNil(forKey key: Key) throws -> Bool {
            decoder.recorder.askedNil.insert(decoder.name(key))
            return false
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try read(type, key, isOptional: false)
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            try read(type, key, isOptional: true)
        }

        private func read<T: Decodable>(_ type: T.Type, _ key: Key, isOptional: Bool) throws -> T {
            let (value, shape) = try decoder.probe.probe(type)
            decoder.recorder.field(decoder.name(key), .shape(shape), isOptional: isOptional)
            return value
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            let nested = ShapeRecorder()
            decoder.recorder.field(decoder.name(key), .nested(nested), isOptional: false)
            return try ProbeDecoder(probe: decoder.probe, recorder: nested, codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
            let nested = ShapeRecorder()
            decoder.recorder.field(decoder.name(key), .nested(nested), isOptional: false)
            return try ProbeDecoder(probe: decoder.probe, recorder: nested, codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> Decoder { decoder }
    }

    /// A list that a type walks itself: no elements, the first decode names their type.
    struct Unkeyed: UnkeyedDecodingContainer {
        let decoder: ProbeDecoder
        var codingPath: [CodingKey] { decoder.codingPath }
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }

        mutating func decodeNil() throws -> Bool { false }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, shape) = try decoder.probe.probe(type)
            decoder.recorder.unkeyed(shape)
            return value
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try decoder.container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer { self }
        mutating func superDecoder() throws -> Decoder { decoder }
    }

    /// One value: the first primitive a type asks for is its shape.
    struct Single: SingleValueDecodingContainer {
        let decoder: ProbeDecoder
        var codingPath: [CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool { false }

        private func primitive<T>(_ value: T, _ shape: LuaShape) -> T {
            decoder.recorder.single(shape)
            return value
        }

        func decode(_ type: Bool.Type) throws -> Bool { primitive(true, .boolean) }
        func decode(_ type: String.Type) throws -> String { primitive("", .string) }
        func decode(_ type: Double.Type) throws -> Double { primitive(0, .number) }
        func decode(_ type: Float.Type) throws -> Float { primitive(0, .number) }
        func decode(_ type: Int.Type) throws -> Int { primitive(0, .integer) }
        func decode(_ type: Int8.Type) throws -> Int8 { primitive(0, .integer) }
        func decode(_ type: Int16.Type) throws -> Int16 { primitive(0, .integer) }
        func decode(_ type: Int32.Type) throws -> Int32 { primitive(0, .integer) }
        func decode(_ type: Int64.Type) throws -> Int64 { primitive(0, .integer) }
        func decode(_ type: UInt.Type) throws -> UInt { primitive(0, .integer) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { primitive(0, .integer) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { primitive(0, .integer) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { primitive(0, .integer) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { primitive(0, .integer) }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, shape) = try decoder.probe.probe(type)
            decoder.recorder.single(shape)
            return value
        }
    }
}
