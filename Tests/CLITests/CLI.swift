import Foundation

/// Runs the real `ccai` executable built next to the test bundle.
enum CLI {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The package's root folder.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `ccai` binary: beside the test bundle (`swift test` builds it), or `CCAI_BINARY`.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["CCAI_BINARY"] { return URL(fileURLWithPath: path) }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("ccai")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug/ccai")
    }

    /// Runs `ccai` with `arguments` from the package root (or `directory`); a run longer
    /// than `timeout` seconds is terminated.
    static func run(_ arguments: [String], timeout: TimeInterval = 60, environment: [String: String] = [:],
                    input: Data? = nil, directory: URL? = nil) throws -> Output {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? root
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        try process.run()
        if let input { try? stdin.fileHandleForWriting.write(contentsOf: input) }
        try? stdin.fileHandleForWriting.close()
        let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        let errorData = Locked(Data())
        let readingErrors = DispatchGroup()
        readingErrors.enter()
        DispatchQueue.global().async {
            errorData.set(stderr.fileHandleForReading.readDataToEndOfFile())
            readingErrors.leave()
        }
        let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
        readingErrors.wait()
        process.waitUntilExit()
        timer.cancel()
        return Output(status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
                      stderr: String(decoding: errorData.get(), as: UTF8.self))
    }
}

/// A value shared with a reading thread.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
