import Foundation

/// Every operation of the wire API, said once (docs/openapi.yaml describes each), as the
/// stored properties of one value, ``Endpoints``: ``all`` reads them back, so adding an
/// endpoint is one declaration here, a handler row in CCAISandbox and its description in
/// docs/openapi.yaml (docs/adding-an-endpoint.md). An operation under both a chat and a
/// call is one ``ConversationEndpoints``.
public struct EndpointTable: Sendable {
    // Authentication and the end user: signing in takes a JWT, kilobytes, never an upload
    public let authenticate = Endpoint("POST", "/auth/end_user",
                                       operationID: "authenticate", access: .anyone, maximumBodyBytes: 32 << 10)
    public let signOut = Endpoint("DELETE", "/auth/end_user", operationID: "signOut")
    public let company = Endpoint("GET", "/company", operationID: "getCompany")
    public let endUser = Endpoint("GET", "/end_user", operationID: "getEndUser")
    public let updateEndUser = Endpoint("PATCH", "/end_user", operationID: "updateEndUser")
    /// A stream: its limit is one event's (1 MiB).
    public let events = Endpoint("GET", "/events", operationID: "streamEvents", maximumResponseBytes: 1 << 20)

    // Queue menus
    public let queueMenus = Endpoint("GET", "/queue_menus", operationID: "getQueueMenus")
    public let waitTimes = Endpoint("GET", "/queue_menus/{id}/wait_times", operationID: "getWaitTimes")

    // Chats
    public let startChat = Endpoint("POST", "/chats", operationID: "startChat")
    public let currentChat = Endpoint("GET", "/chats/current", operationID: "getLastChatInProgress")
    public let previousChats = Endpoint("GET", "/chats/previous", operationID: "getPreviousChats")
    public let chat = Endpoint("GET", "/chats/{id}", operationID: "checkStatus")
    public let sendMessage = Endpoint("POST", "/chats/{id}/messages", operationID: "sendMessage")
    public let messages = Endpoint("GET", "/chats/{id}/messages", operationID: "getMessages")
    public let typing = Endpoint("POST", "/chats/{id}/typing", operationID: "typing")
    public let sendPreview = Endpoint("POST", "/chats/{id}/preview", operationID: "sendMessagePreview")
    public let preview = Endpoint("GET", "/chats/{id}/preview", operationID: "getMessagePreview")
    public let sendChatEvent = Endpoint("POST", "/chats/{id}/chat_events", operationID: "sendEvent")
    public let escalate = Endpoint("POST", "/chats/{id}/escalate", operationID: "escalate")
    public let updateEscalation = Endpoint("PUT", "/chats/{id}/escalation", operationID: "updateEscalation")
    public let enqueueChat = Endpoint("POST", "/chats/{id}/enqueue", operationID: "enqueueCurrentChat")
    public let endChat = Endpoint("POST", "/chats/{id}/end", operationID: "endChat")

    // Voice calls (seed 002): the signalling of a call; its audio is the device's
    public let startInstantCall = Endpoint("POST", "/calls", operationID: "startInstantCall")
    public let currentCall = Endpoint("GET", "/calls/current", operationID: "getLastCallInProgress")
    public let call = Endpoint("GET", "/calls/{id}", operationID: "getCall")
    public let holdCall = Endpoint("PUT", "/calls/{id}/hold", operationID: "setOnHold")
    public let interruptCall = Endpoint("POST", "/calls/{id}/interruption", operationID: "reportInterruption")
    public let resumeCall = Endpoint("POST", "/calls/{id}/resume", operationID: "resumeCall")
    public let endCall = Endpoint("POST", "/calls/{id}/end", operationID: "endCall")
    public let escalateCall = Endpoint("POST", "/calls/{id}/escalate", operationID: "escalateCall")
    public let startVoicemail = Endpoint("POST", "/calls/voicemail", operationID: "startVoicemail")
    public let callDeflection = Endpoint("GET", "/calls/{id}/deflection", operationID: "getCallDeflection")
    public let audibleMessages = Endpoint("GET", "/queue_menus/{id}/audible_messages", operationID: "resolveMessages")
    public let voicemails = Endpoint("GET", "/admin/voicemails", operationID: "getVoicemails", access: .admin)
    public let scheduledTimeSlots = Endpoint("GET", "/queue_menus/{id}/scheduled_time_slots",
                                             operationID: "getScheduledTimeSlots")
    public let createScheduledCall = Endpoint("POST", "/calls/scheduled", operationID: "createScheduledCall")
    public let cancelScheduledCall = Endpoint("POST", "/calls/{id}/cancel", operationID: "cancelScheduledCall")
    /// The app answers the callback of a scheduled call (the seeds describe the incoming
    /// call without naming how it is answered).
    public let acceptIncomingCall = Endpoint("POST", "/calls/{id}/accept", operationID: "acceptIncomingCall")
    public let declineIncomingCall = Endpoint("POST", "/calls/{id}/decline", operationID: "declineIncomingCall")

