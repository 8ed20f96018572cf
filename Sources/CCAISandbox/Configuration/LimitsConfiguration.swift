import Foundation

/// What one end user may ask of the sandbox (`limits = { ... }` in a configuration), and
/// how long it keeps what they leave: past a quota a request gets a 429 `limit_exceeded`
/// that names it. Every field has a default, generous enough for scenarios that hurry; the
/// real platform allows 10 requests a second per customer (`requests_per_second = 10`
/// tries that; docs/security.md). A sandbox that serves one run only (the embedded
/// sandbox of `ccai run`) applies no default rate or quota: only those its configuration
/// sets (``LimitDefaults``).
///
/// ```lua
/// limits = { requests_per_second = 50, burst = 200, chats_per_hour = 60,
///            uploads_per_hour = 60, upload_bytes_per_hour = 200 * 1024 * 1024,
///            stored_bytes_per_hour = 64 * 1024 * 1024,
///            screen_shares_per_hour = 30, sign_ins_per_minute = 10,
///            company_sign_ins_per_second = 1000, company_sign_in_burst = 10000,
///            event_retention_seconds = 86400,
///            media_retention_seconds = 7 * 86400, event_streams_per_end_user = 4,
///            connections_per_address = 128 }
/// ```
public struct LimitsConfiguration: Codable, Sendable, Equatable {
    /// Sustained requests per second per end user (default 50).
    public var requestsPerSecond: Double?
    /// Requests an end user may make at once before the rate applies (default 200).
    public var burst: Double?
    /// Chats an end user may start in an hour (default 60).
    public var chatsPerHour: Int?
    /// Voice calls an end user may start in an hour (default 60).
    public var callsPerHour: Int?
    /// Photos and videos an end user may upload in an hour (default 60).
    public var uploadsPerHour: Int?
    /// Bytes an end user may upload in an hour (default 200 MiB).
    public var uploadBytesPerHour: Int?
    /// Screen-share sessions an end user may create in an hour (default 30).
    public var screenSharesPerHour: Int?
    /// Bytes an end user may send in an hour to be stored: the bodies of their requests
    /// that change something (messages, chat events, answers, profile...), uploads
    /// aside (`upload_bytes_per_hour` counts those). Default 64 MiB.
    public var storedBytesPerHour: Int?
    /// Sign-ins a second for the company, over all its end users, before the JWT's
    /// signature is checked (default 1,000).
    public var companySignInsPerSecond: Double?
    /// Sign-ins the company may take at once before its rate applies (default 10,000: a
    /// load test signs in its thousands of virtual users together).
    public var companySignInBurst: Double?
    /// Sign-ins a minute as one identifier, all at once if need be (default 10).
    public var signInsPerMinute: Int?
    /// How long stored real-time events are kept for replay (default one day).
    public var eventRetentionSeconds: Double?
    /// How long the files of ended chats are kept (default seven days).
    public var mediaRetentionSeconds: Double?
    /// Event streams (`GET /events`) an end user may hold open at once (default 4); a new
    /// one past it closes their oldest, so that an SDK reconnecting after a network drop is
    /// never locked out by the stream it lost.
    public var eventStreamsPerEndUser: Int?
    /// Connections a served sandbox (`ccai sandbox serve`) takes at once from one address
    /// (default 128; 0: no limit; loopback addresses are not limited). A machine running
    /// thousands of VUs against it holds one event stream per VU: raise it for a
    /// distributed load test (docs/kubernetes.md).
    public var connectionsPerAddress: Int?

    /// What the sandbox does with a rate or a quota left out (not read from a
    /// configuration: the sandbox's maker says it, ``Sandbox/init(configuration:dataDirectory:clock:pushSink:limitDefaults:log:)``).
    var defaults = LimitDefaults.builtIn

    private enum CodingKeys: String, CodingKey {
        case requestsPerSecond, burst, chatsPerHour, callsPerHour, uploadsPerHour, uploadBytesPerHour, screenSharesPerHour
        case storedBytesPerHour, companySignInsPerSecond, companySignInBurst, signInsPerMinute, eventRetentionSeconds
        case mediaRetentionSeconds, eventStreamsPerEndUser, connectionsPerAddress
    }

    public init() {}

    // The rates and quotas (nil: none), each its setting or, with the built-in defaults, its default.

