import Foundation

/// The `--out DIR` of the commands that write files (`ccai types`, `ccai reference`),
/// and the writing.
enum OutputFolder {
    static let option = OptionSpec("--out", value: "DIR", help: "the folder to write the files to (made if needed)",
                                   required: true)

    /// The folder `arguments` name; the command takes nothing else.
    static func folder(in arguments: ParsedArguments, for spec: CommandSpec) throws -> String {
        if let value = arguments.positionals.first {
            throw spec.usageError("unexpected argument '\(value)'")
        }
        guard let folder = arguments.last(option) else {
            throw spec.usageError("\(spec.name) needs --out DIR")
        }
        return folder
    }

    /// Writes `files` into `folder` (created if needed), one line per file.
    static func write(_ files: [String: String], to folder: String) throws -> ExitStatus {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (name, text) in files.sorted(by: { $0.key < $1.key }) {
                let path = URL(fileURLWithPath: folder).appendingPathComponent(name).path
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                print("wrote \(path)")
            }
            return .success
        } catch {
            throw CommandFailure("cannot write to '\(folder)': \(error.localizedDescription)")
        }
    }
}