    // Push notifications (seed 004): the device's tokens, and what the platform sent
    public let updatePushToken = Endpoint("PUT", "/push_tokens", operationID: "updatePushToken", maximumBodyBytes: 4 << 10)
    public let pushes = Endpoint("GET", "/admin/pushes", operationID: "getPushes", access: .admin)

    // Files: uploads are read, and downloads read back, up to 32 MiB (images may be 2 MB,
    // videos 20 MB: AttachmentLimits)
    public let uploadMedia = Endpoint("POST", "/chats/{id}/media", operationID: "sendMedia",
                                      maximumBodyBytes: 32 << 20, takesFile: true)
    public let downloadMedia = Endpoint("GET", "/media/{id}",
                                        operationID: "downloadMedia", maximumResponseBytes: 32 << 20)

    // Smart actions
    public let smartActions = ConversationEndpoints("GET", "smart_actions", verb: "get", object: "SmartActions")
    public let smartActionReceived = ConversationEndpoints("POST", "smart_actions/{action}/received",
                                                           verb: "notify", object: "SmartActionReceived")
    public let smartActionResult = ConversationEndpoints("POST", "smart_actions/{action}/result", verb: "send", object: "SmartActionResult")
    public let smartActionStatus = ConversationEndpoints("PUT", "smart_actions/{action}/status", verb: "update", object: "SmartActionStatus")

    // Forms
    public let customForm = Endpoint("GET", "/custom_forms/{id}", operationID: "getCustomFormDetails")
    public let submitCustomForm = Endpoint("POST", "/custom_forms/submissions", operationID: "submitCustomForm")
    public let fetchWebForm = Endpoint("POST", "/web_forms/fetch", operationID: "fetchWebForm")
    public let validateWebForm = Endpoint("POST", "/web_forms/validate", operationID: "validateWebForm")
    public let formComplete = Endpoint("POST", "/chats/{id}/form_complete", operationID: "sendFormComplete")

    // Screen share
    public let createScreenShare = Endpoint("POST", "/screen_shares", operationID: "createScreenShare")
    public let screenShare = Endpoint("GET", "/screen_shares/{id}", operationID: "getScreenShare")
    public let activateScreenShare = Endpoint("POST", "/screen_shares/{id}/activate",
                                              operationID: "activateScreenShare")
    public let screenShareRemoteControl = Endpoint("POST", "/screen_shares/{id}/remote_control",
                                                   operationID: "enableRemoteControl")
    public let screenShareOptions = Endpoint("PUT", "/screen_shares/{id}/options",
                                             operationID: "enableFullDeviceSharing")
    public let endScreenShare = Endpoint("POST", "/screen_shares/{id}/end", operationID: "endScreenShare")
    public let screenShareEvent = Endpoint("POST", "/chats/{id}/screen_share_events",
                                           operationID: "sendScreenShareEvent")

    // Post-session, ratings and transcripts (seed 000)
    public let postSessionSettings = ConversationEndpoints("GET", "post_session", verb: "get", object: "PostSessionFlow")
    public let startPostSession = ConversationEndpoints("POST", "post_session/start", verb: "start", object: "PostSession")
    public let readyPostSession = ConversationEndpoints("POST", "post_session/ready", verb: "ready", object: "PostSession")
    public let survey = ConversationEndpoints("GET", "survey", verb: "get", object: "Survey")
    public let submitSurvey = ConversationEndpoints("POST", "survey", verb: "submit", object: "Survey")
    public let rate = ConversationEndpoints("POST", "rating", verb: "rate")
    /// A PDF, read up to 32 MiB.
    public let transcript = Endpoint("GET", "/chats/{id}/transcript",
                                     operationID: "downloadChatTranscript", maximumResponseBytes: 32 << 20)
    public let ratings = Endpoint("GET", "/admin/ratings", operationID: "getRatings", access: .admin)

    // Session metadata: the published record of each ended chat or call (docs/session-metadata.md)
    public let sessionMetadataPage = Endpoint("GET", "/admin/session_metadata/{type}", operationID: "getSessionMetadataPage",
                                              access: .admin)
    public let sessionMetadata = Endpoint("GET", "/admin/session_metadata/{type}/{id}", operationID: "getSessionMetadata",
                                          access: .admin)

    // Webhooks of Apps API chats (docs/webhooks.md): what was delivered, newest first
    public let webhookDeliveries = Endpoint("GET", "/admin/webhook_deliveries", operationID: "getWebhookDeliveries", access: .admin)

