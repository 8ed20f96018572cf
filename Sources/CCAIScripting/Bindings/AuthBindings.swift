import CCAIKit
import LuaRuntime

/// `ccai.auth` (seed 000's `authService`): `authenticate(jwt)`, `update_auth_token(token)`
/// (nil signs out), `get_auth_token()`.
enum AuthBindings {
    static let rows: [Binding<AuthService>] = [
        Binding("authenticate", "Exchanges a JWT signed with the company secret for an auth token.", authenticate,
                returns: [.model(String.self)]),
        Binding("update_auth_token", "Sets the auth token, or clears it with nil (which revokes it on the platform and waits "
                + "for that).", updateAuthToken),
        Binding("get_auth_token", "The auth token in use, if any.", getAuthToken, returns: [.model(String.self, optional: true)]),
    ]

    static func module(_ ccai: CCAI) -> LuaModule {
        var module = LuaModule(name: "ccai.auth")
        module.functions(rows) { try SDKBindings.require(ccai.authService, $0) }
        return module
    }

    static func authenticate(_ service: AuthService, _ arguments: JWTArgument, _ call: LuaCall) throws -> LuaReturn {
        try SDKBindings.sdk(call) { try await service.authenticate(arguments.jwt) }
    }

    static func updateAuthToken(_ service: AuthService, _ arguments: TokenArgument, _ call: LuaCall) throws -> LuaReturn {
        guard let token = arguments.value else {
            return try SDKBindings.sdk(call, { try await service.signOut() }) { _, _ in }
        }
        service.updateAuthToken(token)
        return .none
    }

    static func getAuthToken(_ service: AuthService, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        call.returning(service.authToken.map { .string($0) } ?? .nil)
    }
}

/// `ccai.auth.authenticate(jwt)`, or `{ jwt = ... }`.
struct JWTArgument: BindingArguments {
    static let layout = ArgumentLayout.positional("jwt", field: "jwt")
    var jwt: String
}

/// `ccai.auth.update_auth_token(token)`: a token, or nil to sign out.
struct TokenArgument: ValueArgument {
    static let name = "token"
    var value: String?
}
