import Foundation
import LuaRuntime
import Testing
import Timekeeping

/// Diagnostics that collect what the runtime reports, for assertions.
final class CollectedDiagnostics: @unchecked Sendable {
    private let lock = NSLock()
    private var _warnings: [String] = []
    private var _handlerErrors: [(String, LuaScriptError)] = []
    private var _dropped: [String] = []

    var warnings: [String] { lock.withLock { _warnings } }
    /// The events dropped unclaimed, by qualified name.
    var dropped: [String] { lock.withLock { _dropped } }
    var handlerErrors: [(String, LuaScriptError)] { lock.withLock { _handlerErrors } }

    var diagnostics: LuaDiagnostics {
        var diagnostics = LuaDiagnostics(
            warning: { message in self.lock.withLock { self._warnings.append(message) } },
            handlerError: { event, error in self.lock.withLock { self._handlerErrors.append((event, error)) } })
        diagnostics.eventDropped = { event in self.lock.withLock { self._dropped.append(event) } }
        return diagnostics
    }
}

/// Collects what `print` writes.
final class PrintedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var _lines: [String] = []
    var lines: [String] { lock.withLock { _lines } }
    func append(_ line: String) { lock.withLock { _lines.append(line) } }
}

/// A state with `spawn` and `sleep` as globals (as the `ccai` module offers them).
func makeState(limits: LuaLimits = LuaLimits(), modulePaths: [String] = [], printed: PrintedLines? = nil,
               diagnostics: LuaDiagnostics = CollectedDiagnostics().diagnostics, clock: any TimeSource = SystemClock()) throws -> LuaState {
    let state = try LuaState(limits: limits, confinement: LuaConfinement(modulePaths: modulePaths, print: { printed?.append($0) }),
                             diagnostics: diagnostics, clock: clock)
    return state
}

func installTasks(_ state: LuaState) async {
    await state.withContext { lua in
        var tasks = LuaModule(name: "rt")
        LuaTaskLibrary.install(into: &tasks)
        lua.setGlobal("rt", module: tasks)
    }
}

/// Runs `source` and returns the thrown script error (failing the test when none).
func expectScriptError(_ state: LuaState, _ source: String, sourceLocation: SourceLocation = #_sourceLocation)
    async -> LuaScriptError?
{
    do {
        try await state.run(source: source, chunkName: "=test")
        Issue.record("expected the script to fail", sourceLocation: sourceLocation)
        return nil
    } catch let error as LuaScriptError {
        return error
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A count behind a pthread lock (which ThreadSanitizer sees), for what runs on a
/// state's executor (builders, event values).
final class BuildCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
