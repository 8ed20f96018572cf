import Foundation

/// Decodes `Decodable` values from Lua tables with snake_case keys (the inverse of
/// ``LuaEncoder``). Integral floats decode as integers; `Data` accepts any string.
///
/// ```swift
/// struct Options: Decodable { var menuId: Int; var timeout: Double? }
/// let options = try LuaDecoder().decode(Options.self, from: ["menu_id": 12])
/// ```
public struct LuaDecoder {
    public var keyStrategy: LuaKeyStrategy

    public init(keyStrategy: LuaKeyStrategy = .snakeCase) {
        self.keyStrategy = keyStrategy
    }

    public func decode<Value: Decodable>(_ type: Value.Type, from value: LuaValue) throws -> Value {
        try LuaValueDecoder(value: value, strategy: keyStrategy, codingPath: [], usage: nil).decodeValue(type)
    }

    /// A field of a table that the type never read: a typo (`chanels`) or a field the type
    /// does not have. `known` are the fields the type read there, for a suggestion.
    public struct UnknownKey: Equatable, Sendable, CustomStringConvertible {
        /// Where the table is (`menus[2].channels`; empty at the top).
        public var path: String
        public var key: String
        public var known: [String]

        /// `menus[2].chanels`.
        public var field: String { path.isEmpty ? key : path + "." + key }
        public var description: String { "\(field): unknown field" }
    }

    /// Decodes as ``decode(_:from:)`` and also returns the fields of every table that the
    /// type did not read (string keys only; a table decoded as a dictionary reads all of
    /// its keys). On a decoding error only the error is thrown.
    ///
    /// ```swift
    /// let (options, unknown) = try LuaDecoder().decodeReportingUnknownKeys(Options.self, from: ["menu_idd": 1])
    /// unknown.first?.field   // "menu_idd"
    /// ```
    public func decodeReportingUnknownKeys<Value: Decodable>(_ type: Value.Type, from value: LuaValue) throws
        -> (Value, [UnknownKey])
    {
        let usage = KeyUsage()
        let decoded = try LuaValueDecoder(value: value, strategy: keyStrategy, codingPath: [], usage: usage).decodeValue(type)
        return (decoded, usage.unknownKeys())
    }

    /// Everything ``decodeCollectingProblems(_:from:)`` found in one pass.
    public struct Report<Value> {
        /// The decoded value, when it decoded: with problems only in optional fields it is
        /// there, those fields nil; nil when a required part was wrong.
        public var value: Value?
        /// The decoding problems, in the order met, each once, at most ``problemLimit``.
        public var problems: [DecodingError]
        /// How many more there were past ``problemLimit``.
        public var unreportedProblems: Int
        /// The fields no one read, in the tables that decoded (a table whose type stopped
        /// half-way is not judged).
        public var unknownKeys: [UnknownKey]
    }

    /// The most problems a report lists (a file with millions of wrong elements is told
    /// how many more there are, not each).
    public static let problemLimit = 100

    /// Decodes as far as the value allows and reports every problem on the way, for a
    /// user who should see all their mistakes in one run: a wrong optional field is
    /// reported and read as absent; a wrong required field or element is reported and
    /// replaced by a stand-in (``LuaSchema/sample(of:)``) so that the fields after it, its
    /// siblings and its parents' are checked too (the value is then nil); unknown fields
    /// are listed as by ``decodeReportingUnknownKeys(_:from:)``. Never throws.
    ///
    /// ```swift
    /// let report = LuaDecoder().decodeCollectingProblems(Options.self, from: ["menu_id": "x", "timout": 2])
    /// report.problems.count      // 1: menu_id
    /// report.unknownKeys.count   // 1: timout
    /// ```
    public func decodeCollectingProblems<Value: Decodable>(_ type: Value.Type, from value: LuaValue) -> Report<Value> {
        let usage = KeyUsage(collectsProblems: true)
        var decoded: Value?
        do {
            decoded = try LuaValueDecoder(value: value, strategy: keyStrategy, codingPath: [], usage: usage).decodeValue(type)
        } catch {
            usage.record(error)
        }
        if usage.usedStandIns { decoded = nil }
        return Report(value: decoded, problems: usage.problems, unreportedProblems: usage.unreported,
                      unknownKeys: usage.unknownKeys())
    }
}

