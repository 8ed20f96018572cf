import CCAIWire
import Foundation

/// What `sendMessage` sends (seed 001): text, images or videos (each its own message),
/// optionally answering a smart action, or a web form's form-complete event.
public enum OutgoingMessageContent: Sendable, Equatable {
    case text(content: String)
    case images(images: [UploadableImage], smartAction: SmartAction?)
    case videos(videos: [UploadableVideo], smartAction: SmartAction?)
    case formComplete(payload: FormCompletePayload)
    case screenShare(event: ChatMessageEvent, response: ScreenShareResponse?)
}

/// Told when an agent sends a web form in the current chat, so that the app can fetch and
/// show it (`fetchWebForm`).
public protocol WebFormDelegate: AnyObject, Sendable {
    func ccaiWebFormRequested(_ request: WebFormRequest) async
}

/// Options of `initializeChat` (seed 004/001).
public struct ChatOptions: Sendable {
    /// A greeting the platform shows when a chat starts (sent with each `ChatRequest`
    /// that has none).
    public var greeting: String?
    public var downloadTranscriptVisibility: DownloadTranscriptVisibility
    /// Told about the web forms agents send (held weakly, like the SDK's other delegates).
    public weak var webFormDelegate: (any WebFormDelegate)?

    public init(downloadTranscriptVisibility: DownloadTranscriptVisibility = [], greeting: String? = nil,
                webFormDelegate: (any WebFormDelegate)? = nil) {
        self.greeting = greeting
        self.downloadTranscriptVisibility = downloadTranscriptVisibility
        self.webFormDelegate = webFormDelegate
    }
}

/// Where the download-transcript affordance is hidden (an option set, seed 001).
public struct DownloadTranscriptVisibility: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let hideInOptionMenu = DownloadTranscriptVisibility(rawValue: 1)
    public static let hideInPostChat = DownloadTranscriptVisibility(rawValue: 2)
    public static let hideAll: DownloadTranscriptVisibility = [.hideInOptionMenu, .hideInPostChat]
}

/// The chat lifecycle (seed 001). Available after `CCAI.initializeChat`.
///
/// ```swift
/// ccai.initializeChat()
/// let chat = try await ccai.chatService!.start(request: ChatRequest(menuId: 1, lang: "en"))
/// try await ccai.chatService!.endChat()
/// ```
public final class ChatService: @unchecked Sendable {
    private let api: APIClient
    private let language: LanguageService
    private let pump: EventPump
    public let options: ChatOptions
    private let lock = NSLock()
    private var current: ChatResponse?
    /// The custom data of the chat this service started, by chat id.
    private var requestedCustomData: (chatID: Int, data: CustomData?)?
    private var lastPreviewAt: Double = 0
    /// Messages written while the platform is unreachable wait for it
    /// (``RetryPolicy/messagePatience``).
    private let outbox: MessageOutbox

    /// Whether chats start screen-shareable by default (screen share is initialized).
    private let isScreenShareable: @Sendable () -> Bool
    /// The sign-in's signed custom data (``EndUserService/signedCustomData``).
    private let signedCustomData: @Sendable () -> [String: JSONValue]

    init(api: APIClient, language: LanguageService, options: ChatOptions, pump: EventPump,
         isScreenShareable: @escaping @Sendable () -> Bool = { false },
         signedCustomData: @escaping @Sendable () -> [String: JSONValue] = { [:] }) {
        self.isScreenShareable = isScreenShareable
        self.signedCustomData = signedCustomData
        self.api = api
        self.outbox = MessageOutbox()
        self.language = language
        self.options = options
        self.pump = pump
        if options.webFormDelegate != nil { tellWebFormDelegate() }
        pump.observe { [weak self] event in
            guard event.name == PlatformEventName.chatReceived.rawValue, let self,
                let chat = try? event.decoded(as: ChatResponse.self), chat.id == self.currentChat?.id
            else { return }
            self.updateCurrent(chat)
        }
    }

