import CCAIKit
import CCAIWire
import Foundation
import Testing

/// The docs' table of retries per error code is the code's: one row per `ErrorCode`, in
/// the enum's order, with its HTTP status and its `RetryRule`'s words, so that the table
/// cannot drift from what the SDK does.
@Suite struct RetryTableTests {
    @Test func theDocsListEveryErrorCodesRetryAsTheSDKDoes() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/sdk-and-sandbox.md"), encoding: .utf8)
        let lines = docs.components(separatedBy: "\n")
        let header = try #require(lines.firstIndex(of: "| code | HTTP | retried |"), "the table's header")
        let rows = lines[(header + 2)...].prefix { $0.hasPrefix("|") }
        let expected = ErrorCode.allCases.map { "| `\($0.rawValue)` | \($0.httpStatus) | \($0.retry.summary) |" }
        #expect(Array(rows) == expected)
    }

    /// The list: a quota, a refusal, a bad argument, something missing or in the
    /// way is never worth retrying; only a network's or a platform's trouble is.
    @Test func onlyTroubleThatMayPassIsRetryable() {
        for code in [ErrorCode.forbidden, .invalidArgument, .notFound, .conflict, .internal, .tooLarge] {
            #expect(code.retry == .never, "\(code)")
        }
        #expect(ErrorCode.limitExceeded.retry == .whenARateLimitPasses)
        #expect(ErrorCode.allCases.filter(\.retry.isTransient) == [.unavailable, .timeout])
    }
}
