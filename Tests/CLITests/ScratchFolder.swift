import Foundation

/// A fresh folder in the temporary directory for a suite's files.
///
/// ```swift
/// let scratch = ScratchFolder("outputs")
/// let script = try scratch.file("run.lua", "return {}")
/// ```
struct ScratchFolder {
    let url: URL

    init(_ prefix: String) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` in the folder, written with `text` when one is given.
    func file(_ name: String, _ text: String? = nil) throws -> String {
        let path = url.appendingPathComponent(name).path
        if let text { try text.write(toFile: path, atomically: true, encoding: .utf8) }
        return path
    }
}
