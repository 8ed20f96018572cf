import CCAIWire
import LuaRuntime

/// One Lua function of a module as a row: its Lua name, a named handler, the model its
/// arguments are read into and the models it returns. The signature in the LuaLS stubs and
/// the reference, and the check that refuses a field the model does not have, are derived
/// from the models, so a binding is declared once.
///
/// ```swift
/// static let rows: [Binding<RateService>] = [
///     Binding("get_survey", "The survey of a session's queue, in its language.", getSurvey, returns: [.model(Survey.self)]),
/// ]
/// static func getSurvey(_ service: RateService, _ request: Communication, _ call: LuaCall) throws -> LuaReturn { ... }
/// ```
struct Binding<Context> {
    /// The function's key in its module (`get_survey`).
    let name: String
    let signature: LuaSignature
    /// The Lua function for a context: it decodes the arguments, then calls the handler.
    let body: (@escaping (LuaCall) throws -> Context) -> LuaFunctionBody

    init<Arguments: BindingArguments>(_ name: String, _ summary: String,
                                      _ handler: @escaping (Context, Arguments, LuaCall) throws -> LuaReturn,
                                      returns: [ReturnType] = []) {
        self.name = name
        signature = LuaSignature(summary, described: Arguments.layout.parameters(of: Arguments.self),
                                 returns: returns.map(\.luaType))
        body = { context in
            { call in
                let arguments = try call.arguments(Arguments.self)
                return try handler(try context(call), arguments, call)
            }
        }
    }
}

extension LuaModule {
    /// Adds each row as a function whose handler gets `context` (the service, resolved at
    /// each call: `not_initialized` until the SDK has it). The rows stay one entry of the
    /// module: on a module made member by member, a state makes the function of a row when
    /// its script first reads it.
    mutating func functions<Context>(_ rows: [Binding<Context>], context: @escaping (LuaCall) throws -> Context) {
        members(BoundRows(rows: rows, context: context))
    }
}

/// A module's rows with the context their handlers get in one state.
private struct BoundRows<Context>: LuaMemberRows {
    let rows: [Binding<Context>]
    let context: (LuaCall) throws -> Context

    var count: Int { rows.count }

    func key(at index: Int) -> String { rows[index].name }

    func member(at index: Int) -> LuaModule.Member { .function(rows[index].body(context), rows[index].signature) }
}

/// The LuaLS type of one value a binding returns: a model's class name (``ResultClasses``)
/// or its shape, derived from the Swift type.
struct ReturnType {
    let luaType: String

    /// A model the binding encodes (``LuaEncoder``); `optional` when it may be nil.
    static func model<Model: Decodable>(_ type: Model.Type, optional: Bool = false) -> ReturnType {
        let schema = ResultClasses.schema
        let name = schema.classNames[ObjectIdentifier(type)] ?? ((try? schema.shape(of: type).luaType) ?? "any")
        return ReturnType(luaType: optional ? name + "?" : name)
    }

    /// Any number of values of a model, one result each (`ccai.ChatMessage...`).
    static func variadic<Model: Decodable>(_ type: Model.Type) -> ReturnType {
        ReturnType(luaType: model(type).luaType + "...")
    }

    /// A class made by hand, not by a model (``TypeStubs/classes``): `ccai.QueueMenus`.
    static func named(_ name: String) -> ReturnType { ReturnType(luaType: name) }
}
