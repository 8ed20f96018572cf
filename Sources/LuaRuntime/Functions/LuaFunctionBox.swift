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
    let shortName: String
    let body: LuaFunctionBody

    init(qualifiedName: String, body: @escaping LuaFunctionBody) {
        self.qualifiedName = qualifiedName
        self.shortName = qualifiedName.split(whereSeparator: { $0 == "." || $0 == ":" }).last.map(String.init) ?? qualifiedName
        self.body = body
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
