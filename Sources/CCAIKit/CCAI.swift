import CCAIWire
import Foundation
import Timekeeping

/// The SDK's entry point (seed 004): initialize it, then use its services. `shared` is the
/// app's instance; scenarios that simulate many customers make one instance each.
///
/// ```swift
/// let ccai = CCAI()
/// try ccai.initialize(options: InitOptions(key: "dev-key", urlHost: "127.0.0.1:8787", delegate: auth))
/// let company = try await ccai.companyService?.get()
/// ```
public final class CCAI: @unchecked Sendable {
    public static let shared = CCAI()

    private let lock = NSLock()
    private var services: Services?
    private let http: HTTPClient
    private let pushNetwork: (any PushNetwork)?
    private var inBackground = false

    private struct Services {
        var options: InitOptions
        var auth: AuthService
        var company: CompanyService
        var endUser: EndUserService
        var language: LanguageService
        var queueMenu: QueueMenuService
        var optionsService: OptionsService
        var api: APIClient
        var pump: EventPump
        var smartAction: SmartActionService
        var rate: RateService
        var push: PushNotificationService
        var chat: ChatService?
        var screenShare: ScreenShareService?
        var call: CallService?
        var audibleMessage: AudibleMessageService?
    }

    /// An SDK instance sharing `http` (one libcurl thread) with others, if given; its
    /// device's pushes come through `pushNetwork` (none: nothing delivers them).
    public init(http: HTTPClient = HTTPClient(), pushNetwork: (any PushNetwork)? = nil) {
        self.http = http
        self.pushNetwork = pushNetwork
    }

    /// The time of the SDK's waits, retries and timestamps: its HTTP client's clock (a
    /// simulation's in virtual time).
    public var clock: any TimeSource { http.clock }

    /// Whether the app is in the background (``setInBackground(_:)``).
    public var isInBackground: Bool { lock.withLock { inBackground } }

    /// Puts the app in the background, where the OS suspends it, or back in the
    /// foreground. In the background its event stream is closed (this returns once it is),
    /// so the platform notifies the end user of an agent's message by push; back in the
    /// foreground it reconnects from the last event it had and misses nothing. On iOS the
    /// SDK watches the app's lifecycle; here the embedding program says it.
    ///
    /// ```swift
    /// await ccai.setInBackground(true)    // the customer switched apps
    /// ```
    public func setInBackground(_ inBackground: Bool) async {
        // The flag and the pump change together, so that calls from several tasks leave
        // them agreeing, in the order they took the lock; the stream is stopped after.
        let stopping = lock.withLock { () -> EventStreamRun? in
            self.inBackground = inBackground
            return services?.pump.setSuspended(inBackground)
        }
        stopping?.stop()
        await stopping?.finished()
    }

    /// Configures the SDK; services are available afterwards. Calling it again replaces
    /// the configuration.
    public func initialize(options: InitOptions) throws {
        guard !options.key.isEmpty else { throw CCAIError.invalidArgument("InitOptions.key must not be empty") }
        guard !options.urlHost.isEmpty, URL(string: options.baseURL) != nil else {
            throw CCAIError.invalidArgument("InitOptions.urlHost '\(options.urlHost)' is not a host")
        }
        let api = APIClient(options: options, http: http)
        let endUser = EndUserService(api: api)
        let language = LanguageService(explicit: options.languageCode)
        // The new pump starts as the app is, read with the services stored (one lock).
        lock.lock()
        defer { lock.unlock() }
        let pump = EventPump(api: api, http: http, suspended: inBackground)
        services = Services(options: options, auth: AuthService(api: api, endUsers: endUser),
                            company: CompanyService(api: api, language: language), endUser: endUser,
                            language: language, queueMenu: QueueMenuService(api: api, language: language),
                            optionsService: OptionsService(options: options, language: language), api: api,
                            pump: pump, smartAction: SmartActionService(api: api, pump: pump),
                            rate: RateService(api: api, pump: pump),
                            push: PushNotificationService(api: api, network: pushNetwork,
                                                          calls: { [weak self] in self?.callService }))
    }

