import Foundation

/// Encodes `Encodable` values as Lua tables with snake_case keys. `Data` becomes a
/// binary-safe string, `Date` Unix seconds, `URL` its string; absent optionals are nil.
///
/// ```swift
/// struct Menu: Codable { var id: Int; var isDirectAccess: Bool }
/// try LuaEncoder().encode(Menu(id: 1, isDirectAccess: true))   // ["id": 1, "is_direct_access": true]
/// ```
public struct LuaEncoder {
    public var keyStrategy: LuaKeyStrategy

    public init(keyStrategy: LuaKeyStrategy = .snakeCase) {
        self.keyStrategy = keyStrategy
    }

    public func encode<Value: Encodable>(_ value: Value) throws -> LuaValue {
        try EncodingNode.encode(value, strategy: keyStrategy, codingPath: [])
    }
}

/// A value under construction: containers write into nodes that are read back at the end.
private final class EncodingNode {
    enum Content {
        case value(LuaValue)
        case keyed([String: EncodingNode])
        case unkeyed([EncodingNode])
    }

    var content: Content = .value(.nil)

    var luaValue: LuaValue {
        switch content {
        case .value(let value):
            return value
        case .keyed(let fields):
            var table = LuaTable()
            for (key, node) in fields { table[key] = node.luaValue }
            return .table(table)
        case .unkeyed(let elements):
            return .array(elements.map(\.luaValue))
        }
    }

    static func encode<Value: Encodable>(_ value: Value, strategy: LuaKeyStrategy, codingPath: [CodingKey]) throws
        -> LuaValue
    {
        if let special = specialValue(value) { return special }
        let node = EncodingNode()
        try value.encode(to: LuaValueEncoder(node: node, strategy: strategy, codingPath: codingPath))
        guard let named = value as? any LuaClass, case .table(var table) = node.luaValue else { return node.luaValue }
        table.className = type(of: named).luaClassName
        return .table(table)
    }

    static func specialValue<Value>(_ value: Value) -> LuaValue? {
        switch value {
        case let data as Data: return .data(data)
        case let date as Date: return .number(date.timeIntervalSince1970)
        case let url as URL: return .string(url.absoluteString)
        default: return nil
        }
    }
}

private struct LuaValueEncoder: Encoder {
    let node: EncodingNode
    let strategy: LuaKeyStrategy
    var codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .keyed = node.content {} else { node.content = .keyed([:]) }
        return KeyedEncodingContainer(KeyedContainer(node: node, strategy: strategy, codingPath: codingPath))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        if case .unkeyed = node.content {} else { node.content = .unkeyed([]) }
        return UnkeyedContainer(node: node, strategy: strategy, codingPath: codingPath)
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        SingleContainer(node: node, strategy: strategy, codingPath: codingPath)
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: EncodingNode
        let strategy: LuaKeyStrategy
        var codingPath: [CodingKey]

        private func child(for key: Key) -> EncodingNode {
            let luaKey = strategy.luaKey(for: key.stringValue)
            guard case .keyed(var fields) = node.content else { return EncodingNode() }
            if let existing = fields[luaKey] { return existing }
            let child = EncodingNode()
            fields[luaKey] = child
            node.content = .keyed(fields)
            return child
        }

        mutating func encodeNil(forKey key: Key) throws { child(for: key).content = .value(.nil) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            child(for: key).content = .value(
                try EncodingNode.encode(value, strategy: strategy, codingPath: codingPath + [key]))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            LuaValueEncoder(node: child(for: key), strategy: strategy, codingPath: codingPath + [key])
                .container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
            LuaValueEncoder(node: child(for: key), strategy: strategy, codingPath: codingPath + [key])
                .unkeyedContainer()
        }

        mutating func superEncoder() -> Encoder {
            LuaValueEncoder(node: child(for: Key(stringValue: "super")!), strategy: strategy, codingPath: codingPath)
        }

        mutating func superEncoder(forKey key: Key) -> Encoder {
            LuaValueEncoder(node: child(for: key), strategy: strategy, codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: EncodingNode
        let strategy: LuaKeyStrategy
        var codingPath: [CodingKey]

        var count: Int {
            if case .unkeyed(let elements) = node.content { return elements.count }
            return 0
        }

        private func append() -> EncodingNode {
            let child = EncodingNode()
            if case .unkeyed(var elements) = node.content {
                elements.append(child)
                node.content = .unkeyed(elements)
            }
            return child
        }

        private var nextPath: [CodingKey] { codingPath + [LuaCodingKey(intValue: count + 1)] }

        mutating func encodeNil() throws { append().content = .value(.nil) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            let path = nextPath
            append().content = .value(try EncodingNode.encode(value, strategy: strategy, codingPath: path))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            let path = nextPath
            return LuaValueEncoder(node: append(), strategy: strategy, codingPath: path).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
            let path = nextPath
            return LuaValueEncoder(node: append(), strategy: strategy, codingPath: path).unkeyedContainer()
        }

        mutating func superEncoder() -> Encoder {
            let path = nextPath
            return LuaValueEncoder(node: append(), strategy: strategy, codingPath: path)
        }
    }

    struct SingleContainer: SingleValueEncodingContainer {
        let node: EncodingNode
        let strategy: LuaKeyStrategy
        var codingPath: [CodingKey]

        mutating func encodeNil() throws { node.content = .value(.nil) }
        mutating func encode(_ value: Bool) throws { node.content = .value(.boolean(value)) }
        mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
        mutating func encode(_ value: Double) throws { node.content = .value(.number(value)) }
        mutating func encode(_ value: Float) throws { node.content = .value(.number(Double(value))) }
        mutating func encode(_ value: Int) throws { node.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: Int8) throws { node.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: Int16) throws { node.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: Int32) throws { node.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: Int64) throws { node.content = .value(.integer(value)) }
        mutating func encode(_ value: UInt) throws { node.content = .value(try Self.integer(value, codingPath)) }
        mutating func encode(_ value: UInt8) throws { node.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: UInt16) throws { node.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: UInt32) throws { node.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: UInt64) throws { node.content = .value(try Self.integer(value, codingPath)) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            node.content = .value(try EncodingNode.encode(value, strategy: strategy, codingPath: codingPath))
        }

        static func integer<T: BinaryInteger>(_ value: T, _ path: [CodingKey]) throws -> LuaValue {
            guard let exact = Int64(exactly: value) else {
                throw EncodingError.invalidValue(value, .init(codingPath: path,
                    debugDescription: "\(value) does not fit a Lua integer"))
            }
            return .integer(exact)
        }
    }
}
