import CCAIScripting
import Foundation
import Testing

/// docs/getting-started.md, done as a reader would: every ```lua file=PATH block is
/// written, every line of every ```sh block run (with `# exit status N` when it must
/// fail), and every line of the ```text block after it found in what the command printed,
/// where the walkthrough's folder reads as the reader's `/home/you`.
@Suite struct GettingStartedTests {
    enum Step {
        case file(path: String, text: String)
        case command(arguments: [String], status: Int32)
        case output(lines: [String])
    }

    /// The steps of a Markdown walkthrough, in order.
    static func steps(of markdown: String) -> [Step] {
        var steps: [Step] = []
        var fence: String?
        var body: [String] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let open = fence {
                guard line == "```" else { body.append(line); continue }
                if open.hasPrefix("lua file=") {
                    steps.append(.file(path: String(open.dropFirst("lua file=".count)), text: body.joined(separator: "\n") + "\n"))
                } else if open == "sh" {
                    for command in body where !command.trimmingCharacters(in: .whitespaces).isEmpty {
                        let parts = command.components(separatedBy: " # exit status ")
                        let words = parts[0].split(separator: " ").map(String.init)
                        steps.append(.command(arguments: words, status: parts.count > 1 ? Int32(parts[1]) ?? -1 : 0))
                    }
                } else if open == "text" {
                    steps.append(.output(lines: body.filter { !$0.isEmpty }))
                }
                fence = nil
                body = []
            } else if line.hasPrefix("```") {
                fence = String(line.dropFirst(3))
            }
        }
        return steps
    }

    @Test(.timeLimit(.minutes(2))) func theWalkthroughWorksAsWritten() async throws {
        let markdown = try String(contentsOf: CLI.root.appendingPathComponent("docs/getting-started.md"), encoding: .utf8)
        let steps = Self.steps(of: markdown)
        #expect(steps.filter { if case .command = $0 { true } else { false } }.count >= 5, "the walkthrough runs its commands")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("getting-started-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var last: (command: String, output: String)?
        for step in steps {
            switch step {
            case .file(let path, let text):
                let file = folder.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try text.write(to: file, atomically: true, encoding: .utf8)
            case .command(let arguments, let status):
                try #require(["ccai", "luacheck"].contains(arguments.first), "a ccai or luacheck command: \(arguments)")
                let output: CLI.Output
                if arguments.first == "luacheck" {
                    // Debian's lua-check, from scripts/bootstrap.
                    let result = try await ChildProcess.run("/usr/bin/luacheck", ["--no-color"] + arguments.dropFirst(),
                                                            directory: folder.path)
                    output = CLI.Output(status: result.status, stdout: String(decoding: result.output, as: UTF8.self),
                                        stderr: String(decoding: result.errors, as: UTF8.self))
                } else {
                    output = try await CLI.run(Array(arguments.dropFirst()), directory: folder)
                }
                #expect(output.status == status, "\(arguments.joined(separator: " ")): \(output.stdout) \(output.stderr)")
                let printed = (output.stdout + output.stderr)
                    .replacingOccurrences(of: folder.resolvingSymlinksInPath().path, with: "/home/you")
                    .replacingOccurrences(of: folder.path, with: "/home/you")
                last = (arguments.joined(separator: " "), printed)
            case .output(let lines):
                let (command, output) = try #require(last, "an output block follows a command")
                for line in lines { #expect(output.contains(line), "'\(line)' from \(command), which printed:\n\(output)") }
            }
        }
    }
}
