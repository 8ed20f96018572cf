import CCAIKit
import CCAIWire
import LuaRuntime

/// `ccai.company` (seed 000's `companyService`): `get()`, the company's settings.
enum CompanyBindings {
    static let rows: [Binding<CompanyService>] = [
        Binding("get", "The company's settings.", get, returns: [.model(CompanyResponse.self)]),
    ]

    static func module(_ ccai: CCAI) -> LuaModule {
        var module = LuaModule(name: "ccai.company")
        module.functions(rows) { try SDKBindings.require(ccai.companyService, $0) }
        return module
    }

    static func get(_ service: CompanyService, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call) { try await service.get() }
    }
}
