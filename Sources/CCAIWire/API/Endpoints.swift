import Foundation

/// Every operation of the wire API, said once (docs/openapi.yaml describes each). Adding
/// one: a line here and in ``all``, a service method in CCAIKit, a handler in CCAISandbox,
/// its description in docs/openapi.yaml (docs/adding-an-endpoint.md).
public enum Endpoints {
    // Authentication and the end user: signing in takes a JWT, kilobytes, never an upload
    public static let authenticate = Endpoint("POST", "/auth/end_user", access: .anyone, maximumBodyBytes: 32 << 10)
    public static let signOut = Endpoint("DELETE", "/auth/end_user")
    public static let company = Endpoint("GET", "/company")
    public static let endUser = Endpoint("GET", "/end_user")
    public static let updateEndUser = Endpoint("PATCH", "/end_user")
    /// A stream: its limit is one event's (1 MiB).
    public static let events = Endpoint("GET", "/events", maximumResponseBytes: 1 << 20)

    // Queue menus
    public static let queueMenus = Endpoint("GET", "/queue_menus")
    public static let waitTimes = Endpoint("GET", "/queue_menus/{id}/wait_times")

    // Chats
    public static let startChat = Endpoint("POST", "/chats")
    public static let currentChat = Endpoint("GET", "/chats/current")
    public static let previousChats = Endpoint("GET", "/chats/previous")
    public static let chat = Endpoint("GET", "/chats/{id}")
    public static let sendMessage = Endpoint("POST", "/chats/{id}/messages")
    public static let messages = Endpoint("GET", "/chats/{id}/messages")
    public static let typing = Endpoint("POST", "/chats/{id}/typing")
    public static let sendPreview = Endpoint("POST", "/chats/{id}/preview")
    public static let preview = Endpoint("GET", "/chats/{id}/preview")
    public static let sendChatEvent = Endpoint("POST", "/chats/{id}/chat_events")
    public static let escalate = Endpoint("POST", "/chats/{id}/escalate")
    public static let updateEscalation = Endpoint("PUT", "/chats/{id}/escalation")
    public static let enqueueChat = Endpoint("POST", "/chats/{id}/enqueue")
    public static let endChat = Endpoint("POST", "/chats/{id}/end")

    // Files: uploads are read, and downloads read back, up to 32 MiB (images may be 2 MB,
    // videos 20 MB: AttachmentLimits)
    public static let uploadMedia = Endpoint("POST", "/chats/{id}/media", maximumBodyBytes: 32 << 20)
    public static let downloadMedia = Endpoint("GET", "/media/{id}", maximumResponseBytes: 32 << 20)

    // Smart actions
    public static let smartActions = Endpoint("GET", "/chats/{id}/smart_actions")
    public static let smartActionReceived = Endpoint("POST", "/chats/{id}/smart_actions/{action}/received")
    public static let smartActionResult = Endpoint("POST", "/chats/{id}/smart_actions/{action}/result")
    public static let smartActionStatus = Endpoint("PUT", "/chats/{id}/smart_actions/{action}/status")

    // Forms
    public static let customForm = Endpoint("GET", "/custom_forms/{id}")
    public static let submitCustomForm = Endpoint("POST", "/custom_forms/submissions")
    public static let fetchWebForm = Endpoint("POST", "/web_forms/fetch")
    public static let validateWebForm = Endpoint("POST", "/web_forms/validate")
    public static let formComplete = Endpoint("POST", "/chats/{id}/form_complete")

    // Screen share
    public static let createScreenShare = Endpoint("POST", "/screen_shares")
    public static let screenShare = Endpoint("GET", "/screen_shares/{id}")
    public static let activateScreenShare = Endpoint("POST", "/screen_shares/{id}/activate")
    public static let screenShareRemoteControl = Endpoint("POST", "/screen_shares/{id}/remote_control")
    public static let screenShareOptions = Endpoint("PUT", "/screen_shares/{id}/options")
    public static let endScreenShare = Endpoint("POST", "/screen_shares/{id}/end")
    public static let screenShareEvent = Endpoint("POST", "/chats/{id}/screen_share_events")

    // Post-session, ratings and transcripts (seed 000)
    public static let postSessionSettings = Endpoint("GET", "/chats/{id}/post_session")
    public static let startPostSession = Endpoint("POST", "/chats/{id}/post_session/start")
    public static let readyPostSession = Endpoint("POST", "/chats/{id}/post_session/ready")
    public static let survey = Endpoint("GET", "/chats/{id}/survey")
    public static let submitSurvey = Endpoint("POST", "/chats/{id}/survey")
    public static let rate = Endpoint("POST", "/chats/{id}/rating")
    /// A PDF, read up to 32 MiB.
    public static let transcript = Endpoint("GET", "/chats/{id}/transcript", maximumResponseBytes: 32 << 20)
    public static let ratings = Endpoint("GET", "/admin/ratings", access: .admin)

    // Operations: whether a served sandbox answers (a load balancer's or Kubernetes' probe)
    public static let health = Endpoint("GET", "/healthz", access: .anyone)

    /// Every endpoint, in the order of docs/openapi.yaml.
    public static let all: [Endpoint] = [
        authenticate, signOut, company, endUser, updateEndUser, events,
        startChat, currentChat, previousChats, chat, sendMessage, messages, typing, sendPreview, preview, escalate,
        updateEscalation, sendChatEvent, endChat, enqueueChat, uploadMedia, downloadMedia,
        smartActions, smartActionReceived, smartActionResult, smartActionStatus,
        customForm, submitCustomForm, fetchWebForm, validateWebForm, formComplete,
        createScreenShare, screenShare, activateScreenShare, screenShareRemoteControl, screenShareOptions, endScreenShare,
        screenShareEvent, queueMenus, waitTimes,
        postSessionSettings, startPostSession, readyPostSession, survey, submitSurvey, rate, transcript, ratings, health,
    ]
}
