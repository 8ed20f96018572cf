import CCAISandbox
import Foundation

/// A sandbox served on loopback for one benchmark, from files written to a folder of its
/// own: `sandbox.lua` is the configuration, the others its agent scripts. `close()`
/// stops the server and removes the folder.
///
/// ```swift
/// let bench = try await BenchmarkSandbox("chat", files: ["echo.lua": echo, "sandbox.lua": config])
/// defer { bench.close() }
/// ```
struct BenchmarkSandbox {
    let folder: URL
    let server: HTTPServer

    /// With `keepsData`, the state goes to `data/` in the folder (on disk, as a served
    /// sandbox keeps it), else to memory.
    init(_ name: String, files: [String: String], keepsData: Bool = false) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (file, text) in files { try text.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8) }
        let configuration = try await SandboxConfiguration.load(file: folder.appendingPathComponent("sandbox.lua").path)
        let sandbox = try Sandbox(configuration: configuration, dataDirectory: keepsData ? folder.appendingPathComponent("data").path : nil)
        server = try sandbox.serve()
    }

    var port: UInt16 { server.port }

    func close() {
        let (server, folder) = (server, folder)
        Task {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