    /// Hands the web forms agents send to the delegate, for as long as there is one.
    private func tellWebFormDelegate() {
        let stream = messagesReceived
        let options = options
        Task {
            for await messages in stream {
                guard let delegate = options.webFormDelegate else { return }
                for message in messages {
                    if let request = message.webForm { await delegate.ccaiWebFormRequested(request) }
                }
            }
        }
    }

    /// Events its subscribers did not take in time: past 2 MiB not taken, a subscriber's
    /// oldest are dropped (the stream itself waits for its slowest reader only up to that).
    public var droppedEventCount: Int { pump.droppedEvents }

    /// Every event of the platform's stream (chat, smart action and screen share events,
    /// and the SDK's own `state_changed` and `network_connectivity_changed`), each with its
    /// JSON data, as they happen. Every call is a new subscriber.
    public func events() -> AsyncStream<PlatformEvent> {
        pump.subscribe()
    }

    /// The events named `name` only, with their JSON data (the typed publishers below
    /// are what most callers want).
    public func events(named name: String) -> AsyncStream<JSONValue> {
        // Optional.none, not `nil`: JSONValue is a nil literal, so `nil` would be JSON null here.
        pump.subscribe { event -> JSONValue? in event.name == name ? event.data : Optional.none }
    }

    /// The chat events, typed, in the order they happened: what every publisher below
    /// filters. Every call is a new subscriber.
    public func chatEvents() -> AsyncStream<ChatServiceEvent> {
        pump.subscribe { ChatServiceEvent($0) }
    }

    /// The chat events as ``chatEvents()`` has them, each made into what `transform` makes
    /// of it (nil skips it), for a subscriber with no task of its own (``EventInbox``).
    public func chatEvents<Value: Sendable>(wake: @escaping @Sendable (EventInbox<Value>) -> Void,
                                            _ transform: @escaping @Sendable (ChatServiceEvent) -> Value?) -> EventInbox<Value> {
        pump.inbox(wake: wake) { ChatServiceEvent($0).flatMap(transform) }
    }

    /// Lists of incoming messages (seed 000): from agents, virtual agents or the system. The
    /// end user's own are what ``sendMessage(_:)`` returns, and in ``getMessages()``.
    public var messagesReceived: AsyncStream<[ChatMessage]> {
        pump.subscribe { if case .messagesReceived(let messages)? = ChatServiceEvent($0, only: .messagesReceived) { messages } else { nil } }
    }

    /// An agent started or stopped typing.
    public var typingEvent: AsyncStream<TypingEvent> {
        pump.subscribe { if case .typingEvent(let event)? = ChatServiceEvent($0, only: .typingEvent) { event } else { nil } }
    }

    /// An agent or virtual agent joined or left (transfers and escalations included).
    public var memberEvent: AsyncStream<MemberEvent> {
        pump.subscribe { if case .memberEvent(let event)? = ChatServiceEvent($0, only: .memberEvent) { event } else { nil } }
    }

    /// The provider's connection state: `connecting`, `connected`, `disconnected`, or an
    /// error. Like the seed's current-value publisher, a new subscriber gets the state as it
    /// is first (`disconnected` before the provider ever started), then each change once.
    public var stateChanged: AsyncStream<ChatProviderState> {
        pump.subscribe(currentState: true) { if case .stateChanged(let state)? = ChatServiceEvent($0, only: .stateChanged) { state } else { nil } }
    }

    /// The whole chat each time the platform's record of it changes (created, status,
    /// agent, queue, post-session fields).
    public var chatReceived: AsyncStream<ChatResponse?> {
        pump.subscribe { if case .chatReceived(let chat)? = ChatServiceEvent($0, only: .chatReceived) { .some(chat) } else { nil } }
    }

