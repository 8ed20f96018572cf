import CLua
import CLuaShim
import Foundation

/// The synchronous view of a state, valid on its executor only: inside
/// ``LuaState/withContext(_:)`` or a binding (``LuaCall/context``).
///
/// ```swift
/// try await lua.withContext { lua in
///     lua.register("double") { call in call.returning(.number(2 * (try call.number(1)))) }
///     return try lua.evaluate("return double(21)")       // [42.0]
/// }
/// ```
public struct LuaContext {
    let core: LuaCore

    var L: OpaquePointer { core.L }

    // MARK: - Attachments

    /// Keeps `value` with the state, one per type, for bindings that were not handed it
    /// when they were registered (a recorder every SDK call reports to, say).
    ///
    /// ```swift
    /// lua.attach(recorder)
    /// call.context.attachment(Recorder.self)?.record(...)
    /// ```
    public func attach<Value>(_ value: Value) {
        core.attachments[ObjectIdentifier(Value.self)] = value
    }

    /// The value of type `Value` attached to the state, if any.
    public func attachment<Value>(_ type: Value.Type) -> Value? {
        core.attachments[ObjectIdentifier(type)] as? Value
    }

    // MARK: - Globals

    /// Makes `body` the global function `name`.
    public func register(_ name: String, _ body: @escaping LuaFunctionBody) {
        core.pushFunction(name, body)
        setGlobalFromTop(name)
    }

    public func setGlobal(_ name: String, _ value: LuaValue) {
        LuaStack(L).push(value)
        setGlobalFromTop(name)
    }

    /// Makes the value held by `reference` the global `name`.
    public func setGlobal(_ name: String, reference: LuaReference) {
        reference.push(on: L)
        setGlobalFromTop(name)
    }

    /// Makes a read-only view of `table` the global `name`: a script reads it, and a write
    /// is an error naming it (`attempt to modify read-only env (key 'AGENTS')`).
    public func setGlobal(_ name: String, readOnly table: LuaTable) {
        pushReadOnly(table, named: name)
        setGlobalFromTop(name)
    }

    /// Builds `module`'s table and makes it the global `name`.
    public func setGlobal(_ name: String, module: LuaModule) {
        push(module)
        setGlobalFromTop(name)
    }

    /// A global's value as data (nil when absent or not data).
    public func global(_ name: String) -> LuaValue {
        lrt_getglobal_table(L)
        LuaStack(L).push(name)
        lua_rawget(L, -2)
        defer { lrt_pop(L, 2) }
        return (try? LuaStack(L).value(at: -1)) ?? .nil
    }

    private func setGlobalFromTop(_ name: String) {
        lrt_getglobal_table(L)
        lrt_insert(L, -2)
        LuaStack(L).push(name)
        lrt_insert(L, -2)
        lua_rawset(L, -3)
        lrt_pop(L, 1)
    }

    // MARK: - Modules and events

    /// A new event emitter for the module `name` that emits `events`.
    public func makeEmitter(name: String, events: Set<String>, bufferCapacity: Int = 1_000) -> LuaEventEmitter {
        LuaEventEmitter(name: name, events: events, bufferCapacity: bufferCapacity, core: core)
    }

    /// Begins a new round of events (a scenario's iteration): the events every emitter kept
    /// for a later `wait_for` are dropped, and the `on` subscriptions made during the last
    /// round are cancelled. Those made before the first round (by a file's top level) stay.
    public func beginEventRound() {
        for emitter in core.emitters { emitter.beginRound(cancellingFrom: 1) }
        core.eventRound += 1
    }

    /// Pushes a read-only view of `table`; a write names it (`attempt to modify read-only
    /// ccai.env (key 'X')`).
    func pushReadOnly(_ table: LuaTable, named name: String) {
        guard let proxy = core.readOnlyProxy else {
            LuaStack(L).push(table)
            return
        }
        proxy.push(on: L)
        LuaStack(L).push(table)
        LuaStack(L).push(name)
        if lrt_pcall(L, 2, 1) != LUA_OK {
            lrt_pop(L, 1)
            LuaStack(L).push(table)
        }
    }

    /// Keeps the value of `reference` under `name`, for ``LuaState/call(kept:path:arguments:)``.
    public func keep(_ name: String, _ reference: LuaReference) {
        core.keptValues[name] = reference
    }

    /// Makes `module` available to `require(name)` (before files are searched).
    public func provideModule(_ name: String, _ reference: LuaReference) {
        core.hostModules[name] = reference
    }

    /// Defines the class `name` (``LuaClass``): tables marked with it get `module`'s
    /// functions as methods when they are pushed, and `tostring` shows the name. The
    /// metatable is protected, as the runtime's others are: `getmetatable` answers the
    /// name, and a script cannot swap or strip it.
    ///
    /// ```swift
    /// var methods = LuaModule(name: "ccai.Call")
    /// methods.function("can_escalate", signature) { call in ... }   // call:can_escalate(true)
    /// lua.defineClass("ccai.Call", methods: methods)
    /// ```
    public func defineClass(_ name: String, methods: LuaModule) {
        lua_checkstack(L, 3)
        lua_createtable(L, 0, 3)
        lua_pushstring(L, name)
        lua_setfield(L, -2, "__name")
        lua_pushstring(L, name)
        lua_setfield(L, -2, "__metatable")
        push(methods)
        lua_setfield(L, -2, "__index")
        lua_setfield(L, lrt_registryindex(), name)
    }

