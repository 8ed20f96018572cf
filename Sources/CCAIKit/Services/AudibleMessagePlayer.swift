import CCAIWire
import Foundation

/// Plays a queue's audible messages at their moments of a call (`playAudibleMessages`):
/// each change of the current call's record plays the kinds whose moment it is
/// (``AudibleMessageKind/plays(after:now:)``), as an `audibleMessagePlayed` event, in the
/// order the changes came. A queue's messages are resolved once and kept; a queue that
/// cannot be read plays nothing.
final class AudibleMessagePlayer: @unchecked Sendable {
    private let messages: AudibleMessageService
    private let pump: EventPump
    private let lock = NSLock()
    private var resolved: [Int: [AudibleMessage]] = [:]
    private var queue: Task<Void, Never>?

    init(messages: AudibleMessageService, pump: EventPump) {
        self.messages = messages
        self.pump = pump
    }

    /// Plays what the change from `previous` to `call` calls for, after what earlier
    /// changes play.
    func announce(previous: CallResponse?, now call: CallResponse) {
        let kinds = AudibleMessageKind.allCases.filter { $0.plays(after: previous, now: call) }
        guard !kinds.isEmpty else { return }
        lock.withLock {
            let before = queue
            queue = Task {
                await before?.value
                for message in await self.messages(forMenu: call.menuId) where kinds.contains(message.kind) {
                    let playback = AudibleMessagePlayback(callId: call.id, message: message)
                    guard let data = try? JSONValue(encoding: playback) else { continue }
                    self.pump.emit(PlatformEvent(name: CallServiceEvent.Name.audibleMessagePlayed.streamName, data: data))
                }
            }
        }
    }

    private func messages(forMenu menuID: Int) async -> [AudibleMessage] {
        if let known = lock.withLock({ resolved[menuID] }) { return known }
        let fetched = (try? await messages.resolveMessages(menuId: menuID)) ?? []
        lock.withLock { resolved[menuID] = fetched }
        return fetched
    }
}
