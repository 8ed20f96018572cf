import CCAIWire
import Foundation
import Timekeeping

/// A webhook receiver for scripts and tests (`ccai run --webhook-listen HOST:PORT`): an
/// HTTP server that takes `POST path` with a body of at most ``maximumBodyBytes``, checks
/// its signature and timestamp as the chat platform API guide describes
/// (``WebhookSignature``), reads the ``WebhookEnvelope`` and hands each delivery to
/// `handler`, then answers 204. Refused, with nothing handed on:
///
/// - a missing, malformed or wrong signature, or a timestamp further than the tolerance
///   from `clock` (401);
/// - a body that is not an envelope (400), or larger than the limit (413);
/// - a replay: the same timestamp and body again within the tolerance, however its
///   headers are spelled (409; our choice: a sender signs every attempt anew, so only a
///   copy repeats both). A delivery the sender retried after an answer it missed has a
///   new timestamp: the envelope's `id` tells it apart.
///
/// ```swift
/// let (receiver, deliveries) = try WebhookReceiver.stream(port: 9000, signature: signature)
/// for await delivery in deliveries { print(delivery.event, delivery.chatID) }
/// ```
public final class WebhookReceiver: Sendable {
    /// One verified delivery.
    public struct Delivery: Sendable, Equatable {
        /// The event's name (`chat_created`...).
        public var event: String
        public var chatID: Int
        public var data: JSONValue
        /// The whole envelope (its `id` and `timestamp` too).
        public var envelope: WebhookEnvelope
    }

    /// The largest body read: 256 KiB (our choice; a chat message is far smaller).
    public static let maximumBodyBytes = 256 << 10
    /// Deliveries remembered for the replay check at most (65,536); past it, when none
    /// has expired, a delivery is answered 503 and the sender retries later.
    public static let maximumRemembered = 65_536

    private let server: HTTPServer
    /// Ends what the receiver feeds (its stream) once it stops.
    private let onStop: @Sendable () -> Void
    /// The port listened on (the one chosen when 0 was asked).
    public var port: UInt16 { server.port }
    /// `http://ADDRESS:PORT`.
    public var baseURL: String { server.baseURL }

    /// Listens on `address`:`port` (0: a free port) for `POST path`, verifying with
    /// `signature` (its secrets and tolerance) against `clock`'s time.
    public convenience init(address: String = "127.0.0.1", port: UInt16 = 0, path: String = "/", signature: WebhookSignature,
                            clock: any TimeSource = SystemClock(), handler: @escaping @Sendable (Delivery) async -> Void) throws {
        try self.init(address: address, port: port, path: path, signature: signature, clock: clock, handler: handler, onStop: {})
    }

    private init(address: String, port: UInt16, path: String, signature: WebhookSignature, clock: any TimeSource,
                 handler: @escaping @Sendable (Delivery) async -> Void, onStop: @escaping @Sendable () -> Void) throws {
        self.onStop = onStop
        let intake = WebhookIntake(signature: signature, clock: clock, handler: handler)
        var router = HTTPRouter()
        router.add("POST", path, maximumBodyBytes: Self.maximumBodyBytes, authentication: .none) { request in
            await intake.accept(request)
        }
        server = try HTTPServer(router: router, address: address, port: port)
    }

    /// A receiver whose deliveries come as a stream (buffering at most `buffer` not yet
    /// read; past it the oldest unread go).
    public static func stream(address: String = "127.0.0.1", port: UInt16 = 0, path: String = "/",
                              signature: WebhookSignature, clock: any TimeSource = SystemClock(),
                              buffer: Int = 10_000) throws -> (WebhookReceiver, AsyncStream<Delivery>) {
        let (stream, continuation) = AsyncStream<Delivery>.makeStream(bufferingPolicy: .bufferingNewest(max(1, buffer)))
        let receiver = try WebhookReceiver(address: address, port: port, path: path, signature: signature, clock: clock,
                                           handler: { continuation.yield($0) }, onStop: { continuation.finish() })
        return (receiver, stream)
    }

    /// Stops listening (requests under way finish, up to `grace` seconds); a stream of
    /// deliveries ends.
    public func stop(grace: TimeInterval = 5) async {
        await server.stop(grace: grace)
        onStop()
    }
}

/// What the receiver does with a request: verify, refuse replays, read, hand on.
final class WebhookIntake: Sendable {
    let signature: WebhookSignature
    let clock: any TimeSource
    let handler: @Sendable (WebhookReceiver.Delivery) async -> Void
    /// The timestamp and body digest of deliveries accepted, with when they expire.
    private let seen = LockedState<[String: Date]>([:])

    init(signature: WebhookSignature, clock: any TimeSource, handler: @escaping @Sendable (WebhookReceiver.Delivery) async -> Void) {
        self.signature = signature
        self.clock = clock
        self.handler = handler
    }

    func accept(_ request: HTTPRequest) async -> HTTPResponse {
        let signatureHeader = request.headers[WebhookSignature.signatureHeader.lowercased()]
        let timestampHeader = request.headers[WebhookSignature.timestampHeader.lowercased()]
        let now = clock.now()
        let signedAt: Date
        do {
            signedAt = try signature.verify(body: request.body, signature: signatureHeader, timestamp: timestampHeader, now: now)
        } catch {
            return HTTPError.unauthenticated(String(describing: error)).response
        }
        guard let envelope = try? JSONDecoder().decode(WebhookEnvelope.self, from: request.body) else {
            return HTTPError.badRequest("the body is not a webhook envelope: a JSON object with id, event, chat_id, "
                                        + "timestamp and data expected").response
        }
        // The signed content names a delivery, however its headers are spelled.
        if let refusal = remember("\(timestampHeader ?? "") \(Digest.sha256Hex(request.body))", until: signedAt + signature.tolerance,
                                  now: now) {
            return refusal.response
        }
        await handler(WebhookReceiver.Delivery(event: envelope.event, chatID: envelope.chatId, data: envelope.data,
                                               envelope: envelope))
        return .noContent
    }

    /// Remembers a delivery until it expires; the refusal when it was seen already, or
    /// when there is no room for it.
    private func remember(_ key: String, until expiry: Date, now: Date) -> HTTPError? {
        seen.withLock { seen in
            if let expires = seen[key], expires >= now {
                return HTTPError.conflict("this delivery was received already (the same signature and timestamp): a replay")
            }
            if seen.count >= WebhookReceiver.maximumRemembered { seen = seen.filter { $0.value >= now } }
            guard seen.count < WebhookReceiver.maximumRemembered else {
                return HTTPError(code: .unavailable, message: "too many deliveries within the tolerance; try again later")
            }
            seen[key] = expiry
            return nil
        }
    }
}
