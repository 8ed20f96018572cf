import CLua
import CLuaShim

/// A Lua value held by Swift: a function, table, userdata or thread kept alive in the
/// state's registry until the reference is released. Use it only on the state's executor
/// (inside a binding or ``LuaState/withContext(_:)``).
///
/// ```swift
/// let handler = try call.function(2, "handler")   // keeps the function alive
/// ```
public final class LuaReference {
    let id: Int32
    private weak var core: LuaCore?

    /// Takes the value on top of `L`'s stack (popping it).
    init(popping L: OpaquePointer, core: LuaCore) {
        id = luaL_ref(L, lrt_registryindex())
        self.core = core
    }

    deinit {
        guard let core, !core.isClosed else { return }
        luaL_unref(core.L, lrt_registryindex(), id)
    }

    /// Pushes the value on `L`.
    func push(on L: OpaquePointer) {
        lua_rawgeti(L, lrt_registryindex(), lua_Integer(id))
    }
}
