import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// The Lua bindings of the SDK's services, per the mapping rule of docs/sdk-and-sandbox.md: service
/// `fooService` is `ccai.foo`, method `fooBar(x:)` is `foo_bar`, properties are
/// `get_x`/`set_x`, results are tables with snake_case keys, errors are `ccai.Error`.
///
/// ```lua
/// local company = ccai.company.get()
/// ccai.language.set_language_code("es")
/// ```
enum SDKBindings {
    /// Adds the SDK's services to the `ccai` module.
    static func install(_ context: SDKContext, into module: inout LuaModule) {
        let ccai = context.sdk
        let smartActions = EventBridge.Started()   // the requests flow once chat or call is initialized
        module.function("initialize_chat", LuaSignature("Registers the chat module; ccai.chat works afterwards.",
                                                        parameters: ["options?: { greeting: string?, download_transcript_visibility: string|string[]? }"]),
                        ChatBindings.initializeFunction(context, smartActions: smartActions))
        module.module(ChatBindings.module(context))
        module.module(SmartActionBindings.module(context))
        module.module(RateBindings.module(ccai))
        module.function("initialize_screen_share", LuaSignature("Registers screen sharing; ccai.screen_share works afterwards and chats start screen-shareable.",
                                                                parameters: ["options?: { key: string?, domain: string? }"]),
                        ScreenShareBindings.initializeFunction(context))
        module.module(ScreenShareBindings.module(context))
        module.function("initialize_call", LuaSignature("Registers the call module; ccai.call works afterwards.",
                                                        parameters: ["options?: { play_audible_messages: boolean?, call_kit_enabled: boolean? }"]),
                        CallBindings.initializeFunction(context, smartActions: smartActions))
        module.module(CallBindings.module(context))
        module.module(CallBindings.audibleMessageModule(ccai))
        module.module(PushBindings.module(context))
        let (voipSignature, voipBody) = PushBindings.handleVoIPPush(ccai)
        module.function("handle_voip_push", voipSignature, voipBody)
        PushBindings.install(background: ccai, into: &module)
        module.module(auth(ccai))
        module.module(company(ccai))
        module.module(endUser(ccai))
        module.module(language(ccai))
        module.module(QueueMenuBindings.module(ccai))
        module.module(options(ccai))
    }

    /// The services a plugin may call (``PluginModule``): the company, the language (read
    /// only), the queue menus and their wait times.
    static func installReadOnly(_ ccai: CCAI, into module: inout LuaModule) {
        module.module(company(ccai))
        module.module(language(ccai, settable: false))
        module.module(QueueMenuBindings.module(ccai))
    }

    static func options(_ ccai: CCAI) -> LuaModule {
        var options = LuaModule(name: "ccai.options")
        options.function("get", LuaSignature("The options the SDK runs with: key, url_host, base_url, cache_auth_token, language_code.",
                                             returns: ["table"])) { call in
            let service = try require(ccai.optionsService, call)
            return call.returning([
                "key": .string(service.key), "url_host": .string(service.urlHost), "base_url": .string(service.baseURL),
                "cache_auth_token": .boolean(service.cacheAuthToken), "language_code": .string(service.languageCode),
            ])
        }
        return options
    }

    static func auth(_ ccai: CCAI) -> LuaModule {
        var auth = LuaModule(name: "ccai.auth")
        auth.function("authenticate", LuaSignature("Exchanges a JWT signed with the company secret for an auth token.",
                                                   parameters: ["jwt: string"], returns: ["string"])) { call in
            let jwt = try call.optionalString(1, "jwt") ?? (try call.options(1, "options").string("jwt"))
            guard let jwt else { throw call.argumentError(1, "jwt", "a JWT string expected") }
            let service = try require(ccai.authService, call)
            return try sdk(call) { try await service.authenticate(jwt) }
        }
        auth.function("update_auth_token", LuaSignature("Sets the auth token, or clears it with nil (which revokes it on the platform and waits for that).",
                                                        parameters: ["token?: string"])) { call in
            let service = try require(ccai.authService, call)
            guard let token = try call.optionalString(1, "token") else {
                return try sdk(call, { try await service.signOut() }) { _, _ in }
            }
            service.updateAuthToken(token)
            return .none
        }
        auth.function("get_auth_token", LuaSignature("The auth token in use, if any.", returns: ["string?"])) { call in
            let service = try require(ccai.authService, call)
            return call.returning(service.authToken.map { .string($0) } ?? .nil)
        }
        return auth
    }

    static func company(_ ccai: CCAI) -> LuaModule {
        var company = LuaModule(name: "ccai.company")
        company.function("get", LuaSignature("The company's settings.", returns: ["ccai.CompanyResponse"])) { call in
            let service = try require(ccai.companyService, call)
            return try sdk(call) { try await service.get() }
        }
        return company
    }

