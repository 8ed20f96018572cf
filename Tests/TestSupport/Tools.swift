import CCAIScripting
import Foundation

/// Runs another program (`pdftotext`, `curl`, `luacheck`) and returns its standard output.
///
/// ```swift
/// let text = try await runTool("/usr/bin/pdftotext", ["-enc", "UTF-8", "chat.pdf", "-"])
/// ```
public func runTool(_ path: String, _ arguments: [String]) async throws -> String {
    String(decoding: try await ChildProcess.run(path, arguments, errorsTo: .inherit).output, as: UTF8.self)
}

/// Runs blocking work (reading a child's output, waiting for it) on a thread of its own,
/// so that it never holds one of the few threads Swift's tasks share.
///
/// ```swift
/// let line = try await offThePool { try server.readLine() }
/// ```
public func offThePool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
