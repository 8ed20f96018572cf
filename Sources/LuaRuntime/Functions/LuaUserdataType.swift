import CLua
import CLuaShim

/// How Swift objects of one class appear in Lua: a userdata with a protected metatable,
/// methods called with `:`, `__tostring`, and a `__gc` that releases the object.
///
/// ```swift
/// let counterType = LuaUserdataType<Counter>(name: "Counter", methods: [
///     "increment": { counter, call in counter.value += 1; return call.returning(.integer(counter.value)) },
/// ])
/// context.register("new_counter") { call in call.returning { $0.push(Counter(), as: counterType) } }
/// ```
///
/// Method bodies read their own arguments from index 2 (`self` is argument 1).
public struct LuaUserdataType<Object: AnyObject> {
    public typealias Method = (Object, LuaCall) throws -> LuaReturn

    /// The type's name, as Lua's messages and `tostring` show it.
    public let name: String
    let methods: [String: Method]
    let describe: ((Object) -> String)?

    public init(name: String, methods: [String: Method] = [:], describe: ((Object) -> String)? = nil) {
        self.name = name
        self.methods = methods
        self.describe = describe
    }

    func metatable(in core: LuaCore) -> Int32 {
        core.metatable(named: name) {
            let L = core.L
            let type = self
            lua_createtable(L, 0, Int32(methods.count))
            for (methodName, method) in methods.sorted(by: { $0.key < $1.key }) {
                core.pushFunction("\(name):\(methodName)") { call in
                    try method(try call.userdata(1, type, "self"), call)
                }
                lua_setfield(L, -2, methodName)
            }
            lua_setfield(L, -2, "__index")
            core.pushFunction("\(name).__gc") { call in
                if let slot = lua_touserdata(call.L, 1)?.assumingMemoryBound(to: UnsafeRawPointer?.self),
                    let pointer = slot.pointee
                {
                    slot.pointee = nil
                    Unmanaged<AnyObject>.fromOpaque(pointer).release()
                }
                return .none
            }
            lua_setfield(L, -2, "__gc")
            core.pushFunction("\(name).__tostring") { call in
                guard let object = type.object(at: 1, on: call.L, core: call.core) else {
                    return call.returning(.string("\(type.name) (released)"))
                }
                let text = type.describe?(object) ?? "\(type.name): \(String(describing: lua_topointer(call.L, 1)!))"
                return call.returning(.string(text))
            }
            lua_setfield(L, -2, "__tostring")
            lua_pushboolean(L, 0)
            lua_setfield(L, -2, "__metatable")
        }
    }

    func push(_ object: Object, on L: OpaquePointer, core: LuaCore) {
        let metatable = metatable(in: core)
        let slot = lua_newuserdatauv(L, MemoryLayout<UnsafeRawPointer?>.size, 0)!
            .assumingMemoryBound(to: UnsafeRawPointer?.self)
        slot.pointee = UnsafeRawPointer(Unmanaged.passRetained(object as AnyObject).toOpaque())
        lua_rawgeti(L, lrt_registryindex(), lua_Integer(metatable))
        lua_setmetatable(L, -2)
    }

    func object(at index: Int32, on L: OpaquePointer, core: LuaCore) -> Object? {
        guard lua_type(L, index) == LUA_TUSERDATA, let raw = lua_touserdata(L, index),
            lua_getmetatable(L, index) != 0
        else { return nil }
        lua_rawgeti(L, lrt_registryindex(), lua_Integer(metatable(in: core)))
        let matches = lua_rawequal(L, -1, -2) != 0
        lrt_pop(L, 2)
        guard matches, let pointer = raw.assumingMemoryBound(to: UnsafeRawPointer?.self).pointee else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() as? Object
    }
}
