import CCAIKit
import CCAIWire
import Foundation
import Testing
import Timekeeping

/// A 429 is retried only when its `Retry-After` is short enough to wait for: a rate limit
/// passes within moments, a quota (an end user's chats an hour) does not, and waiting for
/// it only hangs the call (issue 34: a refused `ccai.chat.start` took 30 s).
@Suite struct QuotaRefusalTests {
    /// Answers every request 429 with `retryAfter`, counting the requests.
    private final class Refusing: HTTPTransport, @unchecked Sendable {
        let retryAfter: String
        private let lock = NSLock()
        private var count = 0
        var requests: Int { lock.withLock { count } }

        init(retryAfter: String) { self.retryAfter = retryAfter }

        func perform(_ request: HTTPClientRequest, onChunk: ((Int, Data) -> Bool)?) async throws -> HTTPClientResponse {
            lock.withLock { count += 1 }
            return HTTPClientResponse(status: 429, headers: ["retry-after": retryAfter],
                                      body: Data(#"{"code":"limit_exceeded","message":"at most 60 chats an hour"}"#.utf8))
        }
    }

    @Test func aQuotasRefusalIsTheAnswerAtOnce() async throws {
        let transport = Refusing(retryAfter: "60")
        let client = HTTPClient(clock: ManualClock(), transport: transport)
        let response = try await client.send(HTTPClientRequest(method: "POST", url: "http://127.0.0.1:1/chats"))
        #expect(response.status == 429)
        #expect(transport.requests == 1, "a Retry-After past the policy's longest is not waited for")
    }

    @Test func aRetryAfterLongerThanTheRequestsTimeoutIsNotWaitedFor() async throws {
        let transport = Refusing(retryAfter: "5")
        let client = HTTPClient(clock: ManualClock(), transport: transport)
        var request = HTTPClientRequest(url: "http://127.0.0.1:1/company")
        request.timeout = 2
        #expect(try await client.send(request).status == 429)
        #expect(transport.requests == 1)
    }

    /// A short Retry-After (a rate limit) is waited for, on the client's clock, up to the
    /// policy's retries.
    @Test func aRateLimitsRetryAfterIsWaitedFor() async throws {
        let transport = Refusing(retryAfter: "0")
        let client = HTTPClient(retryPolicy: RetryPolicy(maximumRetries: 2), clock: ManualClock(), transport: transport)
        #expect(try await client.send(HTTPClientRequest(url: "http://127.0.0.1:1/company")).status == 429)
        #expect(transport.requests == 3, "the first attempt and two retries")
    }

    /// docs/sdk-and-sandbox.md's table of retries by error code says what `ErrorCode.retry`
    /// does, code by code.
    @Test func theDocsSayHowEachCodeIsRetried() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/sdk-and-sandbox.md"), encoding: .utf8)
        for code in ErrorCode.allCases {
            #expect(docs.contains("| `\(code.rawValue)` | \(code.httpStatus) | \(code.retry.summary) |"), "\(code)")
        }
    }
}
