import Foundation
import CLua
import CLuaShim

/// The body of a Swift function callable from Lua. It reads its arguments from the
/// ``LuaCall``, and returns what ``LuaCall/returning(_:)`` (or `suspend`) gives it.
/// A thrown error becomes a Lua error raised by the C trampoline, never by Swift.
public typealias LuaFunctionBody = (LuaCall) throws -> LuaReturn

/// What a Swift function body tells the trampoline: how many values it pushed, or that
/// the calling coroutine must suspend.
public struct LuaReturn {
    let code: Int32

    /// No results.
    public static let none = LuaReturn(code: 0)
    static let yield = LuaReturn(code: LRT_YIELD)
}

/// A Swift function registered with a state. Lua holds an unretained pointer to it; the
/// state keeps it alive.
final class LuaFunctionBox {
    let qualifiedName: String
    let body: LuaFunctionBody

    init(qualifiedName: String, body: @escaping LuaFunctionBody) {
        self.qualifiedName = qualifiedName
        self.body = body
    }

    /// The name's last part (`send_message` of `ccai.chat.send_message`), for errors.
    var shortName: String {
        qualifiedName.split(whereSeparator: { $0 == "." || $0 == ":" }).last.map(String.init) ?? qualifiedName
    }

    @inline(__always)
    func invoke(_ L: OpaquePointer) -> Int32 {
        let call = LuaCall(L: L, function: self)
        do {
            return try body(call).code
        } catch {
            call.pushRaised(error)
            return LRT_RAISE
        }
    }
}

/// The qualified names of module functions (`ccai.chat.send_message`), made once per
/// process: every state that builds a module names its functions alike, and a shared
/// string costs a state a reference, not a copy. Module names come from the host's code,
/// so there are few; past ``limit`` names are made anew instead of kept.
enum QualifiedNames {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var names: [String: [String: String]] = [:]
    nonisolated(unsafe) private static var count = 0
    static let limit = 4_096

    /// `module.key`, shared.
    static func of(_ module: String, _ key: String) -> String {
        lock.withLock {
            if let name = names[module]?[key] { return name }
            let name = module + "." + key
            if count < limit {
                names[module, default: [:]][key] = name
                count += 1
            }
            return name
        }
    }
}
