/// How Swift property names map to Lua table keys.
public enum LuaKeyStrategy: Sendable {
    /// `postSessionOptInRequired` <-> `post_session_opt_in_required` (the default).
    case snakeCase
    /// Keys as the coding keys spell them.
    case useDefaultKeys

    func luaKey(for key: String) -> String {
        switch self {
        case .useDefaultKeys: return key
        case .snakeCase: return LuaKeyStrategy.snakeCased(key)
        }
    }

    /// `menuID` -> `menu_id`, `isMuted` -> `is_muted`, `URLString` -> `url_string`.
    ///
    /// Every model is encoded and decoded through this, key by key: a key that is already
    /// lowercase ASCII is returned as it is, and other ASCII keys are converted byte by
    /// byte; only keys with other characters take the Unicode-aware path.
    public static func snakeCased(_ key: String) -> String {
        var isLowercase = true
        var isASCII = true
        for byte in key.utf8 {
            if byte >= 0x80 { isASCII = false; break }
            if ASCII.isUppercase(byte) { isLowercase = false }
        }
        if isASCII { return isLowercase ? key : asciiSnakeCased(key) }
        return unicodeSnakeCased(key)
    }

    private static func asciiSnakeCased(_ key: String) -> String {
        let bytes = Array(key.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 4)
        for (index, byte) in bytes.enumerated() {
            if ASCII.isUppercase(byte), index > 0 {
                let previous = bytes[index - 1]
                let nextIsLowercase = index + 1 < bytes.count && ASCII.isLowercase(bytes[index + 1])
                if ASCII.isLowercase(previous) || ASCII.isDigit(previous)
                    || (ASCII.isUppercase(previous) && nextIsLowercase)
                {
                    result.append(UInt8(ascii: "_"))
                }
            }
            result.append(ASCII.isUppercase(byte) ? byte + 0x20 : byte)
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func unicodeSnakeCased(_ key: String) -> String {
        let characters = Array(key)
        var result = ""
        result.reserveCapacity(characters.count + 4)
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let startsWord = previous.isLowercase || previous.isNumber
                    || (previous.isUppercase && (next?.isLowercase ?? false))
                if startsWord, previous != "_" { result.append("_") }
            }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }

    private enum ASCII {
        static func isUppercase(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
        static func isLowercase(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
        static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    }
}

struct LuaCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}
