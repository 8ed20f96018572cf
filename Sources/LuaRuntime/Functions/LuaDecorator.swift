/// Lua code that finishes a module's table once its members are in it: what a binding
/// cannot do in Swift, such as wrapping a function in Lua that calls back into a script's
/// functions (which may suspend), or giving its results a method table. The code is
/// compiled once per process into stripped bytecode and runs in each state when the
/// module's table is built (for a lazy module, when a script first reads it; for a
/// decorator of one member of a module made member by member, when that member is made),
/// with the table as its first argument and `helpers` (functions made in that state) after it.
///
/// ```swift
/// static let wrapper = LuaDecorator("""
///     local menus, attach = ...
///     local get = menus.get
///     menus.get = function(...) return attach(get(...)) end
///     """, chunkName: "=ccai.queue_menu")
/// module.decorate(with: wrapper) { lua in [lua.makeFunction("ccai.queue_menu.attach", attach)] }
/// ```
public struct LuaDecorator: Sendable {
    let chunk: LuaChunk

    /// Compiles `source` once (``LuaChunk/init(host:chunkName:)``).
    public init(_ source: String, chunkName: String) {
        chunk = LuaChunk(host: source, chunkName: chunkName)
    }
}

extension LuaModule {
    /// A decorator with the helper functions it is run with, made in each state.
    struct Decoration {
        let decorator: LuaDecorator
        /// The member it finishes, or nil when it finishes the table.
        let member: String?
        let helpers: (LuaContext) -> [LuaReference]
    }

    /// Runs `decorator` over the module's table each time a state builds it, after its
    /// members are in it, with the functions `helpers` makes in that state. A decorator
    /// that only reads and replaces one member names it as `member`: on a module whose
    /// members are made on first read (``makesMembersOnFirstRead``), it then runs when
    /// that member is made, not with the table.
    public mutating func decorate(with decorator: LuaDecorator, member: String? = nil,
                                  helpers: @escaping (LuaContext) -> [LuaReference] = { _ in [] }) {
        decorations.append(Decoration(decorator: decorator, member: member, helpers: helpers))
    }
}
