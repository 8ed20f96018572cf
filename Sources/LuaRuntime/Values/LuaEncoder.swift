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
/// A node is a plain value, a keyed container (`fields`) or an unkeyed one (`elements`);
/// each is mutated in place, so a container of n entries costs n insertions, not n copies.
private final class EncodingNode {
    private var value: LuaValue = .nil
    private(set) var fields: [String: EncodingNode]?
    private(set) var elements: [EncodingNode]?

    /// Makes the node a plain value.
    func set(_ newValue: LuaValue) {
        value = newValue
        fields = nil
        elements = nil
    }

    /// Makes the node a keyed container, keeping the fields it already has.
    func becomeKeyed() {
        guard fields == nil else { return }
        fields = [:]
        elements = nil
    }

    /// Makes the node an unkeyed container, keeping the elements it already has.
    func becomeUnkeyed() {
        guard elements == nil else { return }
        elements = []
        fields = nil
    }

    /// The node at `key` of a keyed container, made on first use (a detached node otherwise).
    func field(_ key: String) -> EncodingNode {
        guard fields != nil else { return EncodingNode() }
        if let existing = fields?[key] { return existing }
        let child = EncodingNode()
        fields?[key] = child
        return child
    }

    /// A new last element of an unkeyed container (a detached node otherwise).
    func appendElement() -> EncodingNode {
        let child = EncodingNode()
        elements?.append(child)
        return child
    }

    var luaValue: LuaValue {
        if let fields {
            var table = LuaTable()
            table.fields.reserveCapacity(fields.count)
            for (key, node) in fields {
                let value = node.luaValue
                if !value.isNil { table.fields[.string(key)] = value }
            }
            return .table(table)
        }
        if let elements { return .array(elements.map(\.luaValue)) }
        return value
    }

    static func encode<Value: Encodable>(_ value: Value, strategy: LuaKeyStrategy, codingPath: [CodingKey]) throws
        -> LuaValue
    {
        if let special = specialValue(value) { return special }
        let node = EncodingNode()
        try value.encode(to: LuaValueEncoder(node: node, strategy: strategy, codingPath: codingPath))
        let encoded = node.luaValue
        guard case .table(var table) = encoded, let named = value as? any LuaClass else { return encoded }
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

    /// An unsigned integer as a Lua integer, or an error naming where it is when it does not fit.
    static func integer<T: BinaryInteger>(_ value: T, _ path: [CodingKey]) throws -> LuaValue {
        guard let exact = Int64(exactly: value) else {
            throw EncodingError.invalidValue(value, .init(codingPath: path,
                debugDescription: "\(value) does not fit a Lua integer"))
        }
        return .integer(exact)
    }
}

private struct LuaValueEncoder: Encoder {
    let node: EncodingNode
    let strategy: LuaKeyStrategy
    var codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeKeyed()
        return KeyedEncodingContainer(KeyedContainer(node: node, strategy: strategy, codingPath: codingPath))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        node.becomeUnkeyed()
        return UnkeyedContainer(node: node, strategy: strategy, codingPath: codingPath)
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        SingleContainer(node: node, strategy: strategy, parentPath: codingPath, key: nil)
    }

    /// Scalars are written straight into the field's node: no nested encoder, no coding
    /// path made unless an error needs it.
    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: EncodingNode
        let strategy: LuaKeyStrategy
        var codingPath: [CodingKey]

        private func child(for key: Key) -> EncodingNode { node.field(strategy.luaKey(for: key.stringValue)) }

        private func scalar(_ key: Key) -> SingleContainer {
            SingleContainer(node: child(for: key), strategy: strategy, parentPath: codingPath, key: key)
        }