    /// The options of the last `initialize`, if any.
    public var options: InitOptions? { lock.withLock { services?.options } }

    public var authService: AuthService? { lock.withLock { services?.auth } }
    public var companyService: CompanyService? { lock.withLock { services?.company } }
    public var endUserService: EndUserService? { lock.withLock { services?.endUser } }
    public var languageService: LanguageService? { lock.withLock { services?.language } }
    public var queueMenuService: QueueMenuService? { lock.withLock { services?.queueMenu } }
    public var optionsService: OptionsService? { lock.withLock { services?.optionsService } }
    public var smartActionService: SmartActionService? { lock.withLock { services?.smartAction } }
    /// Post-session surveys and ratings.
    public var rateService: RateService? { lock.withLock { services?.rate } }
    /// The device's push tokens and the pushes the app hands over.
    public var pushNotificationService: PushNotificationService? { lock.withLock { services?.push } }
    /// Nil until ``initializeChat(_:)``.
    public var chatService: ChatService? { lock.withLock { services?.chat } }

    /// Nil until ``initializeCall(_:)``.
    public var callService: CallService? { lock.withLock { services?.call } }
    /// A queue's announcements; nil until ``initializeCall(_:)``.
    public var audibleMessageService: AudibleMessageService? { lock.withLock { services?.audibleMessage } }

    /// Nil until ``initializeScreenShare(options:)``.
    public var screenShareService: ScreenShareService? { lock.withLock { services?.screenShare } }

    /// Registers the chat module (after `initialize`); `chatService` is available afterwards.
    public func initializeChat(_ options: ChatOptions = ChatOptions()) {
        lock.withLock {
            guard var current = services else { return }
            let endUser = current.endUser
            let chat = ChatService(api: current.api, language: current.language, options: options, pump: current.pump,
                                   isScreenShareable: { [weak self] in self?.screenShareService != nil },
                                   signedCustomData: { endUser.signedCustomData })
            current.language.watchSessions { [weak chat] in chat?.currentChat.flatMap { $0.isInProgress ? $0.id : nil } }
            current.chat = chat
            services = current
        }
    }

    /// Registers the call module (after `initialize`); `callService` is available
    /// afterwards. Calling it again keeps the service and its call.
    public func initializeCall(_ options: CallOptions = CallOptions()) {
        lock.withLock {
            guard var current = services, current.call == nil else { return }
            let messages = AudibleMessageService(api: current.api, language: current.language)
            current.audibleMessage = messages
            let endUser = current.endUser
            current.call = CallService(api: current.api, pump: current.pump, options: options, messages: messages,
                                       signedCustomData: { endUser.signedCustomData })
            services = current
        }
    }

    /// A VoIP push the app received (PushKit's payload): the platform's callback of a
    /// scheduled call is told as the call service's `incomingCallEvent`; `completion` runs
    /// once the SDK has handled it (PushKit's rule: report the call, then complete). Whether
    /// it was the platform's is ``PushNotificationService/handlePushNotification(_:)``'s answer.
    public func handleVoIPPush(payload: [String: JSONValue], completion: @escaping @Sendable () -> Void = {}) {
        guard let push = pushNotificationService else { return completion() }
        Task {
            _ = await push.handlePushNotification(payload)
            completion()
        }
    }

    /// Registers screen sharing (after `initialize`); `screenShareService` is available
    /// afterwards, and chats start screen-shareable unless their request says otherwise.
    public func initializeScreenShare(options: ScreenShareOptions) throws {
        guard !options.key.isEmpty else { throw CCAIError.invalidArgument("ScreenShareOptions.key must not be empty") }
        try lock.withLock {
            guard var current = services else { throw CCAIError.notInitialized("the SDK") }
            current.screenShare = ScreenShareService(api: current.api, pump: current.pump, options: options)
            services = current
        }
    }
}
