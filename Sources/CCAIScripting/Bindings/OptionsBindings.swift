import CCAIKit
import LuaRuntime

/// `ccai.options` (seed 000's `optionsService`): `get()`, the options the SDK runs with.
enum OptionsBindings {
    static let rows: [Binding<OptionsService>] = [
        Binding("get", "The options the SDK runs with: key, url_host, base_url, cache_auth_token, language_code.", get,
                returns: [.model(SDKOptions.self)]),
    ]

    static func module(_ ccai: CCAI) -> LuaModule {
        var module = LuaModule(name: "ccai.options")
        module.functions(rows) { try SDKBindings.require(ccai.optionsService, $0) }
        return module
    }

    static func get(_ service: OptionsService, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let options = SDKOptions(key: service.key, urlHost: service.urlHost, baseUrl: service.baseURL,
                                 cacheAuthToken: service.cacheAuthToken, languageCode: service.languageCode)
        return call.returning(try LuaEncoder().encode(options))
    }
}

/// What `ccai.options.get()` returns.
struct SDKOptions: Codable {
    var key: String
    var urlHost: String
    var baseUrl: String
    var cacheAuthToken: Bool
    var languageCode: String
}