    /// The chat's agent moved it to another queue.
    public var coldTransferSubject: AsyncStream<ColdTransfer> {
        pump.subscribe { if case .coldTransfer(let transfer)? = ChatServiceEvent($0, only: .coldTransfer) { transfer } else { nil } }
    }

    /// `false` when the SDK loses the platform's event stream during a chat, `true` when
    /// it is back (seed 001's `networkConnectivityChanged`). Nothing is lost meanwhile: the
    /// stream resumes after the last event received.
    public func networkConnectivityChanged() -> AsyncStream<Bool> {
        pump.subscribe { if case .networkConnectivityChanged(let connected)? = ChatServiceEvent($0, only: .networkConnectivityChanged) { connected } else { nil } }
    }

    /// Takes the platform's newer record of the current chat. Events may arrive after an
    /// answer that already told a later state: an ended chat does not go back in progress.
    private func updateCurrent(_ chat: ChatResponse) {
        lock.withLock {
            guard let known = current, known.id == chat.id, known.isInProgress || !chat.isInProgress else { return }
            current = chat
        }
    }

    /// The chat this service works on (the last started, resumed or checked).
    public var currentChat: ChatResponse? { lock.withLock { current } }

    /// The custom data of the current chat's session as the app sent it: the sign-in's
    /// signed items with, for a chat this service started, its request's over them (a
    /// resumed chat's own request is not known here). Nil without a current chat. Not
    /// named by the seeds: post-session routing reads it (``SessionCustomData``).
    public var sessionCustomData: SessionCustomData? {
        let (chat, requested) = lock.withLock { (current, requestedCustomData) }
        guard let chat else { return nil }
        return SessionCustomData(signedIn: signedCustomData(), request: requested?.chatID == chat.id ? requested?.data : nil)
    }

    /// The current chat, or `not_found`.
    private func requireCurrentChat() throws -> ChatResponse {
        guard let chat = currentChat else { throw ChatProviderError.noCurrentChat }
        return chat
    }

    private func remember(_ chat: ChatResponse?) {
        lock.withLock { current = chat }
    }

    /// Starts a chat on a queue; it starts queued (or `pending`, see
    /// ``enqueueCurrentChat()``). A chat already in progress is a `conflict`; a closed or
    /// full queue too. Once screen share is initialized, chats are screen-shareable unless
    /// the request says otherwise.
    @discardableResult
    public func start(request: ChatRequest) async throws -> ChatResponse {
        var request = request
        if request.lang == nil { request.lang = language.languageCode }
        if request.greeting == nil { request.greeting = options.greeting }
        if request.isScreenShareable == nil { request.isScreenShareable = isScreenShareable() }
        let chat = try await api.send(Endpoints.startChat, body: request, as: ChatResponse.self)
        lock.withLock {
            current = chat
            requestedCustomData = (chat.id, request.customData)
        }
        return chat
    }

    /// The end user's chat in progress, if any (after an app restart, say).
    public func getLastChatInProgress() async throws -> ChatResponse? {
        do {
            return try await api.send(Endpoints.currentChat, as: ChatResponse.self)
        } catch let error as CCAIError where error.status == 404 {
            return nil
        }
    }

    /// Continues with a chat in progress.
    public func resumeChat(_ chat: ChatResponse) async throws {
        let fresh = try await api.send(Endpoints.chat, ["id": chat.id], as: ChatResponse.self)
        guard fresh.isInProgress else {
            throw ChatProviderError.chatEnded(chatId: chat.id)
        }
        remember(fresh)
    }

    /// Refreshes the current chat from the platform.
    @discardableResult
    public func checkStatus() async throws -> ChatResponse {
        let chat = try requireCurrentChat()
        let fresh = try await api.send(Endpoints.chat, ["id": chat.id], as: ChatResponse.self)
        remember(fresh)
        return fresh
    }