/// Which string keys each decoded table had, which of them the type read, and the names
/// it reads them by (a key is looked up by its Lua name, then by its Swift name); when it
/// collects problems, the decoding errors met and the tables whose decoding stopped.
private final class KeyUsage {
    private var tables: [String: (present: Set<String>, read: Set<String>, names: Set<String>)] = [:]
    private var order: [String] = []
    /// Whether a wrong field is recorded and decoding goes on where it can.
    let collectsProblems: Bool
    private(set) var problems: [DecodingError] = []
    /// Problems past ``LuaDecoder/problemLimit``, counted only.
    private(set) var unreported = 0
    private var recorded: Set<String> = []
    /// Tables whose type threw before reading all it would have read.
    private var unfinished: Set<String> = []
    /// Whether a wrong required value was replaced by a stand-in.
    private(set) var usedStandIns = false

    init(collectsProblems: Bool = false) {
        self.collectsProblems = collectsProblems
    }

    /// Keeps `error` once (an error rethrown by each enclosing level is the same problem);
    /// an error that is not a decoding error is kept in its own words.
    func record(_ error: Error) {
        let decoding = error as? DecodingError
            ?? .dataCorrupted(.init(codingPath: [], debugDescription: String(describing: error)))
        let context: DecodingError.Context?
        switch decoding {
        case .keyNotFound(let key, let found): context = .init(codingPath: found.codingPath + [key], debugDescription: found.debugDescription)
        case .typeMismatch(_, let found), .valueNotFound(_, let found), .dataCorrupted(let found): context = found
        @unknown default: context = nil
        }
        let identity = (context?.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } ?? []).joined(separator: "\u{1F}")
            + "\u{1E}" + (context?.debugDescription ?? "\(decoding)")
        guard !recorded.contains(identity) else { return }
        guard problems.count < LuaDecoder.problemLimit else {
            unreported += 1
            return
        }
        recorded.insert(identity)
        problems.append(decoding)
    }

    /// Records `error` and gives a stand-in for the value that could not be read, so that
    /// decoding goes on; without one (a type the schema cannot sample) the error goes on.
    func standIn<T: Decodable>(for type: T.Type, after error: Error) throws -> T {
        record(error)
        guard let sample = try? LuaSchema().sample(of: type) else { throw error }
        usedStandIns = true
        return sample
    }

    /// The table at `path` stopped decoding (`finished == false`), or decoded after all
    /// (a type that tried another shape first).
    func decoded(_ path: String, finished: Bool) {
        if finished { unfinished.remove(path) } else { unfinished.insert(path) }
    }

    func opened(_ path: String, keys: [String]) {
        if tables[path] == nil {
            tables[path] = (Set(keys), [], [])
            order.append(path)
        } else {
            tables[path]?.present.formUnion(keys)
        }
    }

    func read(_ path: String, name: String, alias: String) {
        tables[path]?.read.formUnion([name, alias])
        tables[path]?.names.insert(name)
    }

    func readAll(_ path: String) {
        if let present = tables[path]?.present { tables[path]?.read.formUnion(present) }
    }

    func unknownKeys() -> [LuaDecoder.UnknownKey] {
        order.flatMap { path -> [LuaDecoder.UnknownKey] in
            guard let table = tables[path], !unfinished.contains(path) else { return [] }
            let known = table.names.sorted()
            return table.present.subtracting(table.read).sorted().map { LuaDecoder.UnknownKey(path: path, key: $0, known: known) }
        }
    }
}

