import ErrorCodes

/// A structured error raised into Lua: scripts receive a table with `code`, `message`,
/// `function` (the binding that raised it) and any extra `fields`.
///
/// Throw it (or any error conforming to ``LuaErrorConvertible``) from a Swift binding:
///
/// ```swift
/// throw LuaErrorValue(code: .notFound, message: "no queue 12")
/// ```
///
/// In Lua, `tostring(err)` is `"<function>: <message> [<code>]"` and `pcall` catches it.
public struct LuaErrorValue: Error, Equatable, Sendable, LuaErrorConvertible {
    /// The code as Lua reads it: an ``ErrorCode``'s text, or any string a script raised.
    public var code: String
    public var message: String
    /// The qualified name of the function that raised it (`"ccai.sleep"`); set by the
    /// runtime when the error crosses a binding, unless already set.
    public var function: String?
    public var fields: [String: LuaValue]

    public init(code: String, message: String, function: String? = nil, fields: [String: LuaValue] = [:]) {
        self.code = code
        self.message = message
        self.function = function
        self.fields = fields
    }

    /// An error with one of the contract's codes.
    public init(code: ErrorCode, message: String, function: String? = nil, fields: [String: LuaValue] = [:]) {
        self.init(code: code.rawValue, message: message, function: function, fields: fields)
    }

    /// The contract's code, when ``code`` is one of them (a script may raise any string).
    public var errorCode: ErrorCode? { ErrorCode(rawValue: code) }

    public var luaError: LuaErrorValue { self }

    /// The error table pushed into Lua (without its metatable).
    public var table: LuaTable {
        var table = LuaTable()
        for (key, value) in fields { table[key] = value }
        table["code"] = .string(code)
        table["message"] = .string(message)
        if let function { table["function"] = .string(function) }
        return table
    }

    /// Reads a structured error back from its table; nil when `value` is not one.
    public init?(_ value: LuaValue) {
        guard let table = value.tableValue, let code = table["code"]?.stringValue,
            let message = table["message"]?.stringValue
        else { return nil }
        var fields: [String: LuaValue] = [:]
        for (key, value) in table.fields {
            guard let key = key.stringValue, !["code", "message", "function"].contains(key) else { continue }
            fields[key] = value
        }
        self.init(code: code, message: message, function: table["function"]?.stringValue, fields: fields)
    }
}

extension LuaErrorValue: CustomStringConvertible {
    /// The same text as `tostring(err)` in Lua.
    public var description: String {
        (function.map { "\($0): " } ?? "") + "\(message) [\(code)]"
    }
}

/// An error that knows how it looks in Lua. Errors that do not conform cross as
/// `internal` errors carrying their description.
public protocol LuaErrorConvertible: Error {
    var luaError: LuaErrorValue { get }
}

/// Codes the runtime itself raises; higher layers add their own.
extension LuaErrorValue {
    public static func invalidArgument(_ message: String) -> LuaErrorValue {
        LuaErrorValue(code: .invalidArgument, message: message)
    }

    public static func cancelled(_ message: String = "the task was cancelled") -> LuaErrorValue {
        LuaErrorValue(code: .cancelled, message: message)
    }

    public static func timeout(_ message: String, function: String? = nil) -> LuaErrorValue {
        LuaErrorValue(code: .timeout, message: message, function: function)
    }

    public static func limitExceeded(_ message: String, limit: String) -> LuaErrorValue {
        LuaErrorValue(code: .limitExceeded, message: message, fields: ["limit": .string(limit)])
    }

    public static func internalError(_ message: String) -> LuaErrorValue {
        LuaErrorValue(code: .internal, message: message)
    }

    /// Converts any Swift error to what Lua sees.
    public static func from(_ error: Error) -> LuaErrorValue {
        if let convertible = error as? LuaErrorConvertible { return convertible.luaError }
        if error is CancellationError { return .cancelled() }
        if let script = error as? LuaScriptError, let structured = script.structured { return structured }
        return .internalError(String(describing: error))
    }
}