    /// A reference to a new table built from `module`.
    public func makeTable(_ module: LuaModule) -> LuaReference {
        push(module)
        return LuaReference(popping: L, core: core)
    }

    // MARK: - Running code synchronously

    /// Compiles `source` (text only) and runs it to completion on the main thread.
    /// Code run this way cannot suspend: use ``LuaState/run(source:chunkName:)`` for that.
    @discardableResult
    public func evaluate(_ source: String, chunkName: String = "=evaluate") throws -> [LuaValue] {
        try load(source, chunkName: chunkName)
        return try callTop(arguments: [])
    }

    /// A Lua function running `body`, held by the returned reference.
    public func makeFunction(_ qualifiedName: String, _ body: @escaping LuaFunctionBody) -> LuaReference {
        core.pushFunction(qualifiedName, body)
        return LuaReference(popping: L, core: core)
    }

    /// Runs `chunk` (compiled once: ``LuaState/compile(_:chunkName:stripped:)``) with
    /// `arguments` (references: tables, functions...), to completion. For host code that
    /// decorates what the host installed (``LuaDecorator``).
    public func run(_ chunk: LuaChunk, with arguments: [LuaReference]) throws {
        try load(chunk)
        lua_checkstack(L, Int32(arguments.count))
        for argument in arguments { argument.push(on: L) }
        let base = lua_gettop(L) - Int32(arguments.count) - 1
        guard lrt_pcall(L, Int32(arguments.count), 0) == LUA_OK else {
            throw core.scriptError(status: LUA_ERRRUN, on: L, traceback: nil)
        }
        lua_settop(L, base)
    }

    /// Calls a function held by `reference` with `arguments`, to completion.
    @discardableResult
    public func call(_ reference: LuaReference, _ arguments: [LuaValue] = []) throws -> [LuaValue] {
        reference.push(on: L)
        return try callTop(arguments: arguments)
    }

    /// Pushes the compiled chunk, or throws its syntax error.
    func load(_ source: String, chunkName: String) throws {
        var source = source
        let status = source.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { lrt_load_text(L, $0.baseAddress, $0.count, chunkName) }
        }
        guard status == LUA_OK else {
            throw core.scriptError(status: status, on: L, traceback: nil)
        }
    }

    /// Pushes the function of a compiled chunk (or throws, when the state has no memory for it).
    func load(_ chunk: LuaChunk) throws {
        let status = chunk.bytecode.withUnsafeBytes { bytes in
            lrt_load_binary(L, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, chunk.chunkName)
        }
        guard status == LUA_OK else {
            throw core.scriptError(status: status, on: L, traceback: nil)
        }
    }

    private func callTop(arguments: [LuaValue]) throws -> [LuaValue] {
        if let kill = core.killError { lrt_pop(L, 1); throw kill }
        let base = lua_gettop(L) - 1
        lua_checkstack(L, Int32(arguments.count))
        for argument in arguments { LuaStack(L).push(argument) }
        let status = lrt_pcall(L, Int32(arguments.count), LUA_MULTRET)
        guard status == LUA_OK else {
            let message = LuaStack(L).string(at: -1)
            var error = core.scriptError(status: status, on: L, traceback: nil)
            if let message, let split = message.range(of: "\nstack traceback:") {
                error.message = String(message[..<split.lowerBound])
                error.traceback = String(message[split.lowerBound...].dropFirst())
                if case .string = error.value { error.value = .string(error.message) }
            }
            throw error
        }
        let count = lua_gettop(L) - base
        defer { lua_settop(L, base) }
        return (0..<count).map { (try? LuaStack(L).value(at: base + 1 + $0)) ?? .nil }
    }

    // MARK: - State

    /// The actor owning this state, to come back to it from other tasks.
    public var state: LuaState? { core.owner }

    /// Whether the state was closed.
    public var isClosed: Bool { core.isClosed }

    /// The main thread's `lua_State`, for benchmarks that compare against the raw C API.
    @_spi(Benchmarks) public var rawState: OpaquePointer { L }

    /// Bytes the state currently uses.
    public var memoryUsed: Int { Int(core.context.pointee.memory_used) }

    /// Runs a full garbage collection.
    public func collectGarbage() { lrt_gc_collect(L) }

    /// The state's budgets; setting them applies to the next run between yields.
    public var limits: LuaLimits {
        get { core.limits }
        nonmutating set { core.apply(newValue) }
    }

    /// Renames the type of structured errors (`__name`), e.g. `"ccai.Error"`.
    public func setErrorTypeName(_ name: String) { core.setErrorTypeName(name) }
}
