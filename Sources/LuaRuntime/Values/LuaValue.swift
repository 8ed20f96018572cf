import Foundation

/// A Lua value as plain Swift data: what crosses between Swift and Lua by copy.
///
/// Strings that are valid UTF-8 arrive as `.string`; any other byte string arrives as
/// `.data`, so nothing is lost. Functions, userdata and threads are not data: read them
/// as ``LuaReference`` instead.
///
/// ```swift
/// let value: LuaValue = ["name": "Ava", "queues": [1, 2]]
/// value["name"]?.stringValue   // "Ava"
/// ```
public enum LuaValue: Hashable, Sendable {
    case `nil`
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case data(Data)
    case table(LuaTable)

    /// A table holding `values` at keys 1...n.
    public static func array(_ values: [LuaValue]) -> LuaValue {
        .table(LuaTable(sequence: values))
    }

    /// About what it takes to hold in memory: 16 bytes a value, plus a string's or data's
    /// bytes, plus 64 a table and its keys and values (what a kept event counts).
    public var heldBytes: Int {
        switch self {
        case .nil, .boolean, .integer, .number: return 16
        case .string(let text): return 16 + text.utf8.count
        case .data(let bytes): return 16 + bytes.count
        case .table(let table):
            var total = 64
            for value in table.sequence { total += value.heldBytes }
            for (key, value) in table.fields { total += key.heldBytes + value.heldBytes }
            return total
        }
    }

    /// The Lua type name of this value (`"nil"`, `"boolean"`, `"number"`, `"string"`, `"table"`).
    public var typeName: String {
        switch self {
        case .nil: return "nil"
        case .boolean: return "boolean"
        case .integer, .number: return "number"
        case .string, .data: return "string"
        case .table: return "table"
        }
    }

    public var isNil: Bool { if case .nil = self { return true } else { return false } }

    public var boolValue: Bool? { if case .boolean(let b) = self { return b } else { return nil } }

    /// The value as an integer when it is an integer or a float with an exact integer value.
    public var integerValue: Int64? {
        switch self {
        case .integer(let i): return i
        case .number(let d):
            guard d.rounded() == d, let i = Int64(exactly: d) else { return nil }
            return i
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .number(let d): return d
        default: return nil
        }
    }

    /// The text of a string value (binary strings are decoded leniently).
    public var stringValue: String? {
        switch self {
        case .string(let s): return s
        case .data(let d): return String(decoding: d, as: UTF8.self)
        default: return nil
        }
    }

    /// The bytes of a string value.
    public var dataValue: Data? {
        switch self {
        case .string(let s): return Data(s.utf8)
        case .data(let d): return d
        default: return nil
        }
    }

    public var tableValue: LuaTable? { if case .table(let t) = self { return t } else { return nil } }

    /// A table with the dictionary's entries (string keys).
    public init(_ dictionary: [String: LuaValue]) {
        self = .table(LuaTable(fields: Dictionary(uniqueKeysWithValues: dictionary.map { (.string($0.key), $0.value) })))
    }

    /// A table with `array` at keys 1...n.
    public init(_ array: [LuaValue]) {
        self = .array(array)
    }

    /// The elements of a table that is a sequence (keys 1...n only); nil otherwise.
    public var arrayValue: [LuaValue]? {
        guard let table = tableValue, table.fields.isEmpty else { return nil }
        return table.sequence
    }

    /// The entries of a table whose keys are all strings; nil otherwise.
    public var dictionaryValue: [String: LuaValue]? {
        guard let table = tableValue, table.sequence.isEmpty else { return nil }
        var dictionary: [String: LuaValue] = [:]
        for (key, value) in table.fields {
            guard case .string(let name) = key else { return nil }
            dictionary[name] = value
        }
        return dictionary
    }

    /// `value["key"]`: a field of a table value, nil for other values or absent keys.
    public subscript(key: String) -> LuaValue? {
        tableValue?[.string(key)]
    }

    /// `value[1]`: an element of a table value.
    public subscript(index: Int) -> LuaValue? {
        tableValue?[.integer(Int64(index))]
    }
}

extension LuaValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .nil }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: LuaValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, LuaValue)...) {
        var table = LuaTable()
        for (key, value) in elements { table[.string(key)] = value }
        self = .table(table)
    }
}

extension LuaValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .nil: return "nil"
        case .boolean(let b): return String(b)
        case .integer(let i): return String(i)
        case .number(let d): return LuaValue.format(d)
        case .string(let s): return s
        case .data(let d): return String(decoding: d, as: UTF8.self)
        case .table(let t): return t.description
        }
    }

    /// Formats a float the way Lua's `tostring` does (`%.14g`, with `.0` for integral values).
    static func format(_ d: Double) -> String {
        if d.isNaN { return d.sign == .minus ? "-nan" : "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        let text = String(format: "%.14g", d)
        if text.contains(where: { $0 == "." || $0 == "e" || $0 == "n" || $0 == "i" }) { return text }
        return text + ".0"
    }
}

/// A Lua table as Swift data: its sequence part (keys 1...n) and its other keys.
public struct LuaTable: Hashable, Sendable {
    /// Values at keys 1...n, without holes.
    public var sequence: [LuaValue]
    /// Every other key. Never holds nil values or keys that belong in `sequence`.
    public var fields: [LuaValue: LuaValue]
    /// The class whose methods the table gets when it is pushed (``LuaClass``), if any.
    /// Presentation, not data: two tables with the same entries are equal whatever it is.
    public var className: String?

