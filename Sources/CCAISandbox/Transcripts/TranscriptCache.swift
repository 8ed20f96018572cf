import CCAIWire
import Foundation

/// What a chat's transcript shows, as far as telling that it changed goes: the chat, its
/// end user's name (as far as a transcript shows it) and its messages, counted (messages
/// are only ever added, and a file only ever goes when it is pruned).
struct TranscriptVersion: Equatable, Sendable {
    var chat: ChatResponse
    var endUserName: String?
    var messages: SandboxStore.MessagesVersion
}

/// The transcripts rendered lately, one per chat with the version it shows, so that asking
/// again for an unchanged chat's transcript renders nothing. At most ``maximumBytes`` of
/// PDF are kept in all; past them the least recently used go first.
///
/// ```swift
/// let cache = TranscriptCache()
/// cache.insert(pdf, chatID: 7, version: version)
/// cache.pdf(chatID: 7, version: version)   // pdf; nil once the chat has changed
/// ```
final class TranscriptCache: Sendable {
    /// 32 MiB: about 200 transcripts of 1,000 messages.
    static let defaultMaximumBytes = 32 << 20

    let maximumBytes: Int

    private struct Entry {
        var version: TranscriptVersion
        var pdf: Data
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var bytes = 0
        var uses: UInt64 = 0
    }

    private let state = LockedState(State())

    init(maximumBytes: Int = TranscriptCache.defaultMaximumBytes) {
        self.maximumBytes = maximumBytes
    }

    /// The chat's transcript if the one kept shows `version`.
    func pdf(chatID: Int, version: TranscriptVersion) -> Data? {
        state.withLock { state in
            guard var entry = state.entries[chatID], entry.version == version else { return nil }
            state.uses += 1
            entry.lastUse = state.uses
            state.entries[chatID] = entry
            return entry.pdf
        }
    }

    /// Keeps `pdf` as the chat's transcript (in place of an older one), making room by
    /// letting the least recently used go; a PDF larger than the whole cache is not kept.
    func insert(_ pdf: Data, chatID: Int, version: TranscriptVersion) {
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: chatID) { state.bytes -= old.pdf.count }
            guard pdf.count <= maximumBytes else { return }
            while state.bytes + pdf.count > maximumBytes,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.pdf.count
            }
            state.uses += 1
            state.entries[chatID] = Entry(version: version, pdf: pdf, lastUse: state.uses)
            state.bytes += pdf.count
        }
    }

    /// The bytes of PDF kept.
    var bytes: Int { state.withLock { $0.bytes } }
}
