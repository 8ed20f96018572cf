import CCAIWire
import LuaRuntime

extension LuaCall {
    /// The options table at `index` whose fields are `known`: a field it does not know (a
    /// misspelt one, which would otherwise read as nil and be ignored) is an
    /// `invalid_argument` naming it and the nearest known one. With `positional`, a method
    /// with one parameter also takes it alone (``LuaCall/options(_:_:positional:)``).
    ///
    /// ```swift
    /// let options = try call.checkedOptions(1, "options", known: ["call_id"], positional: "call_id")
    /// ```
    func checkedOptions(_ index: Int, _ name: String, known: Set<String>, positional: String? = nil) throws -> LuaOptions {
        let options = try positional.map { try self.options(index, name, positional: $0) } ?? self.options(index, name)
        if let unknown = options.unknownFields(known: known).sorted().first {
            throw argumentError(index, name, "unknown field '\(unknown)'" + Suggestion.didYouMean(unknown, among: known)
                                + " (known: " + known.sorted().joined(separator: ", ") + ")")
        }
        return options
    }
}