    public init(sequence: [LuaValue] = [], fields: [LuaValue: LuaValue] = [:]) {
        self.sequence = sequence
        self.fields = [:]
        for (key, value) in fields { self[key] = value }
    }

    /// A table of strings by name, as `ccai.env` and a configuration's `env` hold the `--env` values.
    public init(strings: [String: String]) {
        self.init(fields: Dictionary(uniqueKeysWithValues: strings.map { (LuaValue.string($0.key), LuaValue.string($0.value)) }))
    }

    public var isEmpty: Bool { sequence.isEmpty && fields.isEmpty }

    public static func == (lhs: LuaTable, rhs: LuaTable) -> Bool {
        lhs.sequence == rhs.sequence && lhs.fields == rhs.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sequence)
        hasher.combine(fields)
    }

    /// The number of entries.
    public var count: Int { sequence.count + fields.count }

    /// Reads or writes an entry; writing nil removes it. Integer keys extend the sequence
    /// when they make it contiguous.
    public subscript(key: LuaValue) -> LuaValue? {
        get {
            if let index = LuaTable.sequenceIndex(key), index <= sequence.count { return sequence[index - 1] }
            return fields[LuaTable.normalized(key)]
        }
        set {
            let key = LuaTable.normalized(key)
            let value = newValue ?? .nil
            if let index = LuaTable.sequenceIndex(key), index <= sequence.count + 1 {
                if value.isNil {
                    if index <= sequence.count {
                        let tail = sequence[index...]
                        sequence.removeSubrange((index - 1)...)
                        for (offset, element) in tail.enumerated() {
                            fields[.integer(Int64(index + 1 + offset))] = element
                        }
                    }
                    return
                }
                if index == sequence.count + 1 {
                    sequence.append(value)
                    var next = Int64(sequence.count + 1)
                    while let moved = fields.removeValue(forKey: .integer(next)) {
                        sequence.append(moved)
                        next += 1
                    }
                } else {
                    sequence[index - 1] = value
                }
                return
            }
            if value.isNil { fields.removeValue(forKey: key) } else { fields[key] = value }
        }
    }

    public subscript(key: String) -> LuaValue? {
        get { self[.string(key)] }
        set { self[.string(key)] = newValue }
    }

    /// Every entry, the sequence first.
    public var entries: [(key: LuaValue, value: LuaValue)] {
        sequence.enumerated().map { (LuaValue.integer(Int64($0.offset + 1)), $0.element) }
            + fields.map { ($0.key, $0.value) }
    }

    /// Lua treats a float key with an integral value as that integer.
    static func normalized(_ key: LuaValue) -> LuaValue {
        if case .number(let d) = key, let i = Int64(exactly: d) { return .integer(i) }
        if case .data(let d) = key, let s = String(data: d, encoding: .utf8) { return .string(s) }
        return key
    }

    private static func sequenceIndex(_ key: LuaValue) -> Int? {
        guard case .integer(let i) = normalized(key), i >= 1, i <= Int64(Int.max) else { return nil }
        return Int(i)
    }
}

extension LuaTable: CustomStringConvertible {
    public var description: String {
        let parts = sequence.map { $0.description }
            + fields.sorted { $0.key.description < $1.key.description }.map { "\($0.key)=\($0.value)" }
        return "{" + parts.joined(separator: ", ") + "}"
    }
}

extension LuaValue {
    /// The value as Lua source, for messages: strings quoted, a table's sequence first, then
    /// its other keys in order (`{ 1, 2, code = 7, message = "no stock" }`). Tables nested
    /// deeper than `depth` read `{...}`, and text past `limit` characters is cut with `...`.
    ///
    /// ```swift
    /// LuaValue.table(LuaTable(fields: ["code": 7])).literal()   // "{ code = 7 }"
    /// ```
    public func literal(depth: Int = 3, limit: Int = 400) -> String {
        let text = literalText(depth: depth)
        return text.count > limit ? String(text.prefix(limit)) + "..." : text
    }

    private func literalText(depth: Int) -> String {
        switch self {
        case .string, .data:
            return LuaValue.quoted(stringValue ?? "")
        case .table(let table):
            guard !table.isEmpty else { return "{}" }
            guard depth > 0 else { return "{...}" }
            let keyed = table.fields.sorted { $0.key.description < $1.key.description }.map { key, value -> String in
                let name = key.stringValue.flatMap { LuaValue.isName($0) ? $0 : nil } ?? "[\(key.literalText(depth: 0))]"
                return "\(name) = \(value.literalText(depth: depth - 1))"
            }
            return "{ " + (table.sequence.map { $0.literalText(depth: depth - 1) } + keyed).joined(separator: ", ") + " }"
        default:
            return description
        }
    }

    /// A Lua name (an identifier, not a keyword) that reads as a key without brackets.
    private static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return text.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
            && !keywords.contains(text)
    }

    private static let keywords: Set<String> = ["and", "break", "do", "else", "elseif", "end", "false", "for", "function",
                                                "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then",
                                                "true", "until", "while"]

    /// A string as a Lua literal in double quotes, control characters escaped.
    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: result += "\\\(scalar.value)"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
