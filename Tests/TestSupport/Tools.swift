import Foundation

/// Runs another program (`pdftotext`, `curl`, `luacheck`) and returns its standard output.
///
/// ```swift
/// let text = try runTool("/usr/bin/pdftotext", ["-enc", "UTF-8", "chat.pdf", "-"])
/// ```
public func runTool(_ path: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
