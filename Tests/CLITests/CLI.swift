import CCAIScripting
import Foundation
import TestSupport

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

    /// Writes `source` to a new Lua file in the temporary folder; returns its path.
    static func script(_ source: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("script-\(UUID().uuidString).lua")
        try source.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Runs the scenario `source` in virtual time, quietly, with `arguments`; returns the
    /// output and the run's summary (`--summary-out`).
    static func runScenario(_ source: String, _ arguments: [String] = []) async throws -> (Output, ScenarioMetrics.Snapshot) {
        let path = try script(source)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("summary-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try await run(["run", path, "--quiet", "--virtual-time", "--summary-out", file.path] + arguments)
        return (output, try ScenarioReport.read(file.path).snapshot())
    }

    /// Runs `ccai` with `arguments` from the package root (or `directory`); a run longer
    /// than `timeout` seconds is terminated. A `niced` run (a long simulation, which does
    /// not care how long it takes) gives way to the tests that do: those with real-time
    /// windows run beside it.
    static func run(_ arguments: [String], timeout: TimeInterval = 60, environment: [String: String] = [:],
                    input: Data? = nil, directory: URL? = nil, niced: Bool = false) async throws -> Output {
        let (program, arguments) = niced ? ("/usr/bin/nice", ["-n", "19", binary.path] + arguments) : (binary.path, arguments)
        let result = try await ChildProcess.run(program, arguments,
                                                environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                                                directory: (directory ?? root).path, input: input ?? Data(), timeout: timeout)
        return Output(status: result.status, stdout: String(decoding: result.output, as: UTF8.self),
                      stderr: String(decoding: result.errors, as: UTF8.self))
    }
}

extension ChildProcess {
    /// The next line of standard error (piped) that contains `text`, read on a thread of
    /// its own; nil when standard error ends first.
    func errorLine(containing text: String) async throws -> String? {
        try await offThePool { [self] in
            guard let errors = standardError else { return nil }
            while true {
                var line = Data()
                while let byte = try errors.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
                guard !line.isEmpty else { return nil }
                let found = String(decoding: line, as: UTF8.self)
                if found.contains(text) { return found }
            }
        }
    }
}
