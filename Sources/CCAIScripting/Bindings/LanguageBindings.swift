import CCAIKit
import LuaRuntime

/// `ccai.language` (seed 000's `languageService`): `get_language_code()` and, outside
/// plugins, `set_language_code(code)`.
enum LanguageBindings {
    static let readRows: [Binding<LanguageService>] = [
        Binding("get_language_code", "The SDK's language.", getLanguageCode, returns: [.model(String.self)]),
    ]

    static let writeRows: [Binding<LanguageService>] = [
        Binding("set_language_code", "Sets the language, before a session starts (a conflict while a chat is in progress).",
                setLanguageCode),
    ]

    /// `ccai.language`; without `set_language_code` unless `settable`.
    static func module(_ ccai: CCAI, settable: Bool = true) -> LuaModule {
        var module = LuaModule(name: "ccai.language")
        module.functions(settable ? readRows + writeRows : readRows) { try SDKBindings.require(ccai.languageService, $0) }
        return module
    }

    static func getLanguageCode(_ service: LanguageService, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        call.returning(.string(service.languageCode))
    }

    static func setLanguageCode(_ service: LanguageService, _ arguments: LanguageCodeArgument, _ call: LuaCall) throws -> LuaReturn {
        do {
            try service.setLanguageCode(arguments.value)
        } catch let error as any SDKError {
            throw SDKBindings.luaError(error, service: "language", method: "set_language_code")
        }
        return .none
    }
}

/// `ccai.language.set_language_code(code)`: a language code, not empty.
struct LanguageCodeArgument: ValueArgument {
    static let name = "language_code"
    var value: String

    func problem() -> ArgumentProblem? {
        value.isEmpty ? ArgumentProblem(nil, "a language code expected, got ''") : nil
    }
}
