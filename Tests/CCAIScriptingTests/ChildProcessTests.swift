import CCAIScripting
import Foundation
import Testing

/// Programs started with posix_spawn: their streams, statuses, environment and folder,
/// and nothing of this process's open descriptors.
@Suite struct ChildProcessTests {
    @Test func aRunGivesTheStatusAndBothStreams() throws {
        let result = try ChildProcess.run("/bin/sh", ["-c", "cat; echo oops >&2; exit 3"], input: Data("hello".utf8))
        #expect(result.status == 3)
        #expect(String(decoding: result.output, as: UTF8.self) == "hello")
        #expect(String(decoding: result.errors, as: UTF8.self) == "oops\n")
    }

    @Test func theEnvironmentAndFolderAreTheGivenOnes() throws {
        let folder = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path
        let result = try ChildProcess.run("/bin/sh", ["-c", "printf '%s %s' \"$GREETING\" \"$(pwd)\""],
                                          environment: ["GREETING": "hola"], directory: folder)
        #expect(String(decoding: result.output, as: UTF8.self) == "hola \(folder)")
    }

    @Test func aTimeoutStopsTheChildAndASignalIsReported() throws {
        let result = try ChildProcess.run("/bin/sh", ["-c", "exec sleep 30"], timeout: 0.2)
        #expect(result.status == 128 + SIGTERM)
    }

    @Test func theChildInheritsNoOtherDescriptor() throws {
        let pipe = Pipe()
        defer { try? pipe.fileHandleForWriting.close() }
        let result = try ChildProcess.run("/bin/sh", ["-c", "ls /proc/self/fd"])
        let descriptors = String(decoding: result.output, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        #expect(descriptors.allSatisfy { $0 <= 3 }, "only 0, 1, 2 (and ls's own directory): \(descriptors)")
    }

    @Test func aProgramThatCannotStartIsAnError() {
        #expect(throws: ChildProcessError.self) { try ChildProcess.run("/no/such/program", []) }
    }

    @Test func aLongRunningChildIsReadAsItWritesAndStopped() throws {
        let child = try ChildProcess("/bin/sh", ["-c", "echo ready; exec sleep 30"], output: .pipe)
        let line = try #require(try child.standardOutput?.read(upToCount: 6))
        #expect(String(decoding: line, as: UTF8.self) == "ready\n")
        child.terminate()
        #expect(child.wait() == 128 + SIGTERM)
        #expect(child.wait() == 128 + SIGTERM, "waiting again gives the same status")
    }
}
