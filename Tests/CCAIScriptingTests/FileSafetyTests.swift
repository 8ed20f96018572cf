import CCAIKit
import CCAIScripting
import Foundation
import LuaRuntime
import Testing

/// Paths a script gives stay inside its folder; names are never paths; sizes are checked
/// before bytes are read (docs/security.md).
@Suite struct FileSafetyTests {
    /// A script folder with a small image, a symlink out, a symlink in, a FIFO and a 1 GiB
    /// sparse file; and a folder beside it with a file a script must not reach.
    private struct Folder {
        let root: URL
        var script: String { root.appendingPathComponent("bot").path }
        var outside: String { root.appendingPathComponent("outside/secret.txt").path }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("file-safety-\(UUID().uuidString)")
            let files = FileManager.default
            try files.createDirectory(atPath: root.appendingPathComponent("bot/sub").path, withIntermediateDirectories: true)
            try files.createDirectory(atPath: root.appendingPathComponent("outside").path, withIntermediateDirectories: true)
            try #require(files.createFile(atPath: root.appendingPathComponent("outside/secret.txt").path, contents: Data("TOP-SECRET-BYTES".utf8)))
            try #require(files.createFile(atPath: script + "/sub/ok.png", contents: Data("PNG".utf8)))
            try files.createSymbolicLink(atPath: script + "/out.png", withDestinationPath: outside)
            try files.createSymbolicLink(atPath: script + "/in.png", withDestinationPath: script + "/sub/ok.png")
            try files.createSymbolicLink(atPath: script + "/up", withDestinationPath: root.appendingPathComponent("outside").path)
            try files.createSymbolicLink(atPath: script + "/proc", withDestinationPath: "/proc/self")
            mkfifo(script + "/fifo.png", 0o600)
            try #require(files.createFile(atPath: script + "/big.png", contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: script + "/big.png"))
            try handle.truncate(atOffset: 1 << 30)
            try handle.close()
        }
    }

    /// Runs `source` in a state whose files are the folder's, with an SDK that is not
    /// initialized (a send that got past reading its files fails with `not_initialized`).
    private func run(_ source: String, in folder: Folder, memory: Int = 64 << 20) async throws -> [LuaValue] {
        let runner = ScriptRunner(limits: LuaLimits(memoryBytes: memory), logger: CapturingLogger(), sdk: CCAI())
        let state = try await runner.makeState(modulePaths: [folder.script])
        return try await state.run(source: source, chunkName: "=files")
    }

    private let attempt = """
        local function attempt(message)
          local ok, err = pcall(ccai.chat.send_message, message)
          return err.code .. ": " .. err.message
        end
        local function image(path) return attempt{ images = { { path = path, mime_type = "image/png" } } } end
        local function video(path) return attempt{ videos = { { path = path, mime_type = "video/mp4" } } } end

        """

    /// Writing never loosens a file's mode and never writes through a link: a new file is
    /// 0600 whatever the umask, a file written over keeps its mode, and a symlink or a hard
    /// link at the path is replaced while what it led to stays as it was.
    @Test func writingNeverLoosensAModeNorWritesThroughALink() throws {
        let folder = try Folder()
        defer { try? FileManager.default.removeItem(at: folder.root) }
        let confined = try ConfinedFolder(folder.script)
        let files = FileManager.default
        func status(_ path: String) throws -> stat {
            var status = stat()
            guard lstat(path, &status) == 0 else { throw POSIXError(.ENOENT) }
            return status
        }
        func mode(_ path: String) throws -> Int { Int(try status(path).st_mode & 0o7777) }
        try confined.write(Data("%PDF-new".utf8), to: "new.pdf")
        #expect(try mode(folder.script + "/new.pdf") == 0o600)

        try #require(files.createFile(atPath: folder.script + "/private.pdf", contents: Data("old".utf8),
                                      attributes: [.posixPermissions: 0o600]))
        try confined.write(Data("%PDF-over".utf8), to: "private.pdf")
        #expect(try mode(folder.script + "/private.pdf") == 0o600, "a 0600 file stays 0600")
        try #require(files.createFile(atPath: folder.script + "/shared.pdf", contents: Data("old".utf8),
                                      attributes: [.posixPermissions: 0o640]))
        try confined.write(Data("%PDF-over".utf8), to: "shared.pdf")
        #expect(try mode(folder.script + "/shared.pdf") == 0o640, "and a 0640 one 0640")

        try confined.write(Data("%PDF-link".utf8), to: "out.png")
        #expect(try String(contentsOfFile: folder.outside, encoding: .utf8) == "TOP-SECRET-BYTES", "the symlink's target is untouched")
        #expect(try status(folder.script + "/out.png").st_mode & S_IFMT == S_IFREG, "the symlink is replaced by a file")
        #expect(try mode(folder.script + "/out.png") == 0o600)

        try #require(link(folder.outside, folder.script + "/hard.pdf") == 0)
        try confined.write(Data("%PDF-hard".utf8), to: "hard.pdf")
        #expect(try String(contentsOfFile: folder.outside, encoding: .utf8) == "TOP-SECRET-BYTES", "nor a hard link's")
        #expect(try String(contentsOfFile: folder.script + "/hard.pdf", encoding: .utf8) == "%PDF-hard")
        #expect(throws: ConfinedFolder.Refusal.self) { try confined.write(Data("%PDF-".utf8), to: "up/secret.txt") }
    }

    @Test func pathsStayInsideTheScriptsFolder() async throws {
        let folder = try Folder()
        defer { try? FileManager.default.removeItem(at: folder.root) }
        let results = try await run(attempt + """
            return image("sub/ok.png"), image("in.png"), image("/etc/passwd"), image("../outside/secret.txt"),
              image("sub/../../outside/secret.txt"), image("out.png"), image("up/secret.txt"), image("proc/environ"),
              image("fifo.png"), image("sub"), image("missing.png"), image(""), image("~/x.png"), video("out.png"),
              video("/proc/self/cmdline")
            """, in: folder)
        let texts = results.map { $0.stringValue ?? "" }
        #expect(texts[0].hasPrefix("not_initialized"), "a file inside is read: \(texts[0])")
        #expect(texts[1].hasPrefix("not_initialized"), "a symlink that stays inside is followed: \(texts[1])")
        #expect(texts[2].contains("is absolute"), "\(texts[2])")
        #expect(texts[3].contains("has a '..'") && texts[4].contains("has a '..'"), "\(texts[3]) / \(texts[4])")
        #expect(texts[5].contains("leads outside") && texts[6].contains("leads outside"), "\(texts[5]) / \(texts[6])")
        #expect(texts[7].contains("leads outside"), "no /proc through a symlink: \(texts[7])")
        #expect(texts[8].contains("not a regular file") && texts[9].contains("not a regular file"), "\(texts[8]) / \(texts[9])")
        #expect(texts[10].contains("no such file") && texts[11].contains("empty path") && texts[12].contains("absolute"))
        #expect(texts[13].contains("leads outside") && texts[14].contains("is absolute"), "\(texts[13]) / \(texts[14])")
        for text in texts[2...] { #expect(text.hasPrefix("invalid_argument"), "\(text)") }
        #expect(!texts.joined().contains("TOP-SECRET-BYTES"), "no byte of the file outside comes back")
    }

    @Test func aLargeFileIsRefusedBeforeItIsRead() async throws {
        let folder = try Folder()
        defer { try? FileManager.default.removeItem(at: folder.root) }
        let results = try await run(attempt + "return image('big.png'), video('big.png')", in: folder, memory: 8 << 20)
        #expect(results[0].stringValue?.hasPrefix("too_large: ") == true, "\(results[0])")
        #expect(results[1].stringValue?.hasPrefix("too_large: ") == true, "\(results[1])")
    }

    @Test func aCamerasPhotoIsReadUpToTwentyMegabytesForTheSDKToCompress() async throws {
        let folder = try Folder()
        defer { try? FileManager.default.removeItem(at: folder.root) }
        for (name, size) in [("photo.png", 20 << 20), ("over.png", (20 << 20) + 1)] {
            try #require(FileManager.default.createFile(atPath: folder.script + "/" + name, contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.script + "/" + name))
            try handle.truncate(atOffset: UInt64(size))
            try handle.close()
        }
        let results = try await run(attempt + "return image('photo.png'), image('over.png')", in: folder)
        #expect(results[0].stringValue?.hasPrefix("not_initialized") == true, "20 MB is read: \(results[0])")
        #expect(results[1].stringValue?.hasPrefix("too_large: ") == true, "\(results[1])")
    }

    @Test func namesAreNeverPaths() async throws {
        let folder = try Folder()
        defer { try? FileManager.default.removeItem(at: folder.root) }
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("pwned-\(UUID().uuidString).txt").path
        let results = try await run(attempt + """
            local target = ...
            return attempt{ videos = { { data = "x", mime_type = "text/plain", name = "../../../../.." .. target } } },
              attempt{ images = { { data = "x", mime_type = "image/png", name = "a/b.png" } } },
              attempt{ videos = { { data = "x", mime_type = "video/mp4", name = "clip\\r\\nX-Evil: 1.mp4" } } },
              attempt{ videos = { { data = "x", mime_type = "video/mp4", name = ".." } } },
              attempt{ videos = { { data = "x", mime_type = "video/mp4", name = "fine.mp4" } } }
            """.replacingOccurrences(of: "local target = ...", with: "local target = \"\(target)\""), in: folder)
        let texts = results.map { $0.stringValue ?? "" }
        for text in texts.prefix(4) { #expect(text.hasPrefix("invalid_argument") && text.contains("name"), "\(text)") }
        #expect(texts[4].hasPrefix("not_initialized"), "\(texts[4])")
        #expect(!FileManager.default.fileExists(atPath: target), "nothing was written outside")
    }
}
