import CCAIKit
import CCAIWire
import Foundation

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