    // The sandbox's own metrics, in Prometheus's text format (docs/observability.md); only a
    // sandbox started with metrics (`ccai sandbox serve --metrics`) answers
    public let metrics = Endpoint("GET", "/admin/metrics", operationID: "getMetrics", access: .admin)

    // The Apps API: the platform's published server-side API (docs/platform-fidelity.md),
    // for the company's servers with Basic credentials
    public let appsWaitTimes = Endpoint("GET", "/apps/api/v1/wait_times", operationID: "appsGetWaitTimes", access: .apps)
    public let appsUpsertEndUser = Endpoint("POST", "/apps/api/v1/end_users", operationID: "appsUpsertEndUser", access: .apps,
                                            maximumBodyBytes: 32 << 10)
    public let appsEndUser = Endpoint("GET", "/apps/api/v1/end_users", operationID: "appsGetEndUser", access: .apps)
    public let appsStartChat = Endpoint("POST", "/apps/api/v1/chats", operationID: "appsCreateChat", access: .apps,
                                        maximumBodyBytes: 64 << 10)
    public let appsChat = Endpoint("GET", "/apps/api/v1/chats/{id}", operationID: "appsGetChat", access: .apps)
    public let appsUpdateChat = Endpoint("PATCH", "/apps/api/v1/chats/{id}", operationID: "appsUpdateChat", access: .apps,
                                         maximumBodyBytes: 32 << 10)
    public let appsSendMessage = Endpoint("POST", "/apps/api/v1/chats/{id}/message", operationID: "appsSendMessage",
                                          access: .apps, maximumBodyBytes: 64 << 10)
    public let appsEscalate = Endpoint("POST", "/apps/api/v1/chats/{id}/escalations", operationID: "appsEscalateChat",
                                       access: .apps, maximumBodyBytes: 32 << 10)
    public let appsUpdateEscalation = Endpoint("PATCH", "/apps/api/v1/chats/{id}/escalations/{escalation_id}",
                                               operationID: "appsUpdateEscalation", access: .apps, maximumBodyBytes: 32 << 10)
    // Photos and videos of a chat (docs/platform-fidelity.md): a pre-signed upload URL, the
    // PUT of the file to it, the file added as the end user's message, the chat's files
    // listed with pre-signed download URLs
    public let appsPhotoUploadURL = Endpoint("GET", "/apps/api/v1/chats/{id}/photos/upload_url",
                                             operationID: "appsGetPhotoUploadURL", access: .apps)
    public let appsVideoUploadURL = Endpoint("GET", "/apps/api/v1/chats/{id}/videos/upload_url",
                                             operationID: "appsGetVideoUploadURL", access: .apps)
    /// The file itself, at the pre-signed URL: read up to the video limit.
    public let appsPutUpload = Endpoint("PUT", "/apps/api/v1/uploads/{upload_id}", operationID: "appsPutUpload",
                                        access: .presigned, maximumBodyBytes: AttachmentLimits.videoBytes)
    public let appsAddPhoto = Endpoint("POST", "/apps/api/v1/chats/{id}/photos", operationID: "appsAddPhoto", access: .apps,
                                       maximumBodyBytes: 4 << 10)
    public let appsAddVideo = Endpoint("POST", "/apps/api/v1/chats/{id}/videos", operationID: "appsAddVideo", access: .apps,
                                       maximumBodyBytes: 4 << 10)
    public let appsPhotos = Endpoint("GET", "/apps/api/v1/chats/{id}/photos", operationID: "appsGetPhotos", access: .apps)
    public let appsVideos = Endpoint("GET", "/apps/api/v1/chats/{id}/videos", operationID: "appsGetVideos", access: .apps)
    /// A photo's or video's bytes, at its pre-signed download URL.
    public let appsDownloadMedia = Endpoint("GET", "/apps/api/v1/media/{id}", operationID: "appsDownloadMedia",
                                            access: .presigned, maximumResponseBytes: 32 << 20)

    // Operations: whether a served sandbox answers (a load balancer's or Kubernetes' probe)
    public let health = Endpoint("GET", "/healthz", operationID: "getHealth", access: .anyone)

    /// Every endpoint, in the order declared (a ``ConversationEndpoints``' chat one, then its
    /// call one): the stored properties above, read back.
    public var all: [Endpoint] {
        Mirror(reflecting: self).children.flatMap { child -> [Endpoint] in
            if let endpoint = child.value as? Endpoint { return [endpoint] }
            if let pair = child.value as? ConversationEndpoints { return [pair.chat, pair.call] }
            return []
        }
    }
}

/// The wire API's endpoints: `Endpoints.sendMessage`, `Endpoints.survey.call`, `Endpoints.all`.
public let Endpoints = EndpointTable()
