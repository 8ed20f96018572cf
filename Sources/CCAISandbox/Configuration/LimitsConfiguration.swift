import Foundation

/// What one end user may ask of the sandbox (`limits = { ... }` in a configuration), and
/// how long it keeps what they leave: past a quota a request gets a 429 `limit_exceeded`
/// that names it. Every field has a default, generous enough for scenarios that hurry; the
/// real platform allows 10 requests a second per customer (`requests_per_second = 10`
/// tries that; docs/security.md).
///
/// ```lua
/// limits = { requests_per_second = 50, burst = 200, chats_per_hour = 60,
///            uploads_per_hour = 60, upload_bytes_per_hour = 200 * 1024 * 1024,
///            stored_bytes_per_hour = 64 * 1024 * 1024,
///            screen_shares_per_hour = 30, sign_ins_per_minute = 10,
///            company_sign_ins_per_second = 1000, company_sign_in_burst = 10000,
///            sign_in_failures_per_second = 10, sign_in_failure_burst = 100,
///            event_retention_seconds = 86400,
///            media_retention_seconds = 7 * 86400, event_streams_per_end_user = 4,
///            connections_per_address = 128, apps_requests_per_second = 10, apps_burst = 10 }
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
    /// Sign-ins a second for the company, over all its end users, once the JWT's signature
    /// holds (default 1,000).
    public var companySignInsPerSecond: Double?
    /// Sign-ins the company may take at once before its rate applies (default 10,000: a
    /// load test signs in its thousands of virtual users together).
    public var companySignInBurst: Double?
    /// Sign-ins a minute as one identifier, all at once if need be (default 10).
    public var signInsPerMinute: Int?
    /// Failed sign-ins (an unknown company key, a refused JWT) a second from one address;
    /// past them the address gets a 429 before its JWT is checked (default 10).
    public var signInFailuresPerSecond: Double?
    /// Failed sign-ins from one address at once before its rate applies (default 100).
    public var signInFailureBurst: Double?
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
    /// Sustained Apps API requests per second for the company, over all its credentials
    /// (default 10: the platform's published limit per customer).
    public var appsRequestsPerSecond: Double?
    /// Apps API requests the company may make at once before the rate applies (default
    /// 10: one second's worth; our choice, the public pages give the rate only).
    public var appsBurst: Double?

    public init() {}

    /// What "no quota" is: more than any run asks for.
    static let unlimited = 1_000_000_000

    /// The limits of a sandbox that serves one `ccai run` in its process (docs/scenarios.md,
    /// load tests): the hourly quotas and the sign-ins a minute this leaves unset do not
    /// apply. They protect a shared sandbox from one end user; here the run's VUs are the
    /// only end users, and a load test is many iterations of each (200 customers a minute
    /// for 10 minutes on a few VUs). Those a configuration sets, and the request rate, stay.
    public func forOneRun() -> LimitsConfiguration {
        var limits = self
        for quota in [\LimitsConfiguration.chatsPerHour, \.callsPerHour, \.uploadsPerHour, \.uploadBytesPerHour,
                      \.screenSharesPerHour, \.storedBytesPerHour, \.signInsPerMinute] where limits[keyPath: quota] == nil {
            limits[keyPath: quota] = Self.unlimited
        }
        return limits
    }

    var effectiveRequestsPerSecond: Double { requestsPerSecond ?? 50 }
    var effectiveBurst: Double { burst ?? 200 }
    var effectiveChatsPerHour: Int { chatsPerHour ?? 60 }
    var effectiveCallsPerHour: Int { callsPerHour ?? 60 }
    var effectiveUploadsPerHour: Int { uploadsPerHour ?? 60 }
    var effectiveUploadBytesPerHour: Int { uploadBytesPerHour ?? 200 << 20 }
    var effectiveScreenSharesPerHour: Int { screenSharesPerHour ?? 30 }
    var effectiveStoredBytesPerHour: Int { storedBytesPerHour ?? 64 << 20 }
    var effectiveCompanySignInsPerSecond: Double { companySignInsPerSecond ?? 1_000 }
    var effectiveCompanySignInBurst: Double { companySignInBurst ?? 10_000 }
    var effectiveSignInsPerMinute: Int { signInsPerMinute ?? 10 }
    var effectiveSignInFailuresPerSecond: Double { signInFailuresPerSecond ?? 10 }
    var effectiveSignInFailureBurst: Double { signInFailureBurst ?? 100 }
    var effectiveEventRetentionSeconds: Double { eventRetentionSeconds ?? 86_400 }
    var effectiveMediaRetentionSeconds: Double { mediaRetentionSeconds ?? 7 * 86_400 }
    var effectiveEventStreamsPerEndUser: Int { eventStreamsPerEndUser ?? 4 }
    var effectiveAppsRequestsPerSecond: Double { appsRequestsPerSecond ?? 10 }
    var effectiveAppsBurst: Double { appsBurst ?? 10 }
    public var effectiveConnectionsPerAddress: Int { connectionsPerAddress ?? HTTPServer.Limits().connectionsPerAddress }

    /// Every field that is not a positive, finite number, named.
    func problems() -> [String] {
        var problems: [String] = []
        let numbers: [(String, Double?)] = [
            ("requests_per_second", requestsPerSecond), ("burst", burst), ("company_sign_ins_per_second", companySignInsPerSecond),
            ("company_sign_in_burst", companySignInBurst), ("sign_in_failures_per_second", signInFailuresPerSecond),
            ("sign_in_failure_burst", signInFailureBurst), ("event_retention_seconds", eventRetentionSeconds),
            ("media_retention_seconds", mediaRetentionSeconds), ("apps_requests_per_second", appsRequestsPerSecond),
            ("apps_burst", appsBurst),
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