    static func endUser(_ ccai: CCAI) -> LuaModule {
        var endUser = LuaModule(name: "ccai.end_user")
        endUser.function("get_end_user", LuaSignature("The end user the SDK holds.", returns: ["ccai.EndUser?"])) { call in
            let service = try require(ccai.endUserService, call)
            return call.returning(try service.endUser.map { try LuaEncoder().encode($0) } ?? .nil)
        }
        endUser.function("update_end_user", LuaSignature("Replaces the end user the SDK holds (nil clears it); the next authentication is for this identity. Refused (conflict) while a chat of another end user is in progress.",
                                                     parameters: ["end_user?: ccai.EndUser"])) { call in
            let service = try require(ccai.endUserService, call)
            if call.isNil(1) {
                service.updateEndUser(nil)
                return .none
            }
            let table = try call.table(1, "end_user")
            let user: EndUser
            do {
                user = try LuaDecoder().decode(EndUser.self, from: .table(table))
            } catch let error as DecodingError {
                throw call.argumentError(1, "end_user", describe(error))
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
        endUser.function("fetch", LuaSignature("Reads the end user's profile from the platform.", returns: ["ccai.EndUser"])) { call in
            let service = try require(ccai.endUserService, call)
            return try sdk(call) { try await service.fetch() }
        }
        endUser.function("save", LuaSignature("Saves name, email and phone on the platform.",
                                          parameters: ["end_user: ccai.EndUser"], returns: ["ccai.EndUser"])) { call in
            let service = try require(ccai.endUserService, call)
            let user: EndUser
            do {
                user = try LuaDecoder().decode(EndUser.self, from: .table(try call.table(1, "end_user")))
            } catch let error as DecodingError {
                throw call.argumentError(1, "end_user", describe(error))
            }
            return try sdk(call) { try await service.save(user) }
        }
        return endUser
    }

    /// `ccai.language`; without `set_language_code` unless `settable`.
    static func language(_ ccai: CCAI, settable: Bool = true) -> LuaModule {
        var language = LuaModule(name: "ccai.language")
        language.function("get_language_code", LuaSignature("The SDK's language.", returns: ["string"])) { call in
            let service = try require(ccai.languageService, call)
            return call.returning(.string(service.languageCode))
        }
        guard settable else { return language }
        language.function("set_language_code", LuaSignature("Sets the language, before a session starts (a conflict while a chat is in progress).",
                                                        parameters: ["language_code: string"])) { call in
            let service = try require(ccai.languageService, call)
            let code = try call.string(1, "language_code")
            guard !code.isEmpty else { throw call.argumentError(1, "language_code", "a language code expected, got ''") }
            do {
                try service.setLanguageCode(code)
            } catch let error as any SDKError {
                throw luaError(error, service: "language", method: "set_language_code")
            }
            return .none
        }
        return language
    }

    // MARK: - Helpers

    /// The service and method a binding is registered as, from its qualified name:
    /// `ccai.chat.start` -> `("chat", "start")`, `ccai.plugins.run_post_session` ->
    /// `("plugins", "run_post_session")`. Errors carry them; no binding spells them again.
    static func serviceAndMethod(of call: LuaCall) -> (service: String, method: String) {
        var parts = call.functionName.split(separator: ".").map(String.init)
        if parts.first == "ccai" { parts.removeFirst() }
        let method = parts.popLast() ?? call.functionName
        return (parts.isEmpty ? "ccai" : parts.joined(separator: "."), method)
    }

    /// The service, or `not_initialized` naming the binding's service and method.
    static func require<Service>(_ service: Service?, _ call: LuaCall) throws -> Service {
        guard let service else {
            let (name, method) = serviceAndMethod(of: call)
            throw LuaErrorValue(code: ErrorCode.notInitialized.rawValue, message: "the SDK is not initialized",
                                fields: ["service": .string(name), "method": .string(method)])
        }
        return service
    }

    /// Runs an async SDK call from Lua: suspends the coroutine, returns the result as a
    /// table, raises `ccai.Error` with the binding's service and method. In a scenario's
    /// VU, the call is timed (``SDKMetricsRecorder``).
    static func sdk<Result: Encodable & Sendable>(_ call: LuaCall, _ operation: @escaping @Sendable () async throws -> Result)
        throws -> LuaReturn
    {
        try sdk(call, operation) { result, output in output.push(try LuaEncoder().encode(result)) }
    }

    /// The same, with the results pushed by `push` (several, or with methods).
    static func sdk<Result: Sendable>(_ call: LuaCall, _ operation: @escaping @Sendable () async throws -> Result,
                                      push: @escaping (Result, inout LuaOutput) throws -> Void) throws -> LuaReturn {
        let (service, method) = serviceAndMethod(of: call)
        guard let recorder = call.context.attachment(SDKMetricsRecorder.self) else {
            return try call.suspend({
                do {
                    return try await operation()
                } catch let error as any SDKError {
                    throw luaError(error, service: service, method: method)
                }
            }, then: push)
        }
        let began = recorder.begin()
        return try call.suspend({
            do {
                let result = try await operation()
                recorder.end(service: service, method: method, began: began, status: "ok", result: result)
                return result
            } catch let error as any SDKError {
                recorder.end(service: service, method: method, began: began, status: error.code.rawValue, result: nil)
                throw luaError(error, service: service, method: method)
            } catch {
                recorder.end(service: service, method: method, began: began, status: "error", result: nil)
                throw error
            }
        }, then: push)
    }

    /// An SDK error as scripts get it: a `ccai.Error` with its code and message, the
    /// service and method, `retryable`, and the HTTP `status` when there is one.
    static func luaError(_ error: any SDKError, service: String, method: String) -> LuaErrorValue {
        var fields: [String: LuaValue] = ["service": .string(service), "method": .string(method), "retryable": .boolean(error.retryable)]
        if let status = error.status { fields["status"] = .integer(Int64(status)) }
        return LuaErrorValue(code: error.code.rawValue, message: error.message, fields: fields)
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let field = context.codingPath.map { LuaKeyStrategy.snakeCased($0.stringValue) }.joined(separator: ".")
            return "field '\(field)': \(context.debugDescription)"
        case .keyNotFound(let key, _):
            return "field '\(LuaKeyStrategy.snakeCased(key.stringValue))' is required"
        @unknown default:
            return "unexpected shape"
        }
    }
}
