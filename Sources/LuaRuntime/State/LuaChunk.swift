import CLua
import CLuaShim
import Foundation

/// A chunk compiled once, to run in many states without compiling it again (the file of a
/// scenario, whose top level runs in every VU). It holds the bytecode Lua made of the
/// source, with its debug information (errors name the file's lines); it can only be made
/// by ``LuaState/compile(_:chunkName:)``, so a state never loads bytecode from anywhere
/// else (Lua does not check bytecode: a forged one could crash the process).
///
/// ```swift
/// let chunk = try LuaState.compile(source, chunkName: "@load.lua")
/// for state in states { try await state.run(chunk: chunk, keepingResultAs: "scenario") }
/// ```
public struct LuaChunk: Sendable {
    let bytecode: Data
    public let chunkName: String

    init(bytecode: Data, chunkName: String) {
        self.bytecode = bytecode
        self.chunkName = chunkName
    }

    /// The host's own Lua code (a helper every state loads), compiled once without debug
    /// information. A syntax error in it is a defect of the program, caught by any test
    /// that makes a state: this stops the process with the error.
    init(host source: String, chunkName: String) {
        do {
            self = try LuaState.compile(source, chunkName: chunkName, stripped: true)
        } catch {
            fatalError("the host's Lua code \(chunkName) does not compile: \(error)")
        }
    }
}

extension LuaState {
    /// Compiles `source` (text only) into a chunk; throws its syntax error. A `stripped`
    /// chunk has no debug information: it takes less memory in each state that loads it,
    /// and its errors name no lines (for the host's own helpers, not for scripts).
    public static func compile(_ source: String, chunkName: String, stripped: Bool = false) throws -> LuaChunk {
        let core = try LuaCore(limits: LuaLimits(), diagnostics: .standardError)
        defer { core.close() }
        try LuaContext(core: core).load(source, chunkName: chunkName)
        var bytes: UnsafeMutablePointer<CChar>?
        var length = 0
        guard lrt_dump(core.L, &bytes, &length, stripped ? 1 : 0) == 0, let bytes else {
            throw LuaScriptError(kind: .memory, message: "cannot keep the compiled chunk \(chunkName)")
        }
        defer { free(bytes) }
        return LuaChunk(bytecode: Data(bytes: bytes, count: length), chunkName: chunkName)
    }

    /// Compiles the file at `path` (see ``compile(_:chunkName:)``); its chunk is named `@path`.
    public static func compile(file path: String) throws -> LuaChunk {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LuaScriptError(kind: .runtime, message: "cannot read '\(path)'")
        }
        return try compile(String(decoding: data, as: UTF8.self), chunkName: "@" + path)
    }
}
