import CLua
import CLuaShim

/// What a lazy table of a state becomes when a script reads it (``LuaCore/lazyTables``).
enum LuaLazyTable {
    /// A whole module, made when any key is first read (``LuaModule/lazy(name:_:)``).
    case module(LuaModule)
    /// A module's members not made yet, each made when its key is first read
    /// (``LuaModule/makesMembersOnFirstRead``).
    case members(LuaPendingMembers)
}

/// The members of a module whose table a state has made without them. A reference, so
/// that taking a member changes it in place: a state keeps one list, not a copy a member.
final class LuaPendingMembers {
    let moduleName: String
    let decorations: [LuaModule.Decoration]
    /// In the module's order; `on` and `wait_for` of an event emitter are two keys of one
    /// member, and rows of members are one entry for all of them not made yet.
    private var remaining: [(key: String, pending: Pending)]

    /// A member not made yet, in 24 bytes: a function's body alone (the signature documents
    /// the function; the state needs only its body), rows of members with which of them are
    /// made (a bit each), any other member boxed. Every state keeps a list of what its
    /// script has not read.
    private enum Pending {
        case function(LuaFunctionBody)
        indirect case rows(any LuaMemberRows, made: UInt64)
        indirect case other(LuaModule.Member)
    }

    init(_ module: LuaModule) {
        moduleName = module.name
        decorations = module.decorations
        let entries = module.built.entries
        remaining = []
        remaining.reserveCapacity(entries.count + 1)
        for entry in entries {
            switch entry {
            case .rows(let rows):
                // A bit a row: rows past 64 are split into slices of 64.
                for start in stride(from: 0, to: rows.count, by: 64) {
                    let slice = rows.count <= 64 ? rows : LuaMemberRowsSlice(rows, start..<min(start + 64, rows.count))
                    remaining.append(("", .rows(slice, made: 0)))
                }
            case let .member(_, member) where member.isEvents:
                remaining.append(("on", .other(member)))
                remaining.append(("wait_for", .other(member)))
            case let .member(key, .function(body, _)):
                remaining.append((key, .function(body)))
            case let .member(key, member):
                remaining.append((key, .other(member)))
            }
        }
    }

    var isEmpty: Bool { remaining.isEmpty }

    /// The keys of the members not made yet.
    var keys: [String] {
        remaining.flatMap { key, pending -> [String] in
            guard case let .rows(rows, made) = pending else { return [key] }
            return (0..<rows.count).filter { made & (1 << $0) == 0 }.map { rows.key(at: $0) }
        }
    }

    /// Removes and returns the member `key`, if it is not made yet: the last of a key given
    /// more than once, as a table made at once keeps it. The others of that key are
    /// dropped, never made: a script that sets the key to nil reads nil after it.
    func take(_ key: String) -> LuaModule.Member? {
        var taken: LuaModule.Member?
        for index in remaining.indices.reversed() {
            switch remaining[index].pending {
            case let .rows(rows, made):
                // No allocation: a read of a key the module does not have comes here too.
                var last: Int?, nowMade = made
                for row in 0..<rows.count where made & (1 << row) == 0 && rows.key(at: row) == key {
                    last = row
                    nowMade |= 1 << row
                }
                guard let last else { continue }
                if taken == nil { taken = rows.member(at: last) }
                if nowMade.nonzeroBitCount == rows.count {
                    remaining.remove(at: index)
                } else {
                    remaining[index].pending = .rows(rows, made: nowMade)
                }
            case .function(let body) where remaining[index].key == key:
                if taken == nil { taken = .function(body, nil) }
                remaining.remove(at: index)
            case .other(let member) where remaining[index].key == key:
                if taken == nil { taken = member }
                remaining.remove(at: index)
            case .function, .other:
                continue
            }
        }
        return taken
    }
}

/// Rows `range` of `base`, as rows of their own.
private struct LuaMemberRowsSlice: LuaMemberRows {
    let base: any LuaMemberRows
    let range: Range<Int>

    init(_ base: any LuaMemberRows, _ range: Range<Int>) {
        self.base = base
        self.range = range
    }

    var count: Int { range.count }

    func key(at index: Int) -> String { base.key(at: range.lowerBound + index) }

    func member(at index: Int) -> LuaModule.Member { base.member(at: range.lowerBound + index) }
}

private extension LuaModule.Member {
    var isEvents: Bool {
        if case .events = self { return true }
        return false
    }
}

/// Building the tables of modules in a state: all at once, when a script first reads them
/// (lazy modules), or member by member as a script reads them.
extension LuaContext {
    /// Pushes the table of `module`.
    func push(_ module: LuaModule) {
        if module.makesMembersOnFirstRead {
            pushLazyTable(.members(LuaPendingMembers(module)))
            decorate(module.decorations, of: module.name, at: nil)
            return
        }
        let members = module.members
        lua_checkstack(L, 4)
        lua_createtable(L, 0, Int32(members.count))
        for (key, member) in members {
            if case .events = member {
                for name in ["on", "wait_for"] {
                    pushMember(member, key: name, of: module.name)
                    lua_setfield(L, -2, name)
                }
                continue
            }
            pushMember(member, key: key, of: module.name)
            lua_setfield(L, -2, key)
        }
        decorate(module.decorations, of: module.name, at: nil)
        for key in Set(module.decorations.compactMap(\.member)).sorted() {
            decorate(module.decorations, of: module.name, at: key)
        }
    }

