import CCAIKit
import CCAIWire
import Foundation
import Timekeeping

/// An SDK instance for the sandbox on `port`, authenticating through `delegate`.
public func makeSDK(port: UInt16, delegate: SigningDelegate?, tokens: String? = nil, cache: Bool = true,
                    language: String? = nil, clock: any Clock = SystemClock()) throws -> CCAI {
    let ccai = CCAI(http: HTTPClient(clock: clock))
    delegate?.ccai = ccai
    try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:\(port)", delegate: delegate,
                                             languageCode: language, cacheAuthToken: cache, tokenDirectory: tokens))
    return ccai
}

/// Signs JWTs for an identifier, as an app's backend would, and counts the requests.
public final class SigningDelegate: CCAIDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var _calls = 0
    public var calls: Int { lock.withLock { _calls } }
    public let identifier: String
    public let secret: String
    public weak var ccai: CCAI?
    public var returnsNothing = false

    public init(identifier: String, secret: String = "dev-secret") {
        self.identifier = identifier
        self.secret = secret
    }

    public func ccaiShouldAuthenticate() async -> String? {
        lock.withLock { _calls += 1 }
        guard !returnsNothing,
            let jwt = try? JWTSigner(algorithm: .hs384, secret: secret)
                .sign(["identifier": .string(identifier), "name": "Ana"], issuedAt: Date(), lifetime: 600)
        else { return nil }
        return try? await ccai?.authService?.authenticate(jwt)
    }
}