    /// Sends a message in the current chat; images and videos are one message each.
    /// Messages go out in the order they were written; while the platform is unreachable
    /// a message waits (up to 30 seconds) and is retried with the same client message id,
    /// so it is stored once. An image over 2 MB is compressed first, re-encoded as JPEG
    /// if stripping its metadata is not enough (see ``ImageCompressor``); an image that
    /// cannot be made to fit, or a video over 20 MB (videos are not transcoded), is
    /// `too_large` and nothing is sent.
    @discardableResult
    public func sendMessage(_ content: OutgoingMessageContent) async throws -> [ChatMessage] {
        // A text, the message sent most, straight from here; other kinds from a function of
        // their own. A VU spends most of its time under load with a message in flight, and
        // the frames of the calls under way stay on its tasks meanwhile, with room for what
        // each call passes and answers (a message is large, an array is a pointer).
        let chatID = try requireCurrentChat().id
        if case .text(let text) = content { return try await sendText(text, inChat: chatID) }
        return try await sendAttachment(content, inChat: chatID)
    }

    /// A message of files, of a form's answers or of a screen share's event.
    @inline(never)
    private func sendAttachment(_ content: OutgoingMessageContent, inChat chatID: Int) async throws -> [ChatMessage] {
        switch content {
        case .text(let text):
            return try await sendText(text, inChat: chatID)
        case .images(let images, let smartAction):
            guard !images.isEmpty else { throw CCAIError.invalidArgument("no images to send") }
            return try await send(try await Upload.prepare(images), inChat: chatID, smartAction: smartAction)
        case .videos(let videos, let smartAction):
            guard !videos.isEmpty else { throw CCAIError.invalidArgument("no videos to send") }
            let prepared = try videos.enumerated().map { index, video in try Upload(video: video, number: index + 1) }
            return try await send(prepared, inChat: chatID, smartAction: smartAction)
        case .formComplete(let payload):
            let api = api
            return try await enqueue { retry in
                [try await api.send(Endpoints.formComplete, ["id": chatID], body: payload, retry: retry, as: ChatMessage.self)]
            }
        case .screenShare(let event, let response):
            let api = api
            let body = ScreenShareEventMessage(event: event, response: response)
            return try await enqueue { retry in
                [try await api.send(Endpoints.screenShareEvent, ["id": chatID], body: body, retry: retry, as: ChatMessage.self)]
            }
        }
    }

    /// A text message, through the outbox.
    @inline(never)
    private func sendText(_ text: String, inChat chatID: Int) async throws -> [ChatMessage] {
        try await withCheckedThrowingContinuation { continuation in
            sendText(text, inChat: chatID) { continuation.resume(with: $0) }
        }
    }

    /// Sends a text in the current chat as ``sendMessage(_:)`` does, and tells `completion`
    /// the messages sent or the error, once: no task waits for the message, the outbox's
    /// own is the only one. The scripting host's `send_message` sends a text this way, since
    /// a VU under load spends most of its time with a message in flight.
    package func sendMessage(text: String, completion: @escaping @Sendable (Result<[ChatMessage], any Error>) -> Void) {
        let chatID: Int
        do {
            chatID = try requireCurrentChat().id
        } catch {
            return completion(.failure(error))
        }
        sendText(text, inChat: chatID, completion: completion)
    }

    private func sendText(_ text: String, inChat chatID: Int,
                          completion: @escaping @Sendable (Result<[ChatMessage], any Error>) -> Void) {
        if let problem = AttachmentLimits.textProblem(text) {
            return completion(.failure(CCAIError(code: text.isEmpty ? .invalidArgument : .tooLarge, message: problem)))
        }
        let request = SendMessageRequest(text: text, clientMessageId: UUID().uuidString.lowercased())
        let api = api
        enqueue({ retry in
            [try await api.send(Endpoints.sendMessage, ["id": chatID], body: request, idempotent: true, retry: retry, as: ChatMessage.self)]
        }, completion: completion)
    }