private struct LuaValueDecoder: Decoder {
    let value: LuaValue
    let strategy: LuaKeyStrategy
    var codingPath: [CodingKey]
    let usage: KeyUsage?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The coding path as a script spells it: `menus[2].channels`.
    var luaPath: String { DecodingFailure.path(codingPath, keys: strategy) }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        guard let usage, usage.collectsProblems, value.tableValue != nil else { return try decodeShaped(type) }
        let path = luaPath
        do {
            let decoded = try decodeShaped(type)
            usage.decoded(path, finished: true)
            return decoded
        } catch {
            usage.decoded(path, finished: false)
            throw error
        }
    }

    /// Decodes the value as `type`, with the project's words for what was expected.
    private func decodeShaped<T: Decodable>(_ type: T.Type) throws -> T {
        switch type {
        case is LuaValue.Type:
            return value as! T
        case is Data.Type:
            guard let data = value.dataValue else { throw mismatch(type, "string") }
            return data as! T
        case is Date.Type:
            guard let seconds = value.doubleValue else { throw mismatch(type, "number of seconds") }
            return Date(timeIntervalSince1970: seconds) as! T
        case is URL.Type:
            guard let text = value.stringValue, let url = URL(string: text) else { throw mismatch(type, "URL string") }
            return url as! T
        default:
            do {
                return try T(from: self)
            } catch DecodingError.dataCorrupted(let context) where context.codingPath.count == codingPath.count {
                // An enumeration refuses a value it has no case for by listing the ones it
                // has, not in the standard library's words for its Swift type.
                guard let enumeration = type as? any (CaseIterable & RawRepresentable).Type, let text = value.stringValue else {
                    throw DecodingError.dataCorrupted(context)
                }
                let shown = text.count > 80 ? text.prefix(80) + "..." : Substring(text)
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription:
                    "'\(shown)' is not one of " + Self.rawValues(of: enumeration).map { "'\($0)'" }.joined(separator: ", ")))
            }
        }
    }

    /// The raw values of an enumeration's cases, in order.
    private static func rawValues<E: CaseIterable & RawRepresentable>(of _: E.Type) -> [String] {
        E.allCases.map { "\($0.rawValue)" }
    }

    func mismatch(_ type: Any.Type, _ expected: String) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath,
                                  debugDescription: "\(expected) expected, got \(value.typeName)"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let table = value.tableValue else { throw mismatch(LuaTable.self, "table") }
        let path = usage == nil ? "" : luaPath
        usage?.opened(path, keys: table.fields.keys.compactMap(\.stringValue))
        return KeyedDecodingContainer(KeyedContainer(table: table, strategy: strategy, codingPath: codingPath, usage: usage,
                                                     path: path))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        guard let table = value.tableValue else { throw mismatch(LuaTable.self, "table") }
        guard table.fields.isEmpty else {
            throw DecodingError.typeMismatch([LuaValue].self, .init(codingPath: codingPath,
                debugDescription: "array expected, got a table with non-sequence keys"))
        }
        return UnkeyedContainer(elements: table.sequence, strategy: strategy, codingPath: codingPath, usage: usage)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer {
        SingleContainer(decoder: self)
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let table: LuaTable
        let strategy: LuaKeyStrategy
        var codingPath: [CodingKey]
        let usage: KeyUsage?
        let path: String

        var allKeys: [Key] {
            usage?.readAll(path)
            return table.entries.compactMap { entry in
                guard let key = entry.key.stringValue else { return nil }
                return Key(stringValue: key)
            }
        }

        private func lookup(_ key: Key) -> LuaValue {
            let luaKey = strategy.luaKey(for: key.stringValue)
            usage?.read(path, name: luaKey, alias: key.stringValue)
            if let value = table[luaKey] { return value }
            if let index = key.intValue, let value = table[.integer(Int64(index))] { return value }
            return table[key.stringValue] ?? .nil
        }

        private func decoder(for key: Key) -> LuaValueDecoder {
            LuaValueDecoder(value: lookup(key), strategy: strategy, codingPath: codingPath + [key], usage: usage)
        }

        func contains(_ key: Key) -> Bool { !lookup(key).isNil }

        func decodeNil(forKey key: Key) throws -> Bool { lookup(key).isNil }

        /// When collecting problems, a missing or wrong value is recorded and a stand-in
        /// goes on in its place (``KeyUsage/standIn(for:after:)``).
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let child = decoder(for: key)
            if child.value.isNil {
                let missing = DecodingError.keyNotFound(key, .init(codingPath: codingPath,
                    debugDescription: "field '\(strategy.luaKey(for: key.stringValue))' is required"))
                guard let usage, usage.collectsProblems else { throw missing }
                return try usage.standIn(for: type, after: missing)
            }
            guard let usage, usage.collectsProblems else { return try child.decodeValue(type) }
            do {
                return try child.decodeValue(type)
            } catch {
                return try usage.standIn(for: type, after: error)
            }
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try present(type, key) }
        // The standard library's own versions for these types would call `decode`, which
        // throws: each goes through `present` so that a problem is collected.
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(type, key) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(type, key) }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(type, key) }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try present(type, key) }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(type, key) }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try present(type, key) }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try present(type, key) }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try present(type, key) }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try present(type, key) }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try present(type, key) }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try present(type, key) }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try present(type, key) }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try present(type, key) }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try present(type, key) }

        /// The value at `key`, nil when absent. When collecting problems, a wrong value is
        /// recorded and read as absent, so the fields after it are checked too.
        private func present<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
            let child = decoder(for: key)
            guard !child.value.isNil else { return nil }
            guard let usage, usage.collectsProblems else { return try child.decodeValue(type) }
            do {
                return try child.decodeValue(type)
            } catch {
                usage.record(error)
                return nil
            }
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try decoder(for: key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
            try decoder(for: key).unkeyedContainer()
        }

        func superDecoder() throws -> Decoder {
            LuaValueDecoder(value: table["super"] ?? .nil, strategy: strategy, codingPath: codingPath, usage: usage)
        }

        func superDecoder(forKey key: Key) throws -> Decoder { decoder(for: key) }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let elements: [LuaValue]
        let strategy: LuaKeyStrategy
        var codingPath: [CodingKey]
        let usage: KeyUsage?
        var currentIndex = 0

        init(elements: [LuaValue], strategy: LuaKeyStrategy, codingPath: [CodingKey], usage: KeyUsage?) {
            self.elements = elements
            self.strategy = strategy
            self.codingPath = codingPath
            self.usage = usage
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private mutating func next() throws -> LuaValueDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(LuaValue.self, .init(codingPath: codingPath,
                    debugDescription: "no element at index \(currentIndex + 1)"))
            }
            defer { currentIndex += 1 }
            return LuaValueDecoder(value: elements[currentIndex], strategy: strategy,
                                   codingPath: codingPath + [LuaCodingKey(intValue: currentIndex + 1)], usage: usage)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, elements[currentIndex].isNil else { return false }
            currentIndex += 1
            return true
        }

        /// When collecting problems, a wrong element is recorded and a stand-in goes on in
        /// its place, so the elements after it are checked too.
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let element = try next()
            guard let usage, usage.collectsProblems else { return try element.decodeValue(type) }
            do {
                return try element.decodeValue(type)
            } catch {
                return try usage.standIn(for: type, after: error)
            }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try next().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer { try next().unkeyedContainer() }

        mutating func superDecoder() throws -> Decoder { try next() }
    }

    struct SingleContainer: SingleValueDecodingContainer {
        let decoder: LuaValueDecoder
        var codingPath: [CodingKey] { decoder.codingPath }
        var value: LuaValue { decoder.value }

        func decodeNil() -> Bool { value.isNil }

        func decode(_ type: Bool.Type) throws -> Bool {
            guard let bool = value.boolValue else { throw decoder.mismatch(type, "boolean") }
            return bool
        }

        func decode(_ type: String.Type) throws -> String {
            guard let text = value.stringValue else { throw decoder.mismatch(type, "string") }
            return text
        }

        func decode(_ type: Double.Type) throws -> Double {
            guard let number = value.doubleValue else { throw decoder.mismatch(type, "number") }
            return number
        }

        func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
        func decode(_ type: Int.Type) throws -> Int { try integer(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }

        private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
            guard let integer = value.integerValue else { throw decoder.mismatch(type, "integer") }
            guard let exact = T(exactly: integer) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath,
                    debugDescription: "\(integer) does not fit \(T.self)"))
            }
            return exact
        }
    }
}
