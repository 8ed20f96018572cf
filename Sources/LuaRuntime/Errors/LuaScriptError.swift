/// An error raised by Lua code (or by the runtime's limits), as Swift sees it.
///
/// ```swift
/// do { try await lua.run(source: "error('boom')", chunkName: "=demo") }
/// catch let error as LuaScriptError { print(error.message, error.traceback ?? "") }
/// ```
public struct LuaScriptError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// An error raised while running (`error()`, a failed operation, a binding's error).
        case runtime
        /// The chunk did not compile.
        case syntax
        /// The state's memory cap was reached.
        case memory
        /// The instruction or wall-clock budget ran out; the state is dead.
        case limit
        /// The task was cancelled.
        case cancelled
    }

    public var kind: Kind
    /// The error's text: the message of a string error, `tostring` of any other value.
    public var message: String
    /// The error value itself, when it is data (a string or a structured error table).
    public var value: LuaValue
    /// Lua's stack traceback where the error was raised, when known.
    public var traceback: String?

    public init(kind: Kind, message: String, value: LuaValue? = nil, traceback: String? = nil) {
        self.kind = kind
        self.message = message
        self.value = value ?? .string(message)
        self.traceback = traceback
    }

    /// The structured error, when the value is one.
    public var structured: LuaErrorValue? { LuaErrorValue(value) }

    /// The structured error's code (`"limit_exceeded"`, `"timeout"`...), when there is one.
    public var code: String? { structured?.code }

    public var description: String {
        guard let traceback, !traceback.isEmpty else { return message }
        return message + "\n" + traceback
    }
}