    /// A custom form's definition (title, questions with their types, options and
    /// required flags), as the agent's `form` message names it.
    public func getCustomFormDetails(_ form: CustomForm) async throws -> CustomFormDetailsResponse {
        try await api.send(Endpoints.customForm, ["id": form.id], as: CustomFormDetailsResponse.self)
    }

    /// Submits the end user's answers to a custom form an agent sent. The platform checks
    /// them against the questions (`invalid_argument` names each problem); a form answered
    /// already is a `conflict`.
    public func submitCustomForm(request: SubmitCustomFormRequest) async throws {
        _ = try await api.sendRaw(Endpoints.submitCustomForm, body: request)
    }

    /// Fetches the web form of an agent's request: its URL, questions and signature.
    public func fetchWebForm(_ request: WebFormRequest) async throws -> WebFormResponse {
        try await api.send(Endpoints.fetchWebForm, body: request, as: WebFormResponse.self)
    }

    /// Whether a fetched web form can still be answered: its signature is the platform's,
    /// it has not expired, and it was not answered already.
    public func validateWebForm(_ response: WebFormResponse) async throws -> Bool {
        try await api.send(Endpoints.validateWebForm, body: response, as: WebFormValidation.self).valid
    }

    /// Queues a message in the outbox; `send` makes its one call, retried for the policy's
    /// patience from now, when the message was written (``RetryPolicy/message(writtenAt:)``).
    private func enqueue<Result: Sendable>(_ send: @escaping @Sendable (_ retry: RetrySchedule) async throws -> Result)
        async throws -> Result
    {
        let retry = api.retryPolicy.message(writtenAt: api.clock.now())
        return try await outbox.send { try await send(retry) }
    }

    /// The same, telling `completion` the outcome instead of waiting for it.
    private func enqueue<Value: Sendable>(_ send: @escaping @Sendable (_ retry: RetrySchedule) async throws -> Value,
                                          completion: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        let retry = api.retryPolicy.message(writtenAt: api.clock.now())
        outbox.send({ try await send(retry) }, completion: completion)
    }

    /// Uploads files, one message each, through the outbox.
    private func send(_ uploads: [Upload], inChat chatID: Int, smartAction: SmartAction?) async throws -> [ChatMessage] {
        var sent: [ChatMessage] = []
        let api = api
        for upload in uploads {
            var parameters = ["kind": upload.kind, "client_message_id": UUID().uuidString.lowercased()]
            if let name = upload.fileName { parameters["name"] = name }
            if let smartAction { parameters["smart_action_id"] = String(smartAction.id) }
            let (query, data) = (parameters, try upload.data())
            sent.append(try await enqueue { retry in
                try await api.upload(Endpoints.uploadMedia, ["id": chatID], query: query, data: data, contentType: upload.mimeType,
                                     retry: retry, as: ChatMessage.self)
            })
        }
        return sent
    }

    /// Moves a chat that waits for its pre-session smart actions (`pending`) into its
    /// queue, then refreshes it (``checkStatus()``). A chat already queued or with an
    /// agent stays as it is.
    public func enqueueCurrentChat() async throws {
        let chat = try requireCurrentChat()
        remember(try await api.send(Endpoints.enqueueChat, ["id": chat.id], as: ChatResponse.self))
        try await checkStatus()
    }

    /// Fetches a file of a chat message (`message.media`): its bytes and file name. Not
    /// cached: every call downloads again.
    public func downloadMedia(_ mediaId: Int, mediaType: ChatMediaType) async throws -> DownloadMediaResponse {
        let response = try await api.download(Endpoints.downloadMedia, ["id": mediaId])
        return DownloadMediaResponse(data: response.body,
                                     fileName: ContentDisposition.fileName(of: response.headers["content-disposition"]))
    }

    /// Tells the agent whether the end user is typing. Fire and forget, like the seeds'
    /// `typing(_:)`: a failure is ignored.
    public func typing(_ isTyping: Bool) {
        guard let chat = currentChat else { return }
        Task {
            _ = try? await api.sendRaw(Endpoints.typing, ["id": chat.id], body: ["typing": isTyping], idempotent: true)
        }
    }

