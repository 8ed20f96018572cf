import Foundation

/// The encoded answers of `GET /queue_menus`, each kept under what it depends on: the
/// queue of a direct access key (or the whole tree), the language answered in, and every
/// queue's deflection now. A sandbox's configuration does not change while it runs, so
/// the answer is the same bytes until a queue opens, closes, or goes over or back under
/// its capacity; it is rendered and encoded only then.
///
/// ```swift
/// let body = try encodings.body(for: engine.menusKey(key: key, language: language)) {
///     try JSONEncoder().encode(engine.menus(key: key, language: language))
/// }
/// ```
final class QueueMenuEncodings: @unchecked Sendable {
    /// What an answer depends on.
    struct Key: Hashable, Sendable {
        /// The queue a direct access key named, nil for the tree.
        var directAccessMenu: Int?
        /// The language answered in (one of the company's, or English).
        var language: String
        /// Each queue's deflection, in the configuration's order (``QueueMenuEngine/Deflection``).
        var deflections: [QueueMenuEngine.Deflection?]
    }

    /// Answers kept at most; past it the oldest are dropped all at once (each key's parts
    /// are bounded by the configuration, so this is reached only by queues changing state).
    static let capacity = 64

    private let lock = NSLock()
    private var bodies: [Key: Data] = [:]

    /// The body kept for `key`, or the one `encode` makes, kept for the next request.
    func body(for key: Key, orEncode encode: () throws -> Data) rethrows -> Data {
        if let kept = lock.withLock({ bodies[key] }) { return kept }
        let body = try encode()
        lock.withLock {
            if bodies.count >= Self.capacity { bodies.removeAll(keepingCapacity: true) }
            bodies[key] = body
        }
        return body
    }
}
