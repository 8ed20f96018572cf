import CCAIKit
import CCAIWire
import Foundation
import LuaRuntime

/// Feeds a service's typed event stream into a Lua state's emitter until the state
/// closes: each element becomes one named event with its Lua value. One bridge per
/// service, started with it, so that Lua handlers and Swift subscribers see the same
/// events, filtered the same way.
///
/// ```swift
/// EventBridge.forward(service.chatEvents(), into: emitter, in: state) { event in
///     (event.name.rawValue, EventBridge.luaValue(event))
/// }
/// ```
enum EventBridge {
    /// Whether a state's bridge from a service's events to its emitter runs: a service's
    /// `initialize_*` starts it once, however often a script calls it.
    final class Started: @unchecked Sendable {
        var started = false
    }

    /// `conversations` names the chats or calls an element is about: in a scenario's VU,
    /// those of its earlier iterations are not emitted (``ConversationScope``). `observe`
    /// sees every element first, as it arrives (a VU's metrics), on the same subscription.
    static func forward<Element: Sendable>(_ stream: AsyncStream<Element>, into emitter: LuaEventEmitter, in state: LuaState,
                                           conversations: @escaping @Sendable (Element) -> [ConversationScope.Conversation] = { _ in [] },
                                           observe: (@Sendable (Element) -> Void)? = nil,
                                           as convert: @escaping @Sendable (Element) -> (name: String, value: LuaValue)?) {
        let target = StateConfined(emitter)
        Task { [weak state] in
            for await element in stream {
                observe?(element)
                guard let (name, value) = convert(element) else { continue }
                guard let state else { return }
                let about = conversations(element)
                let open = await state.withContext { lua -> Bool in
                    guard !lua.isClosed else { return false }
                    guard lua.attachment(ConversationScope.self)?.admits(about) ?? true else { return true }
                    target.value.emit(name, value)
                    return true
                }
                if !open { return }
            }
        }
    }

    /// An element on its way to the emitter: its event's name, what makes its Lua value,
    /// and the chats or calls it is about.
    struct Forwarded: Sendable {
        var name: String
        var value: @Sendable () -> LuaValue
        var about: [ConversationScope.Conversation]
    }

    /// The same from a subscription with no task of its own (``EventInbox``): `subscribe`
    /// makes one given a `wake` and what each element becomes. Each element is observed and
    /// named (nil: not emitted) on the thread that hands the SDK its events, as it arrives;
    /// those that arrived are then emitted together, in order, on the state's executor
    /// (``LuaState/post(_:)``). An element's Lua value is made only when a handler or a
    /// `wait_for` needs it (``LuaEventEmitter/emit(_:bytes:making:)``): until then it is
    /// kept as it arrived. The emitter keeps the subscription: it ends with the state, or
    /// at the first delivery after the state closed. Called on the state's executor.
    static func forward<Element: Sendable>(
        from subscribe: (_ wake: @escaping @Sendable (EventInbox<Forwarded>) -> Void,
                         _ transform: @escaping @Sendable (Element) -> Forwarded?) -> EventInbox<Forwarded>,
        into emitter: LuaEventEmitter, in state: LuaState,
        conversations: @escaping @Sendable (Element) -> [ConversationScope.Conversation] = { _ in [] },
        observe: (@Sendable (Element) -> Void)? = nil,
        named name: @escaping @Sendable (Element) -> String?,
        as value: @escaping @Sendable (Element) -> LuaValue
    ) {
        // Weak: the emitter keeps the inbox, whose wake-up this is.
        let target = WeaklyStateConfined(emitter)
        let inbox = subscribe({ [weak state] inbox in
            guard let state else { return inbox.close() }
            state.post { lua in
                guard !lua.isClosed, let emitter = target.value else { return inbox.close() }
                let scope = lua.attachment(ConversationScope.self)
                while case let arrived = inbox.takeSized(), !arrived.isEmpty {
                    for (element, bytes) in arrived where scope?.admits(element.about) ?? true {
                        emitter.emit(element.name, bytes: bytes, making: element.value)
                    }
                }
            }
        }, { element in
            observe?(element)
            guard let name = name(element) else { return nil }
            return Forwarded(name: name, value: { value(element) }, about: conversations(element))
        })
        emitter.keep(inbox)
    }

    /// A chat event as scripts see it (docs/lua-runtime.md, events): messages and chats as
    /// tables, `typing_event` as `"started"`/`"ended"`, `member_event` as `{ type =
    /// "joined"|"left", identity }`, `state_changed` as the provider state's name or `{ type
    /// = "error", message }`, `network_connectivity_changed` as a boolean.
    static func luaValue(_ event: ChatServiceEvent) -> LuaValue {
        switch event {
        case .messagesReceived(let messages): return (try? LuaEncoder().encode(messages)) ?? .nil
        case .typingEvent(let typing): return .string(typing == .started ? "started" : "ended")
        case .memberEvent(.joined(let identity)): return member("joined", identity)
        case .memberEvent(.left(let identity)): return member("left", identity)
        case .stateChanged(.error(let message)):
            var table = LuaTable()
            table["type"] = .string("error")
            table["message"] = .string(message)
            return .table(table)
        case .stateChanged(.connecting): return "connecting"
        case .stateChanged(.connected): return "connected"
        case .stateChanged(.disconnected): return "disconnected"
        case .chatReceived(let chat): return chat.flatMap { try? LuaEncoder().encode($0) } ?? .nil
        case .coldTransfer(let transfer): return (try? LuaEncoder().encode(transfer)) ?? .nil
        case .networkConnectivityChanged(let connected): return .boolean(connected)
        }
    }

    private static func member(_ type: String, _ identity: String?) -> LuaValue {
        var table = LuaTable()
        table["type"] = .string(type)
        table["identity"] = identity.map { .string($0) } ?? .nil
        return .table(table)
    }
}

/// Carries a state-confined object into a task that only uses it on the state's executor.
struct StateConfined<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The same, without keeping it.
struct WeaklyStateConfined<Value: AnyObject>: @unchecked Sendable {
    weak var value: Value?
    init(_ value: Value) { self.value = value }
}