    /// Shows the agent what the end user is typing. A preview older than the last one
    /// sent is skipped (seed 001); the answer says whether the platform kept it. `time`
    /// is when the text was typed (now, by the SDK's clock, if not given).
    @discardableResult
    public func sendMessagePreview(_ text: String, at time: Date? = nil) async throws -> Bool {
        let chat = try requireCurrentChat()
        let timestamp = (time ?? api.clock.now()).timeIntervalSince1970
        let isNewest: Bool = lock.withLock {
            guard timestamp > lastPreviewAt else { return false }
            lastPreviewAt = timestamp
            return true
        }
        guard isNewest else { return false }
        let preview = try await api.send(Endpoints.sendPreview, ["id": chat.id],
                                         body: MessagePreviewRequest(text: text, timestamp: timestamp), idempotent: true,
                                         as: MessagePreview.self)
        return preview.accepted ?? false
    }

    /// Leaves the chat's virtual agent for a human agent (a basic escalation, with no
    /// option). A `conflict` unless a virtual agent has the chat and no escalation started.
    public func escalateToHumanAgent() async throws {
        let chat = try requireCurrentChat()
        remember(try await api.send(Endpoints.escalate, ["id": chat.id], as: ChatResponse.self))
    }

    /// Escalates with the option the end user picked (for example "Email us instead"):
    /// `chat` goes to a human agent, another deflection channel ends the chat so the app
    /// can continue there.
    public func escalate(option: ChatEscalationOption) async throws {
        let chat = try requireCurrentChat()
        remember(try await api.send(Endpoints.escalate, ["id": chat.id], body: option, as: ChatResponse.self))
    }

    /// Commits an option to an escalation started with ``escalateToHumanAgent()`` that no
    /// human agent has taken yet; a `conflict` otherwise.
    public func updateEscalation(option: ChatEscalationOption) async throws {
        let chat = try requireCurrentChat()
        remember(try await api.send(Endpoints.updateEscalation, ["id": chat.id], body: option, as: ChatResponse.self))
    }

    /// Reports an interaction of the end user in the current chat (`form_received`,
    /// `smart_action_clicked`, ... or the app's own) for the platform to track.
    public func sendEvent(_ event: ChatEvent) async throws {
        let chat = try requireCurrentChat()
        guard !event.name.isEmpty else { throw CCAIError.invalidArgument("ChatEvent.name must not be empty") }
        _ = try await api.send(Endpoints.sendChatEvent, ["id": chat.id], body: event, as: StoredChatEvent.self)
    }

    /// The current chat's messages, in order: every page of them (``Paging/messages``),
    /// each asked for after the last id of the one before, until a page is not full.
    public func getMessages() async throws -> [ChatMessage] {
        let chat = try requireCurrentChat()
        var messages: [ChatMessage] = []
        var after = 0
        while true {
            let page = try await api.send(Endpoints.messages, ["id": chat.id], query: Paging.messages.query(after: after),
                                          as: [ChatMessage].self)
            messages += page
            guard page.count >= Paging.messages.maximumLimit, let last = page.last?.id, last > after else { return messages }
            after = last
        }
    }

    /// A page (from 1) of the end user's ended chats and their messages, newest first.
    public func getPreviousChats(currentPage: Int = 1) async throws -> PreviousChatsResponse {
        guard currentPage >= 1 else { throw CCAIError.invalidArgument("currentPage starts at 1, got \(currentPage)") }
        return try await api.send(Endpoints.previousChats, query: ["page": String(currentPage)], as: PreviousChatsResponse.self)
    }

    // MARK: - Post-session (seed 000)

