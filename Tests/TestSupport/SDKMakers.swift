import CCAIBridge
import CCAIKit
import CCAISandbox
import Foundation
import Timekeeping

/// An SDK instance on `sandbox` in the same process, as `ccai run` reaches its embedded
/// sandbox: each request goes to the sandbox's router (``RouterTransport``), with no socket,
/// and the pushes the instance registers for reach it through `pushNetwork` when the
/// sandbox sends to that network. The maker for tests of the SDK; the loopback one
/// (``makeLoopbackSDK(port:delegate:tokens:cache:language:clock:)``) is for tests of the
/// transport itself and of what needs a real socket.
///
/// `clock` drives the SDK's own waits (retries, backoff, the outbox); a request's timeout
/// runs on the real clock, as libcurl's does over loopback, so that a test advancing a
/// manual clock finds only the SDK's timers on it.
public func makeSDK(_ sandbox: Sandbox, delegate: SigningDelegate?, tokens: String? = nil, cache: Bool = true,
                    language: String? = nil, clock: any TimeSource = SystemClock(), pushNetwork: LocalPushNetwork? = nil) throws -> CCAI {
    let http = HTTPClient(clock: clock, transport: RouterTransport(router: sandbox.router))
    return try initializedSDK(CCAI(http: http, pushNetwork: pushNetwork), urlHost: inProcessHost, delegate: delegate,
                              tokens: tokens, cache: cache, language: language)
}

/// An SDK instance for the sandbox served on `port` over loopback HTTP (libcurl),
/// authenticating through `delegate`.
public func makeLoopbackSDK(port: UInt16, delegate: SigningDelegate?, tokens: String? = nil, cache: Bool = true,
                            language: String? = nil, clock: any TimeSource = SystemClock()) throws -> CCAI {
    try initializedSDK(CCAI(http: HTTPClient(clock: clock)), urlHost: "127.0.0.1:\(port)", delegate: delegate,
                       tokens: tokens, cache: cache, language: language)
}

/// The host an in-process SDK's options name: one that resolves nowhere (RFC 6761's
/// `.invalid`), as `ccai run` names its embedded sandbox.
public let inProcessHost = "embedded-sandbox.invalid"

/// `ccai` initialized with the built-in company's key, authenticating through `delegate`.
private func initializedSDK(_ ccai: CCAI, urlHost: String, delegate: SigningDelegate?, tokens: String?, cache: Bool,
                            language: String?) throws -> CCAI {
    delegate?.ccai = ccai
    try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: urlHost, delegate: delegate,
                                             languageCode: language, cacheAuthToken: cache, tokenDirectory: tokens))
    return ccai
}
