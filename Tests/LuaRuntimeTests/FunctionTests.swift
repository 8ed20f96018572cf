import Foundation
import LuaRuntime
import Testing

/// A Swift object exposed to Lua, counting its own deinitialization.
final class Counter {
    nonisolated(unsafe) static var released = 0
    var value: Int64 = 0
    deinit { Counter.released += 1 }

    static let luaType = LuaUserdataType<Counter>(
        name: "Counter",
        methods: [
            "increment": { counter, call in
                counter.value += try call.optionalInteger(2, "by") ?? 1
                return call.returning(.integer(counter.value))
            }
        ],
        describe: { "Counter(\($0.value))" })
}

@Suite(.serialized) struct FunctionTests {
    /// Runs `source` in a state where `check(...)` is a binding reading arguments with
    /// `read`, and returns the message of the error it raised.
    private func errorMessage(_ source: String, _ read: @escaping (LuaCall) throws -> Void) async throws -> String? {
        let state = try makeState()
        return try await state.withContext { lua in
            lua.register("check") { call in
                try read(call)
                return .none
            }
            return try lua.evaluate("local ok, err = pcall(function() \(source) end) return err and err.message").first?
                .stringValue
        }
    }

    @Test func keptFunctionsAreCalledWithKeptTablesOfFunctions() async throws {
        let state = try makeState()
        try await state.run(source: "return function(agent, name) return agent.greet(name) .. '!' end", chunkName: "=script",
                            keepingResultAs: "script")
        var agent = LuaModule(name: "agent")
        agent.function("greet") { call in call.returning(.string("hi " + (try call.string(1, "name")))) }
        await state.withContext { $0.keep("agent", $0.makeTable(agent)) }
        let results = try await state.call(kept: "script", path: [], passing: [.kept("agent"), .value("Ana")])
        #expect(results == [.string("hi Ana!")])
        await #expect(throws: LuaScriptError.self, "a missing kept argument is an error, not a nil") {
            _ = try await state.call(kept: "script", path: [], passing: [.kept("nobody"), .value("Ana")])
        }
        #expect(try await state.call(kept: "nothing", path: [], passing: []) == nil)
    }

    /// A lazy module costs a state nothing until its script reads it: its members are made
    /// at the first key read (or `pairs`), once, and a key the script set first is kept.
    @Test func lazyModulesAreMadeWhenFirstReadAndOnce() async throws {
        let builds = BuildCount()
        func extra(_ name: String) -> LuaModule {
            .lazy(name: "svc.\(name)") {
                builds.add()
                var module = LuaModule(name: "svc.\(name)")
                module.function("hello") { call in call.returning(.string("hello from \(name)")) }
                module.value("kind", .string(name))
                return module
            }
        }
        var service = LuaModule(name: "svc")
        service.module(extra("extra"))
        service.module(extra("listed"))
        service.module(extra("preset"))
        let state = try makeState()
        await state.withContext { $0.setGlobal("svc", module: service) }
        #expect(builds.value == 0, "nothing is made with the state")
        let results = try await state.run(source: """
            local first = svc.extra.hello()
            local again = svc.extra.hello()
            local keys = {}
            for key in pairs(svc.listed) do keys[#keys + 1] = key end
            table.sort(keys)
            svc.preset.kind = "mine"
            return first, again, table.concat(keys, ","), svc.preset.kind, svc.preset.hello(), type(svc.extra)
            """, chunkName: "=lazy")
        #expect(results == [.string("hello from extra"), .string("hello from extra"), .string("hello,kind"), .string("mine"),
                            .string("hello from preset"), .string("table")])
        #expect(builds.value == 3, "each module made once")
    }

    /// A module made member by member holds only the members its script reads: each is
    /// made at its first read (a decorator of that member runs then), `pairs` makes the
    /// rest, a key the script set first is kept, and reads of other keys make nothing.
    @Test func membersAreMadeWhenTheirKeyIsFirstRead() async throws {
        let builds = BuildCount(), finished = BuildCount()
        var module = LuaModule(name: "svc")
        module.makesMembersOnFirstRead = true
        module.function("get") { call in call.returning(["id": .integer(try call.integer(1, "id"))]) }
        module.function("plain") { call in call.returning(.string("plain")) }
        module.value("kind", .string("service"))
        module.module(.lazy(name: "svc.items") {
            builds.add()
            var items = LuaModule(name: "svc.items")
            items.function("count") { call in call.returning(.integer(3)) }
            return items
        })
        module.decorate(with: Self.wrapper, member: "get") { lua in
            finished.add()
            return [lua.makeFunction("svc.describe") { call in
                call.returning(.string("item \(try call.table(1, "self")["id"]?.integerValue ?? 0)"))
            }]
        }
        let state = try makeState()
        await state.withContext { $0.setGlobal("svc", module: module) }
        #expect(finished.value == 0, "a member's decorator waits for the member")
        let results = try await state.run(source: Self.rawKeys + """
            local before = raw_keys(svc)
            local described = svc.get(7):describe()
            local none = tostring(svc.missing) .. "," .. tostring(svc[1])
            local after = raw_keys(svc)
            svc.plain = "mine"
            local keys = {}
            for key in pairs(svc) do keys[#keys + 1] = key end
            table.sort(keys)
            return before, described, none, after, table.concat(keys, ","), svc.plain, svc.items.count(), svc.get(8):describe()
            """, chunkName: "=members")
        #expect(results == [.string(""), .string("item 7"), .string("nil,nil"), .string("get"), .string("get,items,kind,plain"),
                            .string("mine"), .integer(3), .string("item 8")])
        #expect(finished.value == 1, "the decorator ran once, when get was made")
        #expect(builds.value == 1)
        let coroutine = try makeState()
        await installTasks(coroutine)
        await coroutine.withContext { $0.setGlobal("svc", module: module) }
        let fromTask = try await coroutine.run(source: """
            return rt.spawn(function() return svc.get(9):describe() end):wait(), svc.kind
            """, chunkName: "=task")
        #expect(fromTask == [.string("item 9"), .string("service")])
    }

    /// A lazy module made member by member: built when a script first reads a key of it,
    /// its table decorated then, and each member made as the script reads it, from a
    /// coroutine too; a member the script never reads is never made, and `pairs` makes the
    /// rest.
    @Test func aLazyModuleIsMadeMemberByMember() async throws {
        let builds = BuildCount(), decorated = BuildCount()
        var module = LuaModule(name: "svc")
        module.module(.lazy(name: "svc.chat") {
            builds.add()
            var chat = LuaModule(name: "svc.chat")
            chat.makesMembersOnFirstRead = true
            chat.function("start") { call in call.returning(.string("started")) }
            chat.function("send") { call in call.returning(.string("sent \(try call.string(1, "text"))")) }
            chat.function("unused") { call in call.returning(.nil) }
            chat.decorate(with: Self.tagger) { lua in
                decorated.add()
                return [lua.makeFunction("svc.chat.describe") { call in call.returning(.string("chat")) }]
            }
            return chat
        })
        let state = try makeState()
        await installTasks(state)
        await state.withContext { $0.setGlobal("svc", module: module) }
        let results = try await state.run(source: Self.rawKeys + """
            local chat = svc.chat
            local before = raw_keys(chat)
            local started = rt.spawn(function() return svc.chat.start() end):wait()
            local sent = chat.send("hi")
            local after = raw_keys(chat)
            local keys = {}
            for key in pairs(chat) do keys[#keys + 1] = key end
            table.sort(keys)
            return before, started, sent, after, table.concat(keys, ","), chat.kind, getmetatable(chat)
            """, chunkName: "=chat")
        #expect(results == [.string(""), .string("started"), .string("sent hi"), .string("kind,send,start"),
                            .string("kind,send,start,unused"), .string("chat"), .nil])
        #expect(builds.value == 1)
        #expect(decorated.value == 1, "the table's decorator ran once, when a key was first read (from a task)")
    }

    /// Rows of members (``LuaMemberRows``) are one entry of a module: a state makes the
    /// member of a row when its script first reads its key, the last of a key given twice
    /// (in the rows or after them; the others are never made, and a script that sets the
    /// key to nil reads nil), and every row left when the script iterates the table; a
    /// module made at once, and the module's list of members, have them all.
    @Test func rowsOfMembersAreMadeOneByOneWhenRead() async throws {
        let made = MadeRows()
        var module = LuaModule(name: "svc")
        module.makesMembersOnFirstRead = true
        module.members(CountedRows(names: ["get", "put", "get", "drop"], made: made))
        module.function("other") { call in call.returning(.string("other")) }
        module.function("drop") { call in call.returning(.string("drop, given last")) }
        var whole = LuaModule(name: "whole")
        whole.members(CountedRows(names: ["one", "two"], made: made))
        let bigMade = MadeRows()
        var big = LuaModule(name: "big")
        big.makesMembersOnFirstRead = true
        big.members(CountedRows(names: (0..<70).map { "f\($0)" }, made: bigMade))
        let state = try makeState()
        await state.withContext { lua in
            lua.setGlobal("svc", module: module)
            lua.setGlobal("whole", module: whole)
            lua.setGlobal("big", module: big)
        }
        #expect(made.indices == [0, 1], "a module made at once makes its rows")
        let results = try await state.run(source: Self.rawKeys + """
            local got = svc.get()
            local before = raw_keys(svc)
            local keys = {}
            for key in pairs(svc) do keys[#keys + 1] = key end
            table.sort(keys)
            local dropped = svc.drop()
            svc.drop = nil
            return got, before, svc.put(), table.concat(keys, ","), svc.other(), whole.two(), dropped, svc.drop
            """, chunkName: "=rows")
        #expect(results == [.string("get 2"), .string("get"), .string("put 1"), .string("drop,get,other,put"),
                            .string("other"), .string("two 1"), .string("drop, given last"), .nil])
        #expect(made.indices == [0, 1, 2, 1], "one function a row read, the last of a key given twice, none hidden made")
        let bigResults = try await state.run(source: """
            local first, last = big.f3(), big.f69()
            local count = 0
            for _ in pairs(big) do count = count + 1 end
            return first, last, count, big.f64()
            """, chunkName: "=big")
        #expect(bigResults == [.string("f3 3"), .string("f69 69"), .integer(70), .string("f64 64")])
        #expect(bigMade.indices.prefix(2) == [3, 69] && bigMade.indices.count == 70 && Set(bigMade.indices).count == 70,
                "rows past 64 are made one by one as well, each once")
        #expect(module.members.map(\.key) == ["get", "put", "get", "drop", "other", "drop"])
        #expect(module.functionNames == ["svc.get", "svc.put", "svc.get", "svc.drop", "svc.other", "svc.drop"])
    }

    /// The metatable that makes lazy tables is the host's: a script reads `false` for it and
    /// cannot replace it, so it can neither call its functions on other values (a number,
    /// the string metatable) nor lose the members not made yet.
    @Test func aScriptCannotReachTheMetatableOfALazyTable() async throws {
        var module = LuaModule(name: "svc")
        module.makesMembersOnFirstRead = true
        module.function("get") { call in call.returning(.integer(1)) }
        module.module(.lazy(name: "svc.items") {
            var items = LuaModule(name: "svc.items")
            items.function("count") { call in call.returning(.integer(3)) }
            return items
        })
        let state = try makeState()
        await state.withContext { $0.setGlobal("svc", module: module) }
        let results = try await state.run(source: """
            local replaced = pcall(setmetatable, svc, {})
            local cleared = pcall(setmetatable, svc.items, nil)
            return getmetatable(svc), getmetatable(svc.items), replaced, cleared, svc.get(), svc.items.count()
            """, chunkName: "=protected")
        #expect(results == [.boolean(false), .boolean(false), .boolean(false), .boolean(false), .integer(1), .integer(3)])
    }

    /// `raw_keys(t)`: the keys a table holds itself (no metamethod), sorted, joined by commas.
    static let rawKeys = """
        local function raw_keys(t)
          local keys = {}
          for key in next, t do keys[#keys + 1] = key end
          table.sort(keys)
          return table.concat(keys, ",")
        end

        """

    /// Finishes a table as a whole: sets its `kind`.
    static let tagger = LuaDecorator("""
        local module, describe = ...
        rawset(module, "kind", describe())
        """, chunkName: "=tagger")

    /// Wraps `get` so that its result carries a method, through a helper made in the state.
    static let wrapper = LuaDecorator("""
        local module, describe = ...
        local get = module.get
        local methods = { __index = { describe = describe } }
        module.get = function(...) return setmetatable(get(...), methods) end
        """, chunkName: "=wrapper")

    /// A decorator finishes a module's table in Lua each time a state builds it: with the
    /// module (a lazy one when a script first reads it, never before), with the helpers made
    /// in that state; it is compiled once, stripped (its own errors name no lines).
    @Test func decoratorsFinishAModuleWhenAStateBuildsIt() async throws {
        let helpers = BuildCount()
        func module(_ name: String) -> LuaModule {
            var module = LuaModule(name: name)
            module.function("get") { call in call.returning(["id": .integer(try call.integer(1, "id"))]) }
            module.decorate(with: Self.wrapper) { lua in
                helpers.add()
                return [lua.makeFunction("\(name).describe") { call in
                    call.returning(.string("item \(try call.table(1, "self")["id"]?.integerValue ?? 0)"))
                }]
            }
            return module
        }
        var service = LuaModule(name: "svc")
        service.module(.lazy(name: "svc.items") { module("svc.items") })
        var eager = module("eager")
        eager.module(service)
        let state = try makeState()
        await state.withContext { $0.setGlobal("eager", module: eager) }
        #expect(helpers.value == 1, "the eager module is finished with the state; the lazy one is not")
        let results = try await state.run(source: """
            local keys = {}
            for key in pairs(eager.svc.items) do keys[#keys + 1] = key end
            return eager.get(1):describe(), eager.svc.items.get(2):describe(), eager.svc.items.get(3):describe(), #keys
            """, chunkName: "=decorated")
        #expect(results == [.string("item 1"), .string("item 2"), .string("item 3"), .integer(1)])
        #expect(helpers.value == 2, "the lazy module was finished once, when first read")
        let other = try makeState()
        await other.withContext { $0.setGlobal("eager", module: eager) }
        #expect(try await other.run(source: "return eager.svc.items.get(4):describe()", chunkName: "=other") == [.string("item 4")])
        #expect(helpers.value == 4, "each state finishes its own tables")
    }

    @Test func argumentErrorsNameTheArgumentAndTheTypes() async throws {
        #expect(try await errorMessage("check()", { _ = try $0.number(1, "seconds") })
            == "bad argument #1 'seconds' to 'check' (number expected, got no value)")
        #expect(try await errorMessage("check(nil)", { _ = try $0.number(1) })
            == "bad argument #1 to 'check' (number expected, got nil)")
        #expect(try await errorMessage("check('x')", { _ = try $0.integer(1, "n") })
            == "bad argument #1 'n' to 'check' (integer expected, got string)")
        #expect(try await errorMessage("check(1.5)", { _ = try $0.integer(1, "n") })
            == "bad argument #1 'n' to 'check' (number has no integer representation)")
        #expect(try await errorMessage("check(1, {})", { _ = try $0.string(2, "name") })
            == "bad argument #2 'name' to 'check' (string expected, got table)")
        #expect(try await errorMessage("check(1)", { _ = try $0.boolean(1, "flag") })
            == "bad argument #1 'flag' to 'check' (boolean expected, got number)")
        #expect(try await errorMessage("check('f')", { _ = try $0.function(1, "handler") })
            == "bad argument #1 'handler' to 'check' (function expected, got string)")
        #expect(try await errorMessage("check(true)", { _ = try $0.table(1, "options") })
            == "bad argument #1 'options' to 'check' (table expected, got boolean)")
    }

    @Test func tableFieldErrorsNameTheField() async throws {
        #expect(try await errorMessage("check({ timeout = 'soon' })", { _ = try $0.options(1, "options").number("timeout") })
            == "bad argument #1 'options' to 'check' (field 'timeout': number expected, got string)")
        #expect(try await errorMessage("check({ match = 1 })", { _ = try $0.options(1).function("match") })
            == "bad argument #1 to 'check' (field 'match': function expected, got number)")
        #expect(try await errorMessage("check(5)", { _ = try $0.options(1, "options") })
            == "bad argument #1 'options' to 'check' (table expected, got number)")
    }

    @Test func argumentsAreReadWithTheirTypes() async throws {
        let state = try makeState()
        let results = try await state.withContext { lua in
            lua.register("describe") { call in
                let options = try call.options(5)
                return call.returning(
                    .integer(try call.integer(1)), .number(try call.number(2)), .string(try call.string(3)),
                    .boolean(try call.optionalBoolean(4) ?? false), .number(try options.number("timeout") ?? -1),
                    .string(try options.string("name") ?? "?"), .integer(Int64(call.argumentCount)))
            }
            return try lua.evaluate("return describe(7, 2, 12, nil, { timeout = 0.5, name = 'x' })")
        }
        #expect(results == [7, 2.0, "12", false, 0.5, "x", 5])
    }

    @Test func userdataHaveMethodsToStringAndRelease() async throws {
        Counter.released = 0
        let state = try makeState()
        let results = try await state.withContext { lua in
            lua.register("new_counter") { call in call.returning { $0.push(Counter(), as: Counter.luaType) } }
            return try lua.evaluate("""
                local c = new_counter()
                c:increment(); c:increment(5)
                local ok, err = pcall(c.increment, {})
                return c:increment(), tostring(c), getmetatable(c), err.message
                """)
        }
        #expect(results[0] == 7)
        #expect(results[1] == "Counter(7)")
        #expect(results[2] == false)
        #expect(results[3] == "bad argument #1 'self' to 'increment' (Counter expected, got table)")
        await state.withContext { $0.collectGarbage() }
        #expect(Counter.released == 1)
    }

    @Test func modulesBuildNestedTables() async throws {
        let state = try makeState()
        var module = LuaModule(name: "app")
        module.function("hello") { call in call.returning("hi") }
        module.value("version", "1.0")
        var nested = LuaModule(name: "app.math")
        nested.function("twice") { call in call.returning(.number(2 * (try call.number(1, "x")))) }
        module.module(nested)
        module.readOnly("config", LuaTable(fields: ["region": "eu"]))
        #expect(module.functionNames == ["app.hello", "app.math.twice"])
        let results = try await state.withContext { [module] lua in
            lua.setGlobal("app", module: module)
            return try lua.evaluate("""
                local ok, err = pcall(function() app.config.region = 'us' end)
                local keys = {}
                for k, v in pairs(app.config) do keys[#keys + 1] = k .. '=' .. v end
                local ok2, err2 = pcall(app.math.twice, 'x')
                return app.hello(), app.version, app.math.twice(21), ok, app.config.region, keys[1], tostring(err2)
                """)
        }
        #expect(results[0...4] == ["hi", "1.0", 42.0, false, "eu"])
        #expect(results[5] == "region=eu")
        #expect(results[6] == "app.math.twice: bad argument #1 'x' to 'twice' (number expected, got string) [invalid_argument]")
    }
}

/// The rows a test's ``CountedRows`` made, in order.
final class MadeRows: @unchecked Sendable {
    private let lock = NSLock()
    private var made: [Int] = []
    var indices: [Int] { lock.withLock { made } }
    func add(_ index: Int) { lock.withLock { made.append(index) } }
}

/// Rows of functions that return their name and index, each counted when it is made.
struct CountedRows: LuaMemberRows {
    let names: [String]
    let made: MadeRows

    var count: Int { names.count }

    func key(at index: Int) -> String { names[index] }

    func member(at index: Int) -> LuaModule.Member {
        made.add(index)
        let name = names[index]
        return .function({ call in call.returning(.string("\(name) \(index)")) }, LuaSignature("Row \(index)."))
    }
}
