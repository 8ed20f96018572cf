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
    private let lifetime: LuaLifetime

    /// Takes the value on top of `L`'s stack (popping it).
    init(popping L: OpaquePointer, core: LuaCore) {
        id = luaL_ref(L, lrt_registryindex())
        lifetime = core.lifetime
    }

    /// Takes ownership of an existing registry slot.
    init(adopting id: Int32, core: LuaCore) {
        self.id = id
        lifetime = core.lifetime
    }

    deinit {
        guard !lifetime.isClosed else { return }
        luaL_unref(lifetime.L, lrt_registryindex(), id)
    }

    /// Pushes the value on `L`.
    func push(on L: OpaquePointer) {
        lua_rawgeti(L, lrt_registryindex(), lua_Integer(id))
    }
}

/// Whether a state is still open, shared by everything that may outlive it. (A weak
/// reference to the state's owner would do, at the price of slower reference counting
/// on the hottest object.)
final class LuaLifetime {
    let L: OpaquePointer
    var isClosed = false

    init(_ L: OpaquePointer) { self.L = L }
}