    /// Pushes the member `key` of the module `moduleName` on the main thread.
    private func pushMember(_ member: LuaModule.Member, key: String, of moduleName: String) {
        switch member {
        case .function(let body, _):
            core.pushFunction(QualifiedNames.of(moduleName, key), body)
        case .value(let value):
            LuaStack(L).push(value)
        case .module(let child) where child.isLazy:
            pushLazy(child)
        case .module(let child):
            push(child)
        case .readOnly(let table):
            pushReadOnly(table, named: "\(moduleName).\(key)")
        case .events(let emitter):
            if key == "wait_for" {
                core.pushFunction(QualifiedNames.of(moduleName, "wait_for")) { try emitter.waitFor($0) }
            } else {
                core.pushFunction(QualifiedNames.of(moduleName, "on")) { try emitter.on($0) }
            }
        }
    }

    /// Runs the decorators of the module `moduleName` that finish `member` (nil: the
    /// table's own) over the table on top of the main thread's stack (``LuaDecorator``).
    /// They are the host's code: one can fail only when the state is out of memory, which
    /// the script meets at its next allocation; the warning says which.
    private func decorate(_ all: [LuaModule.Decoration], of moduleName: String, at member: String?) {
        let decorations = all.filter { $0.member == member }
        guard !decorations.isEmpty else { return }
        lua_pushvalue(L, -1)
        let table = LuaReference(popping: L, core: core)
        for decoration in decorations {
            do {
                try run(decoration.decorator.chunk, with: [table] + decoration.helpers(self))
            } catch {
                core.diagnostics.warning("\(moduleName) could not be finished: \(error)")
            }
        }
    }

    /// Pushes an empty table that becomes `module` when a script first reads a key of it
    /// or iterates it (``LuaModule/lazy(name:_:)``).
    func pushLazy(_ module: LuaModule) {
        pushLazyTable(.module(module))
    }

    /// Pushes an empty table whose metatable's `__index` and `__pairs` fill it as `lazy`
    /// says (keys a script set first are kept), drop the metatable once it is full, and
    /// answer as the full table would. One metatable serves every lazy table of the state;
    /// it finds what a table becomes by the table (``LuaCore/lazyTables``).
    private func pushLazyTable(_ lazy: LuaLazyTable) {
        lua_checkstack(L, 4)
        lua_createtable(L, 0, 0)
        let id = core.addLazyTable(lazy)
        pushLazyIndex(on: L)
        lua_pushvalue(L, -2)
        lua_pushinteger(L, lua_Integer(id))
        lua_rawset(L, -3)
        lrt_pop(L, 1)
        lua_rawgeti(L, lrt_registryindex(), lua_Integer(core.lazyMetatable ?? makeLazyMetatable()))
        lua_setmetatable(L, -2)
    }

    /// Pushes on `L` the state's table from each unfilled lazy table to its id (weak
    /// keys: a table collected unread leaves nothing behind in it).
    private func pushLazyIndex(on L: OpaquePointer) {
        if let index = core.lazyIndex {
            lua_rawgeti(L, lrt_registryindex(), lua_Integer(index))
            return
        }
        lua_createtable(self.L, 0, 4)
        lua_createtable(self.L, 0, 1)
        lua_pushstring(self.L, "k")
        lua_setfield(self.L, -2, "__mode")
        lua_setmetatable(self.L, -2)
        lua_pushvalue(self.L, -1)
        core.lazyIndex = luaL_ref(self.L, lrt_registryindex())
        if L != self.L { lua_xmove(self.L, L, 1) }
    }

    /// The metatable of every lazy table of the state. Protected (`__metatable`): a script
    /// can neither read it, and so call its functions on other values, nor replace it and
    /// lose the members not made yet.
    private func makeLazyMetatable() -> Int32 {
        lua_createtable(L, 0, 3)
        lua_pushboolean(L, 0)
        lua_setfield(L, -2, "__metatable")
        core.pushFunction("lazy.__index") { call in
            guard lua_type(call.L, 1) == LUA_TTABLE else { throw call.argumentError(1, "t", "a table expected") }
            call.context.fillLazy(L: call.L, reading: .key(LuaStack(call.L).string(at: 2)))
            lua_pushvalue(call.L, 2)
            lua_rawget(call.L, 1)
            return LuaReturn(code: 1)
        }
        lua_setfield(L, -2, "__index")
        core.pushFunction("lazy.__pairs") { call in
            guard lua_type(call.L, 1) == LUA_TTABLE else { throw call.argumentError(1, "t", "a table expected") }
            call.context.fillLazy(L: call.L, reading: .everything)
            lua_getglobal(call.L, "next")
            lua_pushvalue(call.L, 1)
            lua_pushnil(call.L)
            return LuaReturn(code: 3)
        }
        lua_setfield(L, -2, "__pairs")
        let reference = luaL_ref(L, lrt_registryindex())
        core.lazyMetatable = reference
        return reference
    }

