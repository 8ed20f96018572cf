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
    public static func snakeCased(_ key: String) -> String {
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
