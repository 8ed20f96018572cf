import CCAIKit
import CCAIWire
import LuaRuntime

/// `ccai.end_user` (seed 000's `endUserService`): `get_end_user()`, `update_end_user(user)`
/// (nil clears it), `fetch()`, `save(user)`.
enum EndUserBindings {
    static let rows: [Binding<CCAI>] = [
        Binding("get_end_user", "The end user the SDK holds.", getEndUser, returns: [.model(EndUser.self, optional: true)]),
        Binding("update_end_user", "Replaces the end user the SDK holds (nil clears it); the next authentication is for this "
                + "identity. Refused (conflict) while a chat of another end user is in progress.", updateEndUser),
        Binding("fetch", "Reads the end user's profile from the platform.", fetch, returns: [.model(EndUser.self)]),
        Binding("save", "Saves name, email and phone on the platform.", save, returns: [.model(EndUser.self)]),
    ]

    static func module(_ ccai: CCAI) -> LuaModule {
        var module = LuaModule(name: "ccai.end_user")
        module.functions(rows) { _ in ccai }
        return module
    }

    static func getEndUser(_ ccai: CCAI, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = try SDKBindings.require(ccai.endUserService, call)
        return call.returning(try service.endUser.map { try LuaEncoder().encode($0) } ?? .nil)
    }

    static func updateEndUser(_ ccai: CCAI, _ arguments: OptionalEndUserArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = try SDKBindings.require(ccai.endUserService, call)
        guard let user = arguments.value else {
            service.updateEndUser(nil)
            return .none
        }
        if let current = service.endUser?.identifier, current != user.identifier,
            let chat = ccai.chatService?.currentChat, chat.isInProgress
        {
            // The chat is the current end user's: as another one, its next call would be refused.
            throw LuaErrorValue(code: ErrorCode.conflict.rawValue,
                                message: "chat \(chat.id) is in progress as \(current): end it (ccai.chat.end_chat()) before "
                                    + "becoming another end user; in a scenario each VU is one end user for the whole run, "
                                    + "so more customers are more VUs (options.vus)",
                                fields: ["service": "end_user", "method": "update_end_user"])
        }
        service.updateEndUser(user)
        return .none
    }

    static func fetch(_ ccai: CCAI, _: NoArguments, _ call: LuaCall) throws -> LuaReturn {
        let service = try SDKBindings.require(ccai.endUserService, call)
        return try SDKBindings.sdk(call) { try await service.fetch() }
    }

    static func save(_ ccai: CCAI, _ arguments: EndUserArgument, _ call: LuaCall) throws -> LuaReturn {
        let service = try SDKBindings.require(ccai.endUserService, call)
        return try SDKBindings.sdk(call) { try await service.save(arguments.value) }
    }
}

/// `ccai.end_user.save(user)`: an end user table (`ccai.EndUser`).
struct EndUserArgument: ValueArgument {
    static let name = "end_user"
    var value: EndUser
}

/// `ccai.end_user.update_end_user(user)`: an end user table, or nil to clear it.
struct OptionalEndUserArgument: ValueArgument {
    static let name = "end_user"
    var value: EndUser?
}