    /// Requests per end user: a rate after a burst.
    var effectiveRequestRate: (rate: Double, burst: Double)? {
        applies(requestsPerSecond, burst) ? (requestsPerSecond ?? 50, burst ?? 200) : nil
    }
    var effectiveChatsPerHour: Int? { chatsPerHour ?? builtIn(60) }
    var effectiveCallsPerHour: Int? { callsPerHour ?? builtIn(60) }
    var effectiveUploadsPerHour: Int? { uploadsPerHour ?? builtIn(60) }
    var effectiveUploadBytesPerHour: Int? { uploadBytesPerHour ?? builtIn(200 << 20) }
    var effectiveScreenSharesPerHour: Int? { screenSharesPerHour ?? builtIn(30) }
    var effectiveStoredBytesPerHour: Int? { storedBytesPerHour ?? builtIn(64 << 20) }
    /// The company's sign-ins: a rate after a burst.
    var effectiveCompanySignInRate: (rate: Double, burst: Double)? {
        applies(companySignInsPerSecond, companySignInBurst) ? (companySignInsPerSecond ?? 1_000, companySignInBurst ?? 10_000) : nil
    }
    var effectiveSignInsPerMinute: Int? { signInsPerMinute ?? builtIn(10) }

    /// `value` when the built-in defaults apply.
    private func builtIn<Value>(_ value: Value) -> Value? { defaults == .builtIn ? value : nil }

    /// Whether a rate with these settings (a rate and its burst) is enforced: one is set,
    /// or the built-in defaults apply (the other then takes its default).
    private func applies(_ rate: Double?, _ burst: Double?) -> Bool { defaults == .builtIn || rate != nil || burst != nil }

    // What the sandbox keeps, and for how long: with every sandbox's defaults.
    var effectiveEventRetentionSeconds: Double { eventRetentionSeconds ?? 86_400 }
    var effectiveMediaRetentionSeconds: Double { mediaRetentionSeconds ?? 7 * 86_400 }
    var effectiveEventStreamsPerEndUser: Int { eventStreamsPerEndUser ?? 4 }
    public var effectiveConnectionsPerAddress: Int { connectionsPerAddress ?? HTTPServer.Limits().connectionsPerAddress }

    /// Every field that is not a positive, finite number, named.
    func problems() -> [String] {
        var problems: [String] = []
        let numbers: [(String, Double?)] = [
            ("requests_per_second", requestsPerSecond), ("burst", burst), ("company_sign_ins_per_second", companySignInsPerSecond),
            ("company_sign_in_burst", companySignInBurst), ("event_retention_seconds", eventRetentionSeconds),
            ("media_retention_seconds", mediaRetentionSeconds),
        ]
        for (name, value) in numbers {
            if let value, !(value > 0 && value.isFinite) { problems.append("limits.\(name): a positive number expected") }
        }
        let counts: [(String, Int?)] = [
            ("chats_per_hour", chatsPerHour), ("calls_per_hour", callsPerHour), ("uploads_per_hour", uploadsPerHour), ("upload_bytes_per_hour", uploadBytesPerHour),
            ("screen_shares_per_hour", screenSharesPerHour), ("sign_ins_per_minute", signInsPerMinute),
            ("stored_bytes_per_hour", storedBytesPerHour), ("event_streams_per_end_user", eventStreamsPerEndUser),
        ]
        for (name, value) in counts {
            if let value, value <= 0 { problems.append("limits.\(name): a positive integer expected") }
        }
        if let connections = connectionsPerAddress, !(0...1_000_000).contains(connections) {
            problems.append("limits.connections_per_address: a whole number from 0 (no limit) to 1000000 expected")
        }
        return problems
    }
}

/// What a sandbox does with a rate or a quota of `limits` that its configuration leaves
/// out. What it keeps and for how long (retention, event streams per end user,
/// connections per address) takes its default either way.
public enum LimitDefaults: Sendable, Equatable {
    /// The built-in defaults apply: a sandbox shared by whoever reaches it (`ccai sandbox
    /// serve`), which they protect.
    case builtIn
    /// None applies, only the limits the configuration sets: a sandbox that serves one run
    /// (the embedded sandbox of `ccai run`), whose end users are that run's own, so that a
    /// load test needs no configuration to lift them.
    case onlyConfigured
}
