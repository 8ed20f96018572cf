/// A declarative description of a Lua table of functions, values, nested modules and
/// event functions. One description serves to build the table in a state and to list
/// what it offers (for documentation and type stubs).
///
/// ```swift
/// var log = LuaModule(name: "ccai.log")
/// log.function("info") { call in print(try call.string(1, "message")); return .none }
/// var ccai = LuaModule(name: "ccai")
/// ccai.module(log)
/// context.setGlobal("ccai", module: ccai)
/// ```
public struct LuaModule {
    public enum Member {
        case function(LuaFunctionBody, LuaSignature?)
        case value(LuaValue)
        case module(LuaModule)
        /// `on` and `wait_for` of an event emitter.
        case events(LuaEventEmitter)
        /// A table scripts can read and iterate but not change.
        case readOnly(LuaTable)
    }

    /// One entry of a module as it is described: a member, or rows of members described
    /// once for every state (``members(_:)``).
    enum Entry {
        case member(key: String, Member)
        case rows(any LuaMemberRows)
    }

    /// The qualified name (`"ccai.log"`); the last component is its key in its parent.
    public let name: String
    /// The module's own entries, in the order they were added.
    private(set) var entries: [Entry] = []
    /// Makes the module's members when they are first needed (``lazy(name:_:)``).
    private var builder: (() -> LuaModule)?
    /// The Lua code that finishes the module's table (``decorate(with:helpers:)``).
    var decorations: [Decoration] = []

    /// What the module offers, each row listed as a member; a lazy module's are made now.
    public var members: [(key: String, member: Member)] {
        built.entries.flatMap { entry -> [(key: String, member: Member)] in
            switch entry {
            case let .member(key, member):
                return [(key, member)]
            case .rows(let rows):
                return (0..<max(0, rows.count)).map { (rows.key(at: $0), rows.member(at: $0)) }
            }
        }
    }

    /// The module with its members and decorations (a lazy module's, made now).
    var built: LuaModule { builder.map { $0() } ?? self }

    /// Whether a state gets the module's table only when a script first reads from it.
    public var isLazy: Bool { builder != nil }

    /// Whether a state makes each member when a script first reads its key (or iterates
    /// the table) rather than all of them with the table: a state then holds the functions
    /// and service tables its script reads, and an unread member costs it nothing. A
    /// decoration of one member (``decorate(with:member:helpers:)``) runs when that member
    /// is made. `rawget` and `next` see a member only once it is made.
    public var makesMembersOnFirstRead = false

    public init(name: String) {
        self.name = name
    }

    /// A module whose members `build` makes when a script first reads a key of its table
    /// (or iterates it), not when the state is made: a state holds the functions of the
    /// modules its script uses, and a module most scripts never touch costs them nothing.
    /// Documentation and stubs list its members as any other's. `build` must only describe
    /// the module (no side effects): it runs once per state that uses it, at that moment.
    ///
    /// ```swift
    /// ccai.module(.lazy(name: "ccai.apps") { AppsBindings.module(apps) })
    /// ```
    public static func lazy(name: String, _ build: @escaping () -> LuaModule) -> LuaModule {
        var module = LuaModule(name: name)
        module.builder = build
        return module
    }

    /// The key under which the module sits in its parent.
    public var key: String { name.split(separator: ".").last.map(String.init) ?? name }

    /// Adds a function; its `signature` documents it (type stubs, help).
    public mutating func function(_ key: String, _ signature: LuaSignature? = nil, _ body: @escaping LuaFunctionBody) {
        entries.append(.member(key: key, .function(body, signature)))
    }

    /// Adds the members of `rows`, described once for every state: a state whose module is
    /// made member by member (``makesMembersOnFirstRead``) makes a row's member only when
    /// its script reads that key, and keeps no more than which rows it has made.
    public mutating func members(_ rows: some LuaMemberRows) {
        entries.append(.rows(rows))
    }

    public mutating func value(_ key: String, _ value: LuaValue) {
        entries.append(.member(key: key, .value(value)))
    }

    public mutating func module(_ module: LuaModule) {
        entries.append(.member(key: module.key, .module(module)))
    }

    /// Adds a table scripts can read but not modify.
    public mutating func readOnly(_ key: String, _ table: LuaTable) {
        entries.append(.member(key: key, .readOnly(table)))
    }

    /// Adds `on(event, handler)` and `wait_for(event, options)` for `emitter`.
    public mutating func events(_ emitter: LuaEventEmitter) {
        entries.append(.member(key: "on", .events(emitter)))
    }

    /// The qualified names of every function, nested modules included.
    public var functionNames: [String] {
        members.flatMap { key, member -> [String] in
            switch member {
            case .function: return ["\(name).\(key)"]
            case .value, .readOnly: return []
            case .module(let module): return module.functionNames
            case .events: return ["\(name).on", "\(name).wait_for"]
            }
        }
    }
}

/// Members of a module as rows described once for the process (a binding's name,
/// signature and handler; a service's name and how its table is made), made into a
/// state's members one by one: a module built for each state then holds one entry for
/// them all, and a state makes the members its script reads (``LuaModule/members(_:)``).
/// A row is a function, a value, a module or a read-only table: an emitter's `on` and
/// `wait_for` are added with ``LuaModule/events(_:)``.
///
/// ```swift
/// struct Rows: LuaMemberRows {
///     static let names = ["get", "set"]
///     var count: Int { Self.names.count }
///     func key(at index: Int) -> String { Self.names[index] }
///     func member(at index: Int) -> LuaModule.Member { .function({ call in .none }, nil) }
/// }
/// ```
public protocol LuaMemberRows {
    /// How many members there are.
    var count: Int { get }
    /// The key of the member at `index` (0-based) in its module.
    func key(at index: Int) -> String
    /// The member at `index`, for the state the rows were added for; a function's
    /// signature documents it.
    func member(at index: Int) -> LuaModule.Member
}

/// What a function takes and returns, for documentation and type stubs.
///
/// ```swift
/// LuaSignature("Suspends the calling task.", parameters: ["seconds: number"])
/// LuaSignature("Reads the company.", returns: ["CompanyResponse"])
/// ```
public struct LuaSignature: Sendable, Equatable {
    public struct Parameter: Sendable, Equatable {
        public var name: String
        public var type: String
        public var isOptional: Bool

        public init(name: String, type: String, isOptional: Bool) {
            self.name = name
            self.type = type
            self.isOptional = isOptional
        }
    }

    public var summary: String
    public var parameters: [Parameter]
    public var returns: [String]

    /// Parameters are written `"name: type"`, or `"name?: type"` when optional.
    public init(_ summary: String, parameters: [String] = [], returns: [String] = []) {
        self.summary = summary
        self.parameters = parameters.map { text in
            let parts = text.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            var name = parts[0]
            let isOptional = name.hasSuffix("?")
            if isOptional { name.removeLast() }
            return Parameter(name: name, type: parts.count > 1 ? parts[1] : "any", isOptional: isOptional)
        }
        self.returns = returns
    }

    /// A signature whose parameters are already described (derived from an argument model).
    public init(_ summary: String, described parameters: [Parameter], returns: [String]) {
        self.summary = summary
        self.parameters = parameters
        self.returns = returns
    }
}
