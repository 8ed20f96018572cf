import CCAIKit
import CCAISandbox
import CCAIScripting
import CCAIWire
import Foundation

/// The platform connection figures of issue 3, measured side by side in one run.
struct PlatformBenchmarks {
    let fetches = 1_000

    /// 1,000 sequential authenticated menu fetches through the SDK (decoded into models)
    /// vs the same 1,000 requests made by one `curl` invocation reusing its connection.
    /// The rate limit is lifted: the figure measures the transport, not the limiter (which
    /// still runs on every request).
    func httpRoundTripRatio() async throws -> BenchmarkResult {
        var configuration = SandboxConfiguration.builtIn
        var limits = LimitsConfiguration()
        limits.requestsPerSecond = 1e9
        limits.burst = 1e9
        configuration.limits = limits
        let server = try Sandbox(configuration: configuration).serve()
        defer { Task { await server.stop() } }
        let sdk = CCAI()
        try sdk.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(server.port)", cacheAuthToken: false))
        let jwt = try JWTSigner(algorithm: .hs384, secret: "dev-secret").sign(["identifier": "bench"], issuedAt: Date(), lifetime: 3_600)
        let token = try await sdk.authService!.authenticate(jwt)
        let service = sdk.queueMenuService!
        _ = try await service.get(language: "en")

        let url = "\(server.baseURL)/queue_menus?language=en"
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("bench-curl-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: config) }
        var lines = ["silent", "header = \"Authorization: Bearer \(token)\""]
        for _ in 0..<fetches { lines += ["url = \"\(url)\"", "output = \"/dev/null\""] }
        try lines.joined(separator: "\n").write(to: config, atomically: true, encoding: .utf8)

        var sdkBest = Double.infinity, curlBest = Double.infinity
        for _ in 0..<3 {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<fetches {
                let (menus, _) = try await service.get(language: "en")
                guard menus.count == 5 else { throw BenchmarkError(message: "unexpected menus") }
            }
            sdkBest = min(sdkBest, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            curlBest = min(curlBest, try timeCurl(config: config.path))
        }
        return BenchmarkResult(
            name: "http_round_trip_ratio", value: sdkBest / curlBest, target: "<= 1.5",
            detail: String(format: "SDK %.3f s, curl %.3f s for %d menu fetches", sdkBest, curlBest, fetches))
    }

    /// Seconds one `curl --config FILE` run takes.
    private func timeCurl(config: String) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        let status = try ChildProcess("/usr/bin/curl", ["--config", config], output: .null).wait()
        guard status == 0 else { throw BenchmarkError(message: "curl exited with \(status)") }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
