import Foundation
import LuaRuntime

/// What a scenario's `handle_summary(data)` returned (k6's `handleSummary` contract): a
/// table of outputs by name, `stdout` and `stderr` for the standard streams, any other name
/// a file written to the run's output folder (`--out-dir`, else `ccai-out`). A name is a
/// file name, never a path.
///
/// ```lua
/// handle_summary = function(data)
///   return { stdout = "iterations: " .. data.metrics[1].values.count, ["summary.json"] = ccai.json.encode(data) }
/// end
/// ```
public struct SummaryOutputs: Sendable, Equatable {
    /// What `handle_summary` returned that cannot be used.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public var standardOutput: String?
    public var standardError: String?
    /// Files by name, in the order of their names.
    public var files: [File] = []

    public struct File: Sendable, Equatable {
        public var name: String
        public var text: String
    }

    /// The most bytes all the outputs may hold together, and the longest file name.
    public static let maximumBytes = 64 << 20
    static let maximumNameBytes = 255

    /// Reads `handle_summary`'s result: a table of strings by name (nil: no output at all).
    public init(_ value: LuaValue) throws {
        guard !value.isNil else { return }
        guard let fields = value.dictionaryValue else {
            throw Problem(description: "handle_summary returns a table { stdout = TEXT, [\"file.json\"] = TEXT }, got \(value.typeName)")
        }
        var total = 0
        for (name, output) in fields.sorted(by: { $0.key < $1.key }) {
            guard let text = output.stringValue else {
                throw Problem(description: "handle_summary's output '\(name.prefix(64))' must be a string, got \(output.typeName)")
            }
            total += text.utf8.count
            guard total <= Self.maximumBytes else {
                throw Problem(description: "handle_summary's outputs hold more than \(Self.maximumBytes >> 20) MiB")
            }
            switch name {
            case "stdout": standardOutput = text
            case "stderr": standardError = text
            default:
                guard Self.isFileName(name) else {
                    throw Problem(description: "handle_summary's output '\(name.prefix(64))' is not a file name (a name without '/', "
                                  + "at most \(Self.maximumNameBytes) bytes): its files go to the run's output folder")
                }
                files.append(File(name: name, text: text))
            }
        }
    }

    private static func isFileName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && name.utf8.count <= maximumNameBytes && !name.contains("/") && !name.contains("\0")
    }

    /// Writes the files into `folder`; returns the paths written.
    public func writeFiles(to folder: ConfinedFolder) throws -> [String] {
        try files.map { file in
            try folder.write(Data(file.text.utf8), to: file.name)
            return URL(fileURLWithPath: folder.root).appendingPathComponent(file.name).path
        }
    }
}
