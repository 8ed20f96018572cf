import Foundation
import TestSupport
import Testing

/// A hostile platform floods a script's event stream with events the script never waits
/// for (issue 38, item 2: 3.7 GB of host memory, 37 MB/s of growth). The stream is read
/// only as fast as the host takes its events, what a subscriber has not taken is bounded
/// in bytes, and the events no script waits for count against the VU's memory, the oldest
/// dropped past its budget: the host's memory stays flat.
@Suite struct EventFloodTests {
    /// One `messages_received` event of `size` bytes of text from an agent, numbered `n`.
    private static func event(_ n: Int, size: Int) -> String {
        let text = String(repeating: "x", count: size)
        return "id: \(n)\nevent: messages_received\ndata: [{\"id\":\(n),\"chat_id\":1,\"sequence\":\(n),"
            + "\"sender\":{\"type\":\"agent\",\"name\":\"Flood\"},\"type\":\"text\",\"text\":\"\(text)\",\"created_at\":0}]\n\n"
    }

    /// A platform that signs anyone in, then sends 256 KB events at about 10 MB/s for as long
    /// as the client reads them; anything else is a 404.
    private static func floodingPlatform(sent: Counter) throws -> RawHTTPServer {
        try RawHTTPServer { connection in
            let head = connection.readRequestHead()
            if head.hasPrefix("POST /auth/end_user") {
                let body = #"{"auth_token":"t","expires_at":\#(Int(Date().timeIntervalSince1970) + 3600),"end_user":{"id":1,"identifier":"vu-1"}}"#
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                                 + "Connection: close\r\n\r\n" + body)
            } else if head.hasPrefix("GET /events") {
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
                var n = 0
                while true {
                    n += 1
                    guard connection.write(event(n, size: 256 << 10)) else { return }
                    sent.add(1)
                    usleep(25_000)
                }
            } else {
                connection.write("HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
            }
        }
    }

    @Test(.timeLimit(.minutes(2))) func aFloodOfEventsNoOneWaitsForLeavesTheHostsMemoryFlat() async throws {
        let sent = Counter()
        let platform = try Self.floodingPlatform(sent: sent)
        defer { platform.stop() }
        let marker = "flood-\(UUID().uuidString)"
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("\(marker).lua")
        try """
            ccai.initialize_chat()
            -- Listening to another event opens the stream; no one takes messages_received.
            ccai.chat.on("typing_event", function() end)
            ccai.sleep(36)
            print("still here")
            """.write(to: script, atomically: true, encoding: .utf8)
        // Under AddressSanitizer, freed memory stays resident in its quarantine (256 MB by
        // default) and would read as growth: the host here keeps 8 MB of it.
        let sanitizer = (ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "quarantine_size_mb=8"
        let run = Task {
            try await CLI.run(["run", script.path, "--host", platform.baseURL, "--company-key", "k", "--company-secret", "s"],
                              timeout: 90, environment: ["ASAN_OPTIONS": sanitizer], niced: true)
        }
        // The host's resident memory each second, with the events it had read by then (the
        // platform writes only as fast as the host reads), until it ends. The script listens
        // for 36 s: the host is niced, and while the whole suite runs beside it, it can read
        // at a third of its usual pace.
        var samples: [(megabytes: Int, eventsRead: Int)] = []
        var found: Int32?
        for _ in 0..<60 {
            try await Task.sleep(for: .seconds(1))
            if found == nil { found = Self.process(running: marker) }
            guard let pid = found else { continue }
            guard let rss = Self.residentBytes(of: pid) else { break }   // it ended
            samples.append((rss >> 20, sent.value))
        }
        let output = try await run.value
        #expect(output.status == 0 && output.stdout == "still here\n", "\(output.stderr.suffix(2000))")
        #expect(sent.value >= 300, "the platform sent at least 75 MB: \(sent.value) events of 256 KB")
        // Once the host has read 48 MB (more than all its buffers hold), every further byte it
        // reads is dropped or taken, never kept: its memory stays flat while at least 40 MB
        // more flows in. (When that moment comes depends on how busy the machine is.)
        let settled = samples.filter { $0.eventsRead >= 192 }
        let flowed = (settled.last?.eventsRead ?? 0) - (settled.first?.eventsRead ?? 0)
        #expect(flowed >= 160, "at least 40 MB flowed in once the buffers were full: \(flowed) events of 256 KB; \(samples)")
        let megabytes = settled.map(\.megabytes)
        #expect((megabytes.max() ?? 0) - (megabytes.first ?? 0) < 32, "flat, not growing with the flood: \(samples)")
        #expect(output.stderr.contains("dropped the oldest 'messages_received' event"), "\(output.stderr.suffix(2000))")
    }

    /// The pid of the process whose command line contains `marker`.
    private static func process(running marker: String) -> Int32? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for entry in entries {
            guard let pid = Int32(entry), pid != getpid(),
                let command = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                String(decoding: command, as: UTF8.self).contains(marker)
            else { continue }
            return pid
        }
        return nil
    }

    /// VmRSS of `pid`, in bytes.
    private static func residentBytes(of pid: Int32) -> Int? {
        guard let status = FileManager.default.contents(atPath: "/proc/\(pid)/status") else { return nil }
        for line in String(decoding: status, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}

/// A count shared with a server's threads.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add(_ n: Int) { lock.withLock { count += n } }
}
