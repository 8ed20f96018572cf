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
    /// Adds the SDK's services to the `ccai` module. Each is lazy (``service(_:_:)``): a VU
    /// pays for the functions its script reads, and a chat bot reads none of the calls',
    /// screen shares' or the Apps API's, and few of the chat's. A module's table is made
    /// from the same context when first read; none starts anything (the `initialize_*`
    /// functions start the event bridges).
    static func install(_ context: SDKContext, into module: inout LuaModule) {
        let ccai = context.sdk
        InitializationBindings.install(context, into: &module)
        module.module(service(EventService.chat.module) { ChatBindings.module(context) })
        module.module(service(EventService.smartAction.module) { SmartActionBindings.module(context) })
        module.module(service("ccai.rate") { RateBindings.module(ccai) })
        module.module(service(EventService.screenShare.module) { ScreenShareBindings.module(context) })
        module.module(service(EventService.call.module) { CallBindings.module(context) })
        module.module(service("ccai.audible_message") { CallBindings.audibleMessageModule(ccai) })
        module.module(service(EventService.push.module) { PushBindings.module(context) })
        PushBindings.install(app: ccai, into: &module)
        module.module(service("ccai.auth") { AuthBindings.module(ccai) })
        module.module(service("ccai.company") { CompanyBindings.module(ccai) })
        module.module(service("ccai.end_user") { EndUserBindings.module(ccai) })
        module.module(service("ccai.language") { LanguageBindings.module(ccai) })
        module.module(.lazy(name: "ccai.queue_menu") { QueueMenuBindings.module(ccai) })
        module.module(service("ccai.options") { OptionsBindings.module(ccai) })
        let (apps, appsEvents, webhooks) = (context.apps, context.emitters[.apps], context.webhooks)
        module.module(service(EventService.apps.module) { AppsBindings.module(apps, events: appsEvents, webhooks: webhooks) })
    }

    /// A service's module, made when a script first reads it (``LuaModule/lazy(name:_:)``),
    /// whose functions are then made each as the script first reads it
    /// (``LuaModule/makesMembersOnFirstRead``): a chat bot reads four of the chat's nearly
    /// thirty. Not for a module its decorator finishes as a whole (the queue menus').
    private static func service(_ name: String, _ build: @escaping () -> LuaModule) -> LuaModule {
        .lazy(name: name) {
            var module = build()
            module.makesMembersOnFirstRead = true
            return module
        }
    }

    /// The services a plugin may call (``PluginModule``): the company, the language (read
    /// only), the queue menus and their wait times.
    static func installReadOnly(_ ccai: CCAI, into module: inout LuaModule) {
        module.module(.lazy(name: "ccai.company") { CompanyBindings.module(ccai) })
        module.module(.lazy(name: "ccai.language") { LanguageBindings.module(ccai, settable: false) })
        module.module(.lazy(name: "ccai.queue_menu") { QueueMenuBindings.module(ccai) })
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

    /// A decoding error as an argument error's text: `field 'menus[2].id': integer expected, got string`.
    static func describe(_ error: DecodingError) -> String {
        DecodingFailure(error).sentence { "field '\($0)'" }
    }
}
