import CCAIScripting
import Foundation
import TestSupport

/// Requests made with the `curl` command (a client independent of the project's own).
enum Curl {
    struct Reply {
        var status: Int
        var body: String
        /// The response headers, names lowercased.
        var headers: [String: String] = [:]
    }

    /// Runs curl on a thread of its own, never blocking the cooperative pool that the
    /// server's handlers need. A request that has not ended after `maxSeconds` gives
    /// status 0. The limit guards against a hang, it measures nothing: when the whole
    /// suite starts, CPU-bound tests can hold both of this machine's pool threads for
    /// 20 s, and a request waits for them.
    static func request(_ method: String, _ url: String, body: Data? = nil, headers: [String: String] = [:],
                        maxSeconds: Int = 90) async throws -> Reply
    {
        try await offThePool { try blockingRequest(method, url, body: body, headers: headers, maxSeconds: maxSeconds) }
    }

    private static func blockingRequest(_ method: String, _ url: String, body: Data?, headers: [String: String],
                                        maxSeconds: Int) throws -> Reply
    {
        var arguments = ["-s", "-X", method, "-w", "\n%{http_code}", "--max-time", String(maxSeconds)]
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        let headerFile = FileManager.default.temporaryDirectory.appendingPathComponent("curl-headers-\(UUID().uuidString)")
        arguments += ["-D", headerFile.path]
        defer { try? FileManager.default.removeItem(at: headerFile) }
        if let body {
            try body.write(to: bodyFile)
            arguments += ["--data-binary", "@\(bodyFile.path)"]
        }
        defer { try? FileManager.default.removeItem(at: bodyFile) }
        let text = String(decoding: try ChildProcess.run("/usr/bin/curl", arguments + [url], errorsTo: .inherit).output,
                          as: UTF8.self)
        guard let split = text.lastIndex(of: "\n"), let status = Int(text[text.index(after: split)...]) else {
            return Reply(status: 0, body: text)
        }
        var headers: [String: String] = [:]
        let headerText = (try? String(contentsOf: headerFile, encoding: .utf8)) ?? ""
        for line in headerText.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, body: String(text[..<split]), headers: headers)
    }
}