    /// Signals that the post-session phase of the current chat, which has ended, begins
    /// (`postSessionTransferStatus` -> `in_progress`). Out of order, on a chat in progress
    /// or one without post-session: `conflict`.
    @discardableResult
    public func startPostSession() async throws -> ChatResponse {
        let chat = try requireCurrentChat()
        let moved = try await api.send(Endpoints.startPostSession.chat, ["id": chat.id], as: ChatResponse.self)
        updateCurrent(moved)
        return moved
    }

    /// Signals that the app is ready for the flow (`in_progress` -> `ready`); a
    /// post-session virtual agent starts talking on the chat now.
    @discardableResult
    public func readyPostSession() async throws -> ChatResponse {
        let chat = try requireCurrentChat()
        let moved = try await api.send(Endpoints.readyPostSession.chat, ["id": chat.id], as: ChatResponse.self)
        updateCurrent(moved)
        return moved
    }

    /// The one post-session flow of the current chat, as the hierarchy chooses it from
    /// the platform's settings (virtual agent > survey > CSAT), or nil when none is
    /// configured.
    public func getPostSessionFlow() async throws -> PostSessionFlow? {
        let chat = try requireCurrentChat()
        let settings = try await api.send(Endpoints.postSessionSettings.chat, ["id": chat.id], as: PostSessionSettings.self)
        return settings.flow(communicationId: chat.id, communicationType: .chats)
    }

    /// Whether the transcript of the current chat may be downloaded now, as
    /// ``ChatOptions/downloadTranscriptVisibility`` says: `hideInOptionMenu` hides it while
    /// the chat is in progress, `hideInPostChat` once it has ended.
    public var isTranscriptDownloadOffered: Bool {
        guard let chat = currentChat else { return false }
        return !options.downloadTranscriptVisibility.contains(chat.isInProgress ? .hideInOptionMenu : .hideInPostChat)
    }

    /// The current chat's transcript as a PDF. `forbidden` where the options hide it;
    /// `internal` when the platform's answer is not a PDF (it does not start with `%PDF-`).
    public func downloadChatTranscriptData() async throws -> Data {
        try await transcript(retry: nil)
    }

    /// The transcript, its download retried as `retry` says (an ordinary request's when nil).
    private func transcript(retry: RetrySchedule?) async throws -> Data {
        let chat = try requireCurrentChat()
        guard isTranscriptDownloadOffered else {
            throw CCAIError(code: .forbidden, message: "the transcript is not offered "
                            + (chat.isInProgress ? "during the chat (hideInOptionMenu)" : "after the chat (hideInPostChat)"))
        }
        let pdf = try await api.download(Endpoints.transcript, ["id": chat.id], retry: retry).body
        guard pdf.starts(with: Self.pdfSignature) else {
            throw CCAIError(code: .internal, message: "the platform's transcript of chat \(chat.id) is not a PDF "
                            + "(\(pdf.count) bytes that do not start with %PDF-): nothing was saved")
        }
        return pdf
    }

    /// How every PDF starts.
    private static let pdfSignature = Data("%PDF-".utf8)

    /// Downloads the current chat's transcript to a file URL, retrying a failure that may
    /// pass (the platform unreachable, a 502, 503 or 504): ``RetryPolicy/downloadAttempts`` in all (3),
    /// 1, then 2 seconds apart. The file is written whole or not at all.
    public func downloadChatTranscript(to url: URL) async throws {
        try await downloadChatTranscript { data in try data.write(to: url, options: .atomic) }
    }

    /// The same, handing the PDF to `save` (a script's confined output folder, say); a
    /// failure of `save` is not retried.
    public func downloadChatTranscript(saving save: (Data) throws -> Void) async throws {
        try save(try await transcript(retry: api.retryPolicy.download(timeout: APIClient.fileTimeout)))
    }

    /// Ends the current chat.
    public func endChat() async throws {
        guard let chat = currentChat else { throw ChatProviderError.noCurrentChat }
        remember(try await api.send(Endpoints.endChat, ["id": chat.id], as: ChatResponse.self))
    }
}
