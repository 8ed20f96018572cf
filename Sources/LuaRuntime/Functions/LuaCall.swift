import CLua
import CLuaShim
import Foundation

/// One call of a Swift function from Lua: typed access to its arguments and a way to
/// return results. Valid only while the body runs.
///
/// Argument errors name the argument and what was expected, the way Lua's own do:
/// `bad argument #1 'seconds' to 'sleep' (number expected, got nil)`.
///
/// ```swift
/// context.register("add") { call in
///     let a = try call.number(1, "a"), b = try call.number(2, "b")
///     return call.returning(.number(a + b))
/// }
/// ```
public struct LuaCall {
    let L: OpaquePointer
    /// Unowned: the state keeps the box alive for longer than any call.
    unowned(unsafe) let function: LuaFunctionBox

    /// The qualified name of the function (`"ccai.sleep"`).
    public var functionName: String { function.qualifiedName }

    /// How many arguments were passed.
    public var argumentCount: Int { Int(lua_gettop(L)) }

    /// Where in the script the call was made (`"quickstart.lua:12"`), when known.
    public var callerLocation: String? {
        var buffer = [CChar](repeating: 0, count: 512)
        guard lrt_caller_location(L, 1, &buffer, buffer.count) != 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    var core: LuaCore {
        Unmanaged<LuaCore>.fromOpaque(lrt_context_of(L).pointee.owner).takeUnretainedValue()
    }

    var stack: LuaStack { LuaStack(L) }

    /// The synchronous view of the state this call runs in.
    public var context: LuaContext { LuaContext(core: core) }

    // MARK: - Errors

    /// The `invalid_argument` error for argument `index`.
    public func argumentError(_ index: Int, _ name: String?, _ problem: String) -> LuaErrorValue {
        let label = name.map { " '\($0)'" } ?? ""
        return .invalidArgument("bad argument #\(index)\(label) to '\(function.shortName)' (\(problem))")
    }

    func typeError(_ index: Int, _ name: String?, expected: String) -> LuaErrorValue {
        argumentError(index, name, "\(expected) expected, got \(stack.typeName(at: Int32(index)))")
    }

    func pushRaised(_ error: Error) {
        if let raised = error as? LuaRaisedReference {
            raised.reference.push(on: L)
            return
        }
        if let script = error as? LuaScriptError, script.structured == nil {
            stack.push(script.value)
            return
        }
        var value = LuaErrorValue.from(error)
        if value.function == nil { value.function = function.qualifiedName }
        stack.pushError(value, metatable: core.errorMetatable)
    }

    // MARK: - Arguments

    func type(_ index: Int) -> Int32 { lua_type(L, Int32(index)) }

    /// Whether argument `index` is absent or nil.
    public func isNil(_ index: Int) -> Bool { lrt_isnoneornil(L, Int32(index)) != 0 }

    public func integer(_ index: Int, _ name: String? = nil) throws -> Int64 {
        guard let value = try optionalInteger(index, name) else { throw typeError(index, name, expected: "integer") }
        return value
    }

    public func optionalInteger(_ index: Int, _ name: String? = nil) throws -> Int64? {
        if isNil(index) { return nil }
        var isInteger: Int32 = 0
        let value = lrt_tointeger(L, Int32(index), &isInteger)
        guard type(index) == LUA_TNUMBER else { throw typeError(index, name, expected: "integer") }
        guard isInteger != 0 else { throw argumentError(index, name, "number has no integer representation") }
        return value
    }

    public func number(_ index: Int, _ name: String? = nil) throws -> Double {
        guard let value = try optionalNumber(index, name) else { throw typeError(index, name, expected: "number") }
        return value
    }

    public func optionalNumber(_ index: Int, _ name: String? = nil) throws -> Double? {
        if isNil(index) { return nil }
        guard type(index) == LUA_TNUMBER else { throw typeError(index, name, expected: "number") }
        return lrt_tonumber(L, Int32(index), nil)
    }

    /// A string argument (numbers are accepted and formatted, as Lua does).
    public func string(_ index: Int, _ name: String? = nil) throws -> String {
        guard let value = try optionalString(index, name) else { throw typeError(index, name, expected: "string") }
        return value
    }

    public func optionalString(_ index: Int, _ name: String? = nil) throws -> String? {
        if isNil(index) { return nil }
        switch type(index) {
        case LUA_TSTRING:
            return stack.string(at: Int32(index)) ?? String(decoding: stack.data(at: Int32(index))!, as: UTF8.self)
        case LUA_TNUMBER:
            return try value(index).description
        default:
            throw typeError(index, name, expected: "string")
        }
    }

    /// A string argument's bytes, binary-safe.
    public func data(_ index: Int, _ name: String? = nil) throws -> Data {
        guard type(index) == LUA_TSTRING, let data = stack.data(at: Int32(index)) else {
            throw typeError(index, name, expected: "string")
        }
        return data
    }

    public func boolean(_ index: Int, _ name: String? = nil) throws -> Bool {
        guard let value = try optionalBoolean(index, name) else { throw typeError(index, name, expected: "boolean") }
        return value
    }

    public func optionalBoolean(_ index: Int, _ name: String? = nil) throws -> Bool? {
        if isNil(index) { return nil }
        guard type(index) == LUA_TBOOLEAN else { throw typeError(index, name, expected: "boolean") }
        return lua_toboolean(L, Int32(index)) != 0
    }

    /// Any argument as data (tables converted deeply).
    public func value(_ index: Int, _ name: String? = nil) throws -> LuaValue {
        do {
            return try stack.value(at: Int32(index))
        } catch let error as LuaConversionError {
            throw argumentError(index, name, error.message)
        }
    }

    /// A table argument as data.
    public func table(_ index: Int, _ name: String? = nil) throws -> LuaTable {
        guard type(index) == LUA_TTABLE else { throw typeError(index, name, expected: "table") }
        return try value(index, name).tableValue ?? LuaTable()
    }

    /// A function argument, kept alive by the returned reference.
    public func function(_ index: Int, _ name: String? = nil) throws -> LuaReference {
        guard let value = try optionalFunction(index, name) else { throw typeError(index, name, expected: "function") }
        return value
    }

    public func optionalFunction(_ index: Int, _ name: String? = nil) throws -> LuaReference? {
        if isNil(index) { return nil }
        guard type(index) == LUA_TFUNCTION else { throw typeError(index, name, expected: "function") }
        return reference(index)
    }

    /// A reference to whatever argument `index` is.
    public func reference(_ index: Int) -> LuaReference {
        lua_pushvalue(L, Int32(index))
        return LuaReference(popping: L, core: core)
    }

    /// The fields of an options table (an absent argument reads as an empty table).
    public func options(_ index: Int, _ name: String? = nil) throws -> LuaOptions {
        guard isNil(index) || type(index) == LUA_TTABLE else { throw typeError(index, name, expected: "table") }
        return LuaOptions(call: self, index: index, name: name)
    }

    /// The options table at `index`, where a method with one parameter may also be given
    /// it alone (LUA-API section 1): `cancel_scheduled_call(7)` reads as
    /// `cancel_scheduled_call{ call_id = 7 }` when `key` is `"call_id"`. A value that is
    /// neither a table nor nil becomes `{ [key] = value }` in the argument's place.
    public func options(_ index: Int, _ name: String? = nil, positional key: String) throws -> LuaOptions {
        if !isNil(index), type(index) != LUA_TTABLE {
            lua_checkstack(L, 2)
            lua_createtable(L, 0, 1)
            lua_pushvalue(L, Int32(index))
            lua_setfield(L, -2, key)
            lua_copy(L, -1, Int32(index))
            lrt_pop(L, 1)
        }
        return try options(index, name)
    }

    /// The Swift object of a userdata argument of `type`.
    public func userdata<Object: AnyObject>(_ index: Int, _ type: LuaUserdataType<Object>, _ name: String? = nil)
        throws -> Object
    {
        guard let object = type.object(at: Int32(index), on: L, core: core) else {
            throw typeError(index, name, expected: type.name)
        }
        return object
    }

    // MARK: - Results

    /// Returns the given values.
    public func returning(_ values: LuaValue...) -> LuaReturn {
        lua_checkstack(L, Int32(values.count))
        for value in values { stack.push(value) }
        return LuaReturn(code: Int32(values.count))
    }

    /// Returns the values an `output` closure pushes.
    public func returning(_ build: (inout LuaOutput) throws -> Void) rethrows -> LuaReturn {
        var output = LuaOutput(L: L, core: core)
        try build(&output)
        return LuaReturn(code: output.count)
    }

    // MARK: - Suspending

    /// Suspends the calling coroutine until `operation` finishes, then returns its values
    /// (or raises its error) in Lua. An operation that completes without suspending
    /// returns at once, without a yield.
    ///
    /// ```swift
    /// context.register("sleep") { call in
    ///     let seconds = try call.number(1, "seconds")
    ///     return try call.suspend { try await Task.sleep(for: .seconds(seconds)); return [] }
    /// }
    /// ```
    public func suspend(_ operation: @escaping @Sendable () async throws -> [LuaValue]) throws -> LuaReturn {
        try suspend(operation) { values, output in
            for value in values { output.push(value) }
        }
    }

    /// Suspends until `operation` finishes, then pushes its result with `push` on the
    /// state's executor (where references and userdata can be made). `told`, if given, sees
    /// the outcome first, on the thread that ends the operation, and may change it (an SDK
    /// call times itself and names its error there): the task running `operation` holds
    /// nothing but `operation`'s own frames while it waits.
    public func suspend<Result: Sendable>(
        _ operation: @escaping @Sendable () async throws -> Result,
        told: (@Sendable (Swift.Result<Result, any Error>) -> Swift.Result<Result, any Error>)? = nil,
        then push: @escaping (Result, inout LuaOutput) throws -> Void
    ) throws -> LuaReturn {
        try checkYieldable()
        let pending = LuaPendingOperation()
        let finisher = Self.finisher(of: pending, pushing: push, function: function.qualifiedName)
        let finish: @Sendable (Swift.Result<Result, any Error>) -> Void
        if let told {
            finish = { finisher(told($0)) }
        } else {
            finish = finisher
        }
        pending.task = Task.immediate {
            do {
                finish(.success(try await operation()))
            } catch {
                finish(.failure(error))
            }
        }
        return try yield(until: pending)
    }

    /// Suspends until the operation that `start` begins hands its outcome to the `finish`
    /// it is given (once, from any thread), then pushes the result with `push` on the
    /// state's executor. No task waits meanwhile: an operation that runs in a task of its
    /// own (a message in its chat's outbox) costs that one task, not a second one waiting
    /// for it. The coroutine ending first (the VU stopped) does not stop the operation; its
    /// outcome is dropped. An operation that finishes before `start` returns returns at
    /// once, without a yield.
    public func suspend<Result: Sendable>(
        starting start: (_ finish: @escaping @Sendable (Swift.Result<Result, any Error>) -> Void) -> Void,
        then push: @escaping (Result, inout LuaOutput) throws -> Void
    ) throws -> LuaReturn {
        try checkYieldable()
        let pending = LuaPendingOperation()
        start(Self.finisher(of: pending, pushing: push, function: function.qualifiedName))
        return try yield(until: pending)
    }

    /// What completes `pending` with an operation's outcome: its result pushed by `push`, or
    /// its error, naming `function` when the error names none.
    private static func finisher<Result: Sendable>(
        of pending: LuaPendingOperation, pushing push: @escaping (Result, inout LuaOutput) throws -> Void, function: String
    ) -> @Sendable (Swift.Result<Result, any Error>) -> Void {
        let pusher = UncheckedSendable(push)
        return { outcome in
            switch outcome {
            case .success(let result):
                pending.complete(.success(UncheckedSendable({ output in try pusher.value(result, &output) })))
            case .failure(let error):
                var value = LuaErrorValue.from(error)
                if value.function == nil { value.function = function }
                pending.complete(.failure(value))
            }
        }
    }

    /// Returns `pending`'s results at once if it has finished; otherwise yields until it does.
    private func yield(until pending: LuaPendingOperation) throws -> LuaReturn {
        if let outcome = pending.takeOutcome() {
            switch outcome {
            case .success(let push):
                return try returning { try push.value(&$0) }
            case .failure(let error):
                throw error
            }
        }
        core.pendingSuspension = .operation(pending)
        return .yield
    }

    /// Suspends the coroutine on a scheduler-level wait (another task, an event).
    func suspend(_ suspension: LuaSuspension) throws -> LuaReturn {
        try checkYieldable()
        core.pendingSuspension = suspension
        return .yield
    }

    /// Lets every other ready task run, then continues (`sleep(0)`).
    func yieldToOtherTasks() throws -> LuaReturn {
        try checkYieldable()
        core.pendingSuspension = nil
        return .yield
    }

    private func checkYieldable() throws {
        guard lua_isyieldable(L) != 0 else {
            throw LuaErrorValue(
                code: .invalidArgument,
                message: "'\(function.shortName)' suspends and cannot be called here"
                    + " (from a metamethod, an iterator or a callback run by C code)")
        }
    }
}

/// Values pushed as results of a call or of a finished async operation.
public struct LuaOutput {
    let L: OpaquePointer
    let core: LuaCore
    public private(set) var count: Int32 = 0

    init(L: OpaquePointer, core: LuaCore) {
        self.L = L
        self.core = core
    }

    public mutating func push(_ value: LuaValue) {
        lua_checkstack(L, 1)
        LuaStack(L).push(value)
        count += 1
    }

    public mutating func push(_ reference: LuaReference) {
        lua_checkstack(L, 1)
        reference.push(on: L)
        count += 1
    }

    /// Pushes `object` as a userdata of `type`.
    public mutating func push<Object: AnyObject>(_ object: Object, as type: LuaUserdataType<Object>) {
        lua_checkstack(L, 1)
        type.push(object, on: L, core: core)
        count += 1
    }

    /// Pushes a structured error value (to return `nil, err` style results).
    public mutating func push(_ error: LuaErrorValue) {
        lua_checkstack(L, 1)
        LuaStack(L).pushError(error, metatable: core.errorMetatable)
        count += 1
    }
}

/// Wraps a value that crosses to another isolation domain only to come back to its owner.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
