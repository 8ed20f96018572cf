/// A model whose tables have methods in Lua: ``LuaEncoder`` marks each table it makes of
/// one with ``luaClassName``, and a state that defined the class
/// (``LuaContext/defineClass(_:methods:)``) gives the table that metatable when it is
/// pushed, so `value:method()` works wherever the value comes from (a result, an event).
///
/// ```swift
/// extension CallResponse: LuaClass { public static let luaClassName = "ccai.Call" }
/// lua.defineClass("ccai.Call", methods: methods)   // call:can_escalate(true)
/// ```
public protocol LuaClass {
    /// The class's name: its metatable's registry key and `__name`.
    static var luaClassName: String { get }
}
