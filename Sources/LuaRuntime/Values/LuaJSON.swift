import Foundation

/// JSON text <-> ``LuaValue``. Arrays are tables with keys 1...n; objects are tables with
/// string keys; `null` reads as nil (so an object drops the key and an array has a hole);
/// an empty table writes as `{}`. Keys are written sorted, so output is deterministic.
///
/// ```swift
/// let value = try LuaJSON.decode(#"{"id": 1, "tags": ["a"]}"#)
/// let text = try LuaJSON.encode(value)          // {"id":1,"tags":["a"]}
/// ```
public enum LuaJSON {
    public struct Error: Swift.Error, CustomStringConvertible, Equatable {
        public var message: String
        public var description: String { message }

        public init(message: String) {
            self.message = message
        }
    }

    // MARK: - Encoding

    public static func encode(_ value: LuaValue, pretty: Bool = false) throws -> String {
        var output = ""
        try write(value, into: &output, pretty: pretty, indent: 0, path: "")
        return output
    }

    private static func write(_ value: LuaValue, into output: inout String, pretty: Bool, indent: Int, path: String)
        throws
    {
        switch value {
        case .nil:
            output += "null"
        case .boolean(let b):
            output += b ? "true" : "false"
        case .integer(let i):
            output += String(i)
        case .number(let d):
            guard d.isFinite else { throw Error(message: "cannot encode \(LuaValue.format(d)) as JSON\(at(path))") }
            output += d == d.rounded() && abs(d) < 1e15 ? String(format: "%.1f", d) : "\(d)"
        case .string(let s):
            writeString(s, into: &output)
        case .data:
            throw Error(message: "cannot encode a binary (non-UTF-8) string as JSON\(at(path))")
        case .table(let table):
            try writeTable(table, into: &output, pretty: pretty, indent: indent, path: path)
        }
    }

    private static func writeTable(_ table: LuaTable, into output: inout String, pretty: Bool, indent: Int,
                                   path: String) throws
    {
        guard indent < 200 else { throw Error(message: "table nested too deeply to encode\(at(path))") }
        let newline = pretty ? "\n" + String(repeating: "  ", count: indent + 1) : ""
        let closing = pretty ? "\n" + String(repeating: "  ", count: indent) : ""
        if !table.sequence.isEmpty {
            guard table.fields.isEmpty else {
                throw Error(message: "cannot encode a table with both array items and other keys as JSON\(at(path))")
            }
            output += "["
            for (index, element) in table.sequence.enumerated() {
                if index > 0 { output += "," }
                output += newline
                try write(element, into: &output, pretty: pretty, indent: indent + 1, path: "\(path)[\(index + 1)]")
            }
            output += closing + "]"
            return
        }
        var fields: [(String, LuaValue)] = []
        for (key, element) in table.fields {
            guard case .string(let name) = key else {
                throw Error(message: "cannot encode a table key of type \(key.typeName) (\(key)) as JSON\(at(path))")
            }
            fields.append((name, element))
        }
        fields.sort { $0.0 < $1.0 }
        output += "{"
        for (index, (name, element)) in fields.enumerated() {
            if index > 0 { output += "," }
            output += newline
            writeString(name, into: &output)
            output += pretty ? ": " : ":"
            try write(element, into: &output, pretty: pretty, indent: indent + 1,
                      path: path.isEmpty ? name : "\(path).\(name)")
        }
        output += (fields.isEmpty ? "" : closing) + "}"
    }

