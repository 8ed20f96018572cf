import CCAIWire
import Foundation

/// The session metadata of ended chats and calls (docs/session-metadata.md): built from
/// the store when asked (the admin routes), and written, when the sandbox has a data
/// folder (`--data`), as `exports/chat-ID.json` or `exports/call-ID.json` there when the
/// session ends and again when its rating or survey comes in (the platform also updates
/// its file after the session). File names are made from the session's id, never from
/// input. Writing is off the request path: a queue of one writer, in order;
/// ``flush()`` waits for it.
///
/// ```swift
/// let record = try await exports.metadata(.chat, id: 12)    // or a 404
/// await exports.flush()                                     // exports/chat-12.json written
/// ```
final class SessionMetadataExports: SessionChangeObserver {
    let configuration: SandboxConfiguration
    let store: SandboxStore
    /// `DATA/exports`, or nil without a data folder (nothing is written; the routes still
    /// answer from the store).
    let directory: URL?
    private let writer = ExportQueue()
    private let log: @Sendable (String) -> Void

    init(configuration: SandboxConfiguration, store: SandboxStore, dataDirectory: String?, log: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        self.store = store
        directory = dataDirectory.map { URL(fileURLWithPath: $0).appendingPathComponent("exports", isDirectory: true) }
        self.log = log
    }

    /// The record of ended session `id`, or a 404 naming why there is none.
    func metadata(_ kind: CommunicationRouter.CommunicationType, id: Int) async throws -> SessionMetadata {
        let facts = kind == .chat ? try await store.endedChatFacts(id: id) : try await store.endedCallFacts(id: id)
        guard let facts else {
            throw HTTPError.notFound("there is no ended \(kind.rawValue) \(id): a \(kind.rawValue)'s metadata exists once it has ended")
        }
        return SessionMetadataBuilder(configuration: configuration).record(facts)
    }

    /// The records of the ended sessions of `kind` after id `after`, ascending, at most `limit`.
    func page(_ kind: CommunicationRouter.CommunicationType, after: Int, limit: Int) async throws -> SessionMetadataPage {
        let ids = try await store.endedSessionIDs(kind, after: after, limit: limit)
        var sessions: [SessionMetadata] = []
        for id in ids { sessions.append(try await metadata(kind, id: id)) }
        return SessionMetadataPage(sessions: sessions)
    }

    /// Queues the session's file to be written (again), when there is a data folder.
    func sessionUpdated(_ kind: CommunicationRouter.CommunicationType, id: Int) async {
        guard let directory else { return }
        await writer.enqueue { [self] in
            do {
                let record = try await metadata(kind, id: id)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try HTTPResponse.encoder.encode(record)
                    .write(to: directory.appendingPathComponent("\(kind.rawValue)-\(id).json"), options: .atomic)
            } catch {
                log("sandbox: the session metadata of \(kind.rawValue) \(id) could not be written to \(directory.path): \(error)")
            }
        }
    }

    /// Waits until every file queued so far is written.
    func flush() async {
        await writer.drain()
    }

    func sessionChanged(_ change: SessionChange) async {
        switch change {
        case .ended(let chat): await sessionUpdated(.chat, id: chat.id)
        case .callEnded(let call): await sessionUpdated(.call, id: call.id)
        case .queued, .endUserWrote, .callWaiting: break
        }
    }
}

/// Runs jobs one after another, in the order given, away from whoever gave them.
private actor ExportQueue {
    private var last: Task<Void, Never>?

    func enqueue(_ job: @escaping @Sendable () async -> Void) {
        let previous = last
        last = Task {
            await previous?.value
            await job()
        }
    }

    func drain() async {
        await last?.value
    }
}
