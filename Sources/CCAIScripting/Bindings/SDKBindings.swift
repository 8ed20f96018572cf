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
    /// Adds the SDK's services to the `ccai` module, as rows described once for the process
    /// (``ServiceRows``): a state makes a service's table when its script first reads its
    /// key, and that table's functions as the script reads them. A VU pays for the functions
    /// its script reads: a chat bot reads none of the calls', screen shares' or the Apps
    /// API's, and few of the chat's. None starts anything (the `initialize_*` functions
    /// start the event bridges).
    static func install(_ context: SDKContext, into module: inout LuaModule) {
        InitializationBindings.install(context, into: &module)
        module.members(ServiceRows(shared: SDKContextReference(context)))
        PushBindings.install(app: context.sdk, into: &module)
    }

    /// The SDK's services as rows of `ccai`, each made for one state's context.
    private struct ServiceRows: LuaMemberRows {
        /// A service: its module's name, and how its table is made for a state's context.
        struct Service {
            let name: String
            let key: String
            /// Whether the table is made whole when first read (its decorator finishes it as
            /// a whole: the queue menus'), rather than function by function.
            let madeWhole: Bool
            let make: @Sendable (SDKContextReference) -> LuaModule

            init(_ name: String, madeWhole: Bool = false, _ make: @escaping @Sendable (SDKContextReference) -> LuaModule) {
                self.name = name
                key = LuaModule(name: name).key
                self.madeWhole = madeWhole
                self.make = make
            }
        }

        static let services: [Service] = [
            Service(EventService.chat.module) { ChatBindings.module($0) },
            Service(EventService.smartAction.module) { SmartActionBindings.module($0.context) },
            Service("ccai.rate") { RateBindings.module($0.context.sdk) },
            Service(EventService.screenShare.module) { ScreenShareBindings.module($0.context) },
            Service(EventService.call.module) { CallBindings.module($0.context) },
            Service("ccai.audible_message") { CallBindings.audibleMessageModule($0.context.sdk) },
            Service(EventService.push.module) { PushBindings.module($0.context) },
            Service("ccai.auth") { AuthBindings.module($0.context.sdk) },
            Service("ccai.company") { CompanyBindings.module($0.context.sdk) },
            Service("ccai.end_user") { EndUserBindings.module($0.context.sdk) },
            Service("ccai.language") { LanguageBindings.module($0.context.sdk) },
            Service("ccai.queue_menu", madeWhole: true) { QueueMenuBindings.module($0.context.sdk) },
            Service("ccai.options") { OptionsBindings.module($0.context.sdk) },
            Service(EventService.apps.module) {
                AppsBindings.module($0.context.apps, events: $0.context.emitters[.apps], webhooks: $0.context.webhooks)
            },
        ]

        /// The state's context, which every service made for it shares.
        let shared: SDKContextReference

        var count: Int { Self.services.count }

        func key(at index: Int) -> String { Self.services[index].key }

        /// The service's table, made when a script first reads a key of it.
        func member(at index: Int) -> LuaModule.Member {
            let (service, shared) = (Self.services[index], shared)
            return .module(.lazy(name: service.name) {
                var module = service.make(shared)
                module.makesMembersOnFirstRead = !service.madeWhole
                return module
            })
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
        let outcome = Outcome(call)
        return try call.suspend(operation, told: { outcome.told($0) }, then: push)
    }

    /// The same for an SDK call that tells its outcome to a completion (`start` begins it
    /// with the one it is given): no task waits for it (``LuaCall/suspend(starting:then:)``).
    static func sdk<Result: Sendable>(_ call: LuaCall,
                                      starting start: (_ finish: @escaping @Sendable (Swift.Result<Result, any Error>) -> Void) -> Void,
                                      push: @escaping (Result, inout LuaOutput) throws -> Void) throws -> LuaReturn {
        let outcome = Outcome(call)
        return try call.suspend(starting: { finish in
            start { finish(outcome.told($0)) }
        }, then: push)
    }

    /// How an SDK call ended, as scripts get it: timed in a scenario's VU
    /// (``SDKMetricsRecorder``), its SDK error a `ccai.Error` naming the binding's service
    /// and method.
    private struct Outcome: Sendable {
        let service: String, method: String
        let recorder: SDKMetricsRecorder?
        let began: Date

        init(_ call: LuaCall) {
            (service, method) = serviceAndMethod(of: call)
            recorder = call.context.attachment(SDKMetricsRecorder.self)
            began = recorder?.begin() ?? .distantPast
        }

        func told<Result>(_ outcome: Swift.Result<Result, any Error>) -> Swift.Result<Result, any Error> {
            switch outcome {
            case .success(let result):
                recorder?.end(service: service, method: method, began: began, status: "ok", result: result)
                return outcome
            case .failure(let error as any SDKError):
                recorder?.end(service: service, method: method, began: began, status: error.code.rawValue, result: nil)
                return .failure(luaError(error, service: service, method: method))
            case .failure:
                recorder?.end(service: service, method: method, began: began, status: "error", result: nil)
                return outcome
            }
        }
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
