import CCAIWire

/// A queue's system announcements (seed 002's `audibleMessageService`): their captions in
/// the SDK's language and where their audio is. With `CallOptions.playAudibleMessages` on
/// (the default) the call service plays them itself at their moments of a call
/// (``CallService/audibleMessagePlayed``); an app that renders them resolves them here.
/// Available after `CCAI.initializeCall`.
///
/// ```swift
/// ccai.initializeCall(CallOptions(playAudibleMessages: false))
/// for message in try await ccai.audibleMessageService!.resolveMessages(menuId: 1) {
///     print(message.kind, message.text, message.audioUrl ?? "no audio")
/// }
/// ```
public final class AudibleMessageService: Sendable {
    private let api: APIClient
    private let language: LanguageService

    init(api: APIClient, language: LanguageService) {
        self.api = api
        self.language = language
    }

    /// The queue's messages, one per kind the admin set (on the queue, a parent queue or
    /// company-wide), in the order of ``AudibleMessageKind``. An unknown queue is `not_found`.
    public func resolveMessages(menuId: Int) async throws -> [AudibleMessage] {
        try await api.send(Endpoints.audibleMessages, ["id": menuId], query: ["language": language.languageCode],
                           as: AudibleMessages.self).messages
    }
}