    /// What a script does with a lazy table: reads a key (nil when it is not a string),
    /// or iterates it.
    private enum LazyRead {
        case key(String?)
        case everything
    }

    /// Fills the lazy table at index 1 of `L` for `read`: a whole module at once; a module
    /// made member by member, the member read (every member left when it is iterated).
    private func fillLazy(L: OpaquePointer, reading read: LazyRead) {
        guard let id = lazyID(L: L), let lazy = core.lazyTables[id] else {
            finishLazy(L: L)
            return
        }
        switch (lazy, read) {
        case (.module(let module), _):
            let built = module.built
            guard built.makesMembersOnFirstRead else {
                core.lazyTables[id] = nil
                fill(lazy: built, L: L)
                finishLazy(L: L)
                return
            }
            // Read for the first time: from now on a table whose members are made as they
            // are read, finished by its decorators now as one made so from the start.
            core.lazyTables[id] = .members(LuaPendingMembers(built))
            lua_checkstack(self.L, 2)
            lua_pushvalue(L, 1)
            if L != self.L { lua_xmove(L, self.L, 1) }
            decorate(built.decorations, of: built.name, at: nil)
            lrt_pop(self.L, 1)
            fillLazy(L: L, reading: read)
            return
        case (.members(let pending), .key(let key)):
            guard let key, let member = pending.take(key) else { return }
            make(member, key: key, of: pending, L: L)
        case (.members(let pending), .everything):
            for key in pending.keys {
                if let member = pending.take(key) { make(member, key: key, of: pending, L: L) }
            }
        }
        guard case .members(let left) = lazy, left.isEmpty else { return }
        core.lazyTables[id] = nil
        finishLazy(L: L)
    }

    /// The id of the lazy table at index 1 of `L`, if it is still waiting to be filled.
    private func lazyID(L: OpaquePointer) -> Int? {
        lua_checkstack(L, 3)
        pushLazyIndex(on: L)
        lua_pushvalue(L, 1)
        let id = lua_rawget(L, -2) == LUA_TNUMBER ? Int(lua_tointegerx(L, -1, nil)) : nil
        lrt_pop(L, 2)
        return id
    }

    /// Forgets the lazy table at index 1 of `L` and drops its metatable: it is full.
    private func finishLazy(L: OpaquePointer) {
        lua_checkstack(L, 3)
        pushLazyIndex(on: L)
        lua_pushvalue(L, 1)
        lua_pushnil(L)
        lua_rawset(L, -3)
        lrt_pop(L, 1)
        lua_pushnil(L)
        lua_setmetatable(L, 1)
    }

    /// Makes `member`, taken from `pending` at `key`, in the lazy table at index 1 of `L`
    /// unless a script set the key first, then runs the decorators that finish it.
    private func make(_ member: LuaModule.Member, key: String, of pending: LuaPendingMembers, L: OpaquePointer) {
        lua_checkstack(L, 3)
        LuaStack(L).push(key)
        guard lua_rawget(L, 1) == LUA_TNIL else {
            lrt_pop(L, 1)
            return
        }
        lrt_pop(L, 1)
        lua_checkstack(self.L, 4)
        // Made on the state's main thread, as every table of functions is.
        lua_pushvalue(L, 1)
        if L != self.L { lua_xmove(L, self.L, 1) }
        pushMember(member, key: key, of: pending.moduleName)
        lua_setfield(self.L, -2, key)
        decorate(pending.decorations, of: pending.moduleName, at: key)
        lrt_pop(self.L, 1)
    }

    /// Fills the lazy table at index 1 of `L` with the members of `module` (made), keeping
    /// keys a script set first.
    private func fill(lazy module: LuaModule, L: OpaquePointer) {
        lua_checkstack(L, 6)
        // Made on the state's main thread, as every table of functions is, then moved to
        // the thread that asked (a coroutine's).
        push(module)
        lua_xmove(self.L, L, 1)
        let full = lua_gettop(L)
        lua_pushnil(L)
        while lua_next(L, full) != 0 {
            // key, value on top: keep a key the script set itself.
            lua_pushvalue(L, -2)
            if lua_rawget(L, 1) == LUA_TNIL {
                lrt_pop(L, 1)
                lua_pushvalue(L, -2)
                lua_rotate(L, -2, 1)
                lua_rawset(L, 1)
            } else {
                lrt_pop(L, 2)
            }
        }
        lrt_pop(L, 1)
    }
}