    /// Appends `string` as a JSON string literal: quotes, backslashes and control characters
    /// escaped, and U+2028 and U+2029 too (JavaScript and line-splitting readers, JSON
    /// Lines', take them for line ends). The one JSON string writer of the project.
    ///
    /// ```swift
    /// var line = ""
    /// LuaJSON.writeString("a\"b\n", into: &line)   // line == #""a\"b\n""#
    /// ```
    public static func writeString(_ string: String, into output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                output += String(format: "\\u%04x", scalar.value)
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    private static func at(_ path: String) -> String { path.isEmpty ? "" : " (at '\(path)')" }

    // MARK: - Decoding

    public static func decode(_ text: String) throws -> LuaValue {
        try decode(Data(text.utf8))
    }

    public static func decode(_ data: Data) throws -> LuaValue {
        var parser = Parser(bytes: [UInt8](data))
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        func error(_ message: String) -> Error {
            Error(message: "invalid JSON at byte \(position + 1): \(message)")
        }

        mutating func skipWhitespace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func expect(_ literal: String, _ value: LuaValue) throws -> LuaValue {
            let expected = Array(literal.utf8)
            guard bytes.count - position >= expected.count,
                Array(bytes[position..<position + expected.count]) == expected
            else { throw error("expected '\(literal)'") }
            position += expected.count
            return value
        }

        mutating func parseValue(depth: Int) throws -> LuaValue {
            guard depth < 200 else { throw error("nested too deeply") }
            guard position < bytes.count else { throw error("unexpected end of input") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try parseObject(depth: depth)
            case UInt8(ascii: "["): return try parseArray(depth: depth)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): return try expect("true", .boolean(true))
            case UInt8(ascii: "f"): return try expect("false", .boolean(false))
            case UInt8(ascii: "n"): return try expect("null", .nil)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw error("unexpected character '\(Character(Unicode.Scalar(bytes[position])))'")
            }
        }

        mutating func parseObject(depth: Int) throws -> LuaValue {
            position += 1
            var table = LuaTable()
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .table(table)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw error("expected a string key")
                }
                let key = try parseString()
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
                position += 1
                skipWhitespace()
                table[key] = try parseValue(depth: depth + 1)
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end of input in an object") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard bytes[position] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
                position += 1
                return .table(table)
            }
        }

        mutating func parseArray(depth: Int) throws -> LuaValue {
            position += 1
            var table = LuaTable()
            var index: Int64 = 1
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .table(table)
            }
            while true {
                skipWhitespace()
                table[.integer(index)] = try parseValue(depth: depth + 1)
                index += 1
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end of input in an array") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard bytes[position] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
                position += 1
                return .table(table)
            }
        }

        mutating func parseString() throws -> String {
            position += 1
            var scalars = String.UnicodeScalarView()
            var run = position
            func flush(_ end: Int) throws {
                guard end > run else { return }
                guard let text = String(validating: bytes[run..<end], as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string")
                }
                scalars.append(contentsOf: text.unicodeScalars)
            }
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    try flush(position)
                    position += 1
                    return String(scalars)
                }
                if byte < 0x20 { throw error("control character in a string") }
                if byte == UInt8(ascii: "\\") {
                    try flush(position)
                    position += 1
                    guard position < bytes.count else { break }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"): scalars.append(try parseUnicodeEscape())
                    default: throw error("invalid escape")
                    }
                    run = position
                    continue
                }
                position += 1
            }
            throw error("unterminated string")
        }

        mutating func hex4() throws -> UInt32 {
            guard bytes.count - position >= 4,
                let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
            else { throw error("invalid \\u escape") }
            position += 4
            return value
        }

        mutating func parseUnicodeEscape() throws -> Unicode.Scalar {
            let high = try hex4()
            if (0xD800...0xDBFF).contains(high) {
                guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate") }
                position += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low),
                    let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                else { throw error("invalid surrogate pair") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else { throw error("unpaired surrogate") }
            return scalar
        }

        mutating func parseNumber() throws -> LuaValue {
            let start = position
            var isInteger = true
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            let digitsStart = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                position += 1
            }
            guard position > digitsStart else { throw error("invalid number") }
            if bytes[digitsStart] == UInt8(ascii: "0"), position - digitsStart > 1 { throw error("leading zero") }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                isInteger = false
                position += 1
                let fraction = position
                while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                    position += 1
                }
                guard position > fraction else { throw error("invalid number") }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                isInteger = false
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                    position += 1
                }
                let exponent = position
                while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                    position += 1
                }
                guard position > exponent else { throw error("invalid number") }
            }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            if isInteger, let integer = Int64(text) { return .integer(integer) }
            guard let double = Double(text) else { throw error("invalid number") }
            return .number(double)
        }
    }
}