        mutating func encodeNil(forKey key: Key) throws { child(for: key).set(.nil) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { child(for: key).set(.boolean(value)) }
        mutating func encode(_ value: String, forKey key: Key) throws { child(for: key).set(.string(value)) }
        mutating func encode(_ value: Double, forKey key: Key) throws { child(for: key).set(.number(value)) }
        mutating func encode(_ value: Int, forKey key: Key) throws { child(for: key).set(.integer(Int64(value))) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { child(for: key).set(.integer(value)) }
        mutating func encode(_ value: Float, forKey key: Key) throws { var s = scalar(key); try s.encode(value) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { var s = scalar(key); try s.encode(value) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { var s = scalar(key); try s.encode(value) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { var s = scalar(key); try s.encode(value) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { var s = scalar(key); try s.encode(value) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { var s = scalar(key); try s.encode(value) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { var s = scalar(key); try s.encode(value) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { var s = scalar(key); try s.encode(value) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { var s = scalar(key); try s.encode(value) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            child(for: key).set(try EncodingNode.encode(value, strategy: strategy, codingPath: codingPath + [key]))
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

        var count: Int { node.elements?.count ?? 0 }

        private var nextKey: LuaCodingKey { LuaCodingKey(intValue: count + 1) }

        private func scalar() -> SingleContainer {
            let key = nextKey
            return SingleContainer(node: node.appendElement(), strategy: strategy, parentPath: codingPath, key: key)
        }

        mutating func encodeNil() throws { node.appendElement().set(.nil) }
        mutating func encode(_ value: Bool) throws { node.appendElement().set(.boolean(value)) }
        mutating func encode(_ value: String) throws { node.appendElement().set(.string(value)) }
        mutating func encode(_ value: Double) throws { node.appendElement().set(.number(value)) }
        mutating func encode(_ value: Int) throws { node.appendElement().set(.integer(Int64(value))) }
        mutating func encode(_ value: Int64) throws { node.appendElement().set(.integer(value)) }
        mutating func encode(_ value: Float) throws { var s = scalar(); try s.encode(value) }
        mutating func encode(_ value: Int8) throws { var s = scalar(); try s.encode(value) }
        mutating func encode(_ value: Int16) throws { var s = scalar(); try s.encode(value) }
        mutating func encode(_ value: Int32) throws { var s = scalar(); try s.encode(value) }
        mutating func encode(_ value: UInt) throws { var s = scalar(); try s.encode(value) }
        mutating func encode(_ value: UInt8) throws { var s = scalar(); try s.encode(value) }
        mutating func encode(_ value: UInt16) throws { var s = scalar(); try s.encode(value) }
        mutating func encode(_ value: UInt32) throws { var s = scalar(); try s.encode(value) }
        mutating func encode(_ value: UInt64) throws { var s = scalar(); try s.encode(value) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            let path = codingPath + [nextKey]
            node.appendElement().set(try EncodingNode.encode(value, strategy: strategy, codingPath: path))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            let path = codingPath + [nextKey]
            return LuaValueEncoder(node: node.appendElement(), strategy: strategy, codingPath: path)
                .container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
            let path = codingPath + [nextKey]
            return LuaValueEncoder(node: node.appendElement(), strategy: strategy, codingPath: path).unkeyedContainer()
        }

        mutating func superEncoder() -> Encoder {
            let path = codingPath + [nextKey]
            return LuaValueEncoder(node: node.appendElement(), strategy: strategy, codingPath: path)
        }
    }

    /// One value; its coding path (the parent's and its own key) is made only when read.
    struct SingleContainer: SingleValueEncodingContainer {
        let node: EncodingNode
        let strategy: LuaKeyStrategy
        let parentPath: [CodingKey]
        let key: CodingKey?

        var codingPath: [CodingKey] { key.map { parentPath + [$0] } ?? parentPath }

        mutating func encodeNil() throws { node.set(.nil) }
        mutating func encode(_ value: Bool) throws { node.set(.boolean(value)) }
        mutating func encode(_ value: String) throws { node.set(.string(value)) }
        mutating func encode(_ value: Double) throws { node.set(.number(value)) }
        mutating func encode(_ value: Float) throws { node.set(.number(Double(value))) }
        mutating func encode(_ value: Int) throws { node.set(.integer(Int64(value))) }
        mutating func encode(_ value: Int8) throws { node.set(.integer(Int64(value))) }
        mutating func encode(_ value: Int16) throws { node.set(.integer(Int64(value))) }
        mutating func encode(_ value: Int32) throws { node.set(.integer(Int64(value))) }
        mutating func encode(_ value: Int64) throws { node.set(.integer(value)) }
        mutating func encode(_ value: UInt) throws { node.set(try EncodingNode.integer(value, codingPath)) }
        mutating func encode(_ value: UInt8) throws { node.set(.integer(Int64(value))) }
        mutating func encode(_ value: UInt16) throws { node.set(.integer(Int64(value))) }
        mutating func encode(_ value: UInt32) throws { node.set(.integer(Int64(value))) }
        mutating func encode(_ value: UInt64) throws { node.set(try EncodingNode.integer(value, codingPath)) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            node.set(try EncodingNode.encode(value, strategy: strategy, codingPath: codingPath))
        }
    }
}
