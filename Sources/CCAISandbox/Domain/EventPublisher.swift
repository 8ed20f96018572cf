import CCAIWire
import Foundation
import Timekeeping

/// Records events for end users and wakes their event streams: every event of the
/// sandbox goes through here, written to the store before the call returns.
///
/// ```swift
/// try await publisher.chat(ended, endUserID: owner)          // chat_received
/// try await publisher.messages([message], endUserID: owner)  // messages_received
/// ```
struct EventPublisher: Sendable {
    let store: SandboxStore
    let hub: EventHub
    let clock: any TimeSource
    /// The webhooks of the chats the company's server started; nil without `webhooks`.
    var webhookTap: AppsWebhookTap?

    /// Records an event whose data is `value` as JSON (encoded once, straight to the text
    /// that is stored and sent); returns its id.
    @discardableResult
    func publish<Value: Encodable>(endUserID: Int, event: PlatformEventName, encoding value: Value) async throws -> Int64 {
        try await publish(endUserID: endUserID, event: event,
                          jsonText: String(decoding: try EventPublisher.encoder.encode(value), as: UTF8.self))
    }

    /// Records an event whose data is already JSON text.
    @discardableResult
    func publish(endUserID: Int, event: PlatformEventName, jsonText: String) async throws -> Int64 {
        let id = try await store.appendEvent(endUserID: endUserID, name: event.rawValue, jsonText: jsonText, now: clock.now())
        await hub.notify(endUserID: endUserID)
        await webhookTap?.observe(endUserID: endUserID, event: event, jsonText: jsonText)
        return id
    }

    /// `chat_received` with the whole chat: every change of the platform's record of a
    /// chat is published through here.
    func chat(_ chat: ChatResponse, endUserID: Int) async throws {
        try await publish(endUserID: endUserID, event: .chatReceived, encoding: chat)
    }

    /// `call_received` with the whole call: every change of the platform's record of a
    /// call is published through here.
    func call(_ call: CallResponse, endUserID: Int) async throws {
        try await publish(endUserID: endUserID, event: .callReceived, encoding: call)
    }

    /// `messages_received` with the messages.
    func messages(_ messages: [ChatMessage], endUserID: Int) async throws {
        try await publish(endUserID: endUserID, event: .messagesReceived, encoding: messages)
    }

    /// Encodes event data (it holds options only).
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
}
