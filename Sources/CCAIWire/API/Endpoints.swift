import Foundation

/// Every operation of the wire API, said once (docs/openapi.yaml describes each). Adding
/// one: a line here and in ``all``, a service method in CCAIKit, a handler in CCAISandbox,
/// its description in docs/openapi.yaml (docs/adding-an-endpoint.md).
public enum Endpoints {
    // Authentication and the end user: signing in takes a JWT, kilobytes, never an upload
    public static let authenticate = Endpoint("POST", "/auth/end_user",
                                              operationID: "authenticate", access: .anyone, maximumBodyBytes: 32 << 10)
    public static let signOut = Endpoint("DELETE", "/auth/end_user", operationID: "signOut")
    public static let company = Endpoint("GET", "/company", operationID: "getCompany")
    public static let endUser = Endpoint("GET", "/end_user", operationID: "getEndUser")
    public static let updateEndUser = Endpoint("PATCH", "/end_user", operationID: "updateEndUser")
    /// A stream: its limit is one event's (1 MiB).
    public static let events = Endpoint("GET", "/events", operationID: "streamEvents", maximumResponseBytes: 1 << 20)

    // Queue menus
    public static let queueMenus = Endpoint("GET", "/queue_menus", operationID: "getQueueMenus")
    public static let waitTimes = Endpoint("GET", "/queue_menus/{id}/wait_times", operationID: "getWaitTimes")

    // Chats
    public static let startChat = Endpoint("POST", "/chats", operationID: "startChat")
    public static let currentChat = Endpoint("GET", "/chats/current", operationID: "getLastChatInProgress")
    public static let previousChats = Endpoint("GET", "/chats/previous", operationID: "getPreviousChats")
    public static let chat = Endpoint("GET", "/chats/{id}", operationID: "checkStatus")
    public static let sendMessage = Endpoint("POST", "/chats/{id}/messages", operationID: "sendMessage")
    public static let messages = Endpoint("GET", "/chats/{id}/messages", operationID: "getMessages")
    public static let typing = Endpoint("POST", "/chats/{id}/typing", operationID: "typing")
    public static let sendPreview = Endpoint("POST", "/chats/{id}/preview", operationID: "sendMessagePreview")
    public static let preview = Endpoint("GET", "/chats/{id}/preview", operationID: "getMessagePreview")
    public static let sendChatEvent = Endpoint("POST", "/chats/{id}/chat_events", operationID: "sendEvent")
    public static let escalate = Endpoint("POST", "/chats/{id}/escalate", operationID: "escalate")
    public static let updateEscalation = Endpoint("PUT", "/chats/{id}/escalation", operationID: "updateEscalation")
    public static let enqueueChat = Endpoint("POST", "/chats/{id}/enqueue", operationID: "enqueueCurrentChat")
    public static let endChat = Endpoint("POST", "/chats/{id}/end", operationID: "endChat")

    // Voice calls (seed 002): the signalling of a call; its audio is the device's
    public static let startInstantCall = Endpoint("POST", "/calls", operationID: "startInstantCall")
    public static let currentCall = Endpoint("GET", "/calls/current", operationID: "getLastCallInProgress")
    public static let call = Endpoint("GET", "/calls/{id}", operationID: "getCall")
    public static let holdCall = Endpoint("PUT", "/calls/{id}/hold", operationID: "setOnHold")
    public static let interruptCall = Endpoint("POST", "/calls/{id}/interruption", operationID: "reportInterruption")
    public static let resumeCall = Endpoint("POST", "/calls/{id}/resume", operationID: "resumeCall")
    public static let endCall = Endpoint("POST", "/calls/{id}/end", operationID: "endCall")
    public static let escalateCall = Endpoint("POST", "/calls/{id}/escalate", operationID: "escalateCall")
    public static let startVoicemail = Endpoint("POST", "/calls/voicemail", operationID: "startVoicemail")
    public static let callDeflection = Endpoint("GET", "/calls/{id}/deflection", operationID: "getCallDeflection")
    public static let audibleMessages = Endpoint("GET", "/queue_menus/{id}/audible_messages", operationID: "resolveMessages")
    public static let voicemails = Endpoint("GET", "/admin/voicemails", operationID: "getVoicemails", access: .admin)
    public static let scheduledTimeSlots = Endpoint("GET", "/queue_menus/{id}/scheduled_time_slots",
                                                    operationID: "getScheduledTimeSlots")
    public static let createScheduledCall = Endpoint("POST", "/calls/scheduled", operationID: "createScheduledCall")
    public static let cancelScheduledCall = Endpoint("POST", "/calls/{id}/cancel", operationID: "cancelScheduledCall")
    /// The app answers the callback of a scheduled call (the seeds describe the incoming
    /// call without naming how it is answered).
    public static let acceptIncomingCall = Endpoint("POST", "/calls/{id}/accept", operationID: "acceptIncomingCall")
    public static let declineIncomingCall = Endpoint("POST", "/calls/{id}/decline", operationID: "declineIncomingCall")

    // Push notifications (seed 004): the device's tokens, and what the platform sent
    public static let updatePushToken = Endpoint("PUT", "/push_tokens", operationID: "updatePushToken", maximumBodyBytes: 4 << 10)
    public static let pushes = Endpoint("GET", "/admin/pushes", operationID: "getPushes", access: .admin)

    // Files: uploads are read, and downloads read back, up to 32 MiB (images may be 2 MB,
    // videos 20 MB: AttachmentLimits)
    public static let uploadMedia = Endpoint("POST", "/chats/{id}/media",
                                             operationID: "sendMedia",
                                             maximumBodyBytes: 32 << 20, takesFile: true)
    public static let downloadMedia = Endpoint("GET", "/media/{id}",
                                               operationID: "downloadMedia", maximumResponseBytes: 32 << 20)

    // Smart actions
    public static let smartActions = Endpoint("GET", "/chats/{id}/smart_actions", operationID: "getSmartActions")
    public static let smartActionReceived = Endpoint("POST", "/chats/{id}/smart_actions/{action}/received",
                                                     operationID: "notifySmartActionReceived")
    public static let smartActionResult = Endpoint("POST", "/chats/{id}/smart_actions/{action}/result",
                                                   operationID: "sendSmartActionResult")
    public static let smartActionStatus = Endpoint("PUT", "/chats/{id}/smart_actions/{action}/status",
                                                   operationID: "updateSmartActionStatus")
    public static let callSmartActions = Endpoint("GET", "/calls/{id}/smart_actions", operationID: "getCallSmartActions")
    public static let callSmartActionReceived = Endpoint("POST", "/calls/{id}/smart_actions/{action}/received",
                                                         operationID: "notifyCallSmartActionReceived")
    public static let callSmartActionResult = Endpoint("POST", "/calls/{id}/smart_actions/{action}/result",
                                                       operationID: "sendCallSmartActionResult")
    public static let callSmartActionStatus = Endpoint("PUT", "/calls/{id}/smart_actions/{action}/status",
                                                       operationID: "updateCallSmartActionStatus")

    // Forms
    public static let customForm = Endpoint("GET", "/custom_forms/{id}", operationID: "getCustomFormDetails")
    public static let submitCustomForm = Endpoint("POST", "/custom_forms/submissions", operationID: "submitCustomForm")
    public static let fetchWebForm = Endpoint("POST", "/web_forms/fetch", operationID: "fetchWebForm")
    public static let validateWebForm = Endpoint("POST", "/web_forms/validate", operationID: "validateWebForm")
    public static let formComplete = Endpoint("POST", "/chats/{id}/form_complete", operationID: "sendFormComplete")

    // Screen share
    public static let createScreenShare = Endpoint("POST", "/screen_shares", operationID: "createScreenShare")
    public static let screenShare = Endpoint("GET", "/screen_shares/{id}", operationID: "getScreenShare")
    public static let activateScreenShare = Endpoint("POST", "/screen_shares/{id}/activate",
                                                     operationID: "activateScreenShare")
    public static let screenShareRemoteControl = Endpoint("POST", "/screen_shares/{id}/remote_control",
                                                          operationID: "enableRemoteControl")
    public static let screenShareOptions = Endpoint("PUT", "/screen_shares/{id}/options",
                                                    operationID: "enableFullDeviceSharing")
    public static let endScreenShare = Endpoint("POST", "/screen_shares/{id}/end", operationID: "endScreenShare")
    public static let screenShareEvent = Endpoint("POST", "/chats/{id}/screen_share_events",
                                                  operationID: "sendScreenShareEvent")

    // Post-session, ratings and transcripts (seed 000)
    public static let postSessionSettings = Endpoint("GET", "/chats/{id}/post_session", operationID: "getPostSessionFlow")
    public static let startPostSession = Endpoint("POST", "/chats/{id}/post_session/start", operationID: "startPostSession")
    public static let readyPostSession = Endpoint("POST", "/chats/{id}/post_session/ready", operationID: "readyPostSession")
    public static let survey = Endpoint("GET", "/chats/{id}/survey", operationID: "getSurvey")
    public static let submitSurvey = Endpoint("POST", "/chats/{id}/survey", operationID: "submitSurvey")
    public static let rate = Endpoint("POST", "/chats/{id}/rating", operationID: "rate")
    public static let callPostSessionSettings = Endpoint("GET", "/calls/{id}/post_session", operationID: "getCallPostSessionFlow")
    public static let startCallPostSession = Endpoint("POST", "/calls/{id}/post_session/start", operationID: "startCallPostSession")
    public static let readyCallPostSession = Endpoint("POST", "/calls/{id}/post_session/ready", operationID: "readyCallPostSession")
    public static let callSurvey = Endpoint("GET", "/calls/{id}/survey", operationID: "getCallSurvey")
    public static let submitCallSurvey = Endpoint("POST", "/calls/{id}/survey", operationID: "submitCallSurvey")
    public static let rateCall = Endpoint("POST", "/calls/{id}/rating", operationID: "rateCall")
    /// A PDF, read up to 32 MiB.
    public static let transcript = Endpoint("GET", "/chats/{id}/transcript",
                                            operationID: "downloadChatTranscript", maximumResponseBytes: 32 << 20)
    public static let ratings = Endpoint("GET", "/admin/ratings", operationID: "getRatings", access: .admin)

    // Operations: whether a served sandbox answers (a load balancer's or Kubernetes' probe)
    public static let health = Endpoint("GET", "/healthz", operationID: "getHealth", access: .anyone)

    /// Every endpoint, in the order of docs/openapi.yaml.
    public static let all: [Endpoint] = [
        authenticate, signOut, company, endUser, updateEndUser, events,
        startChat, currentChat, previousChats, chat, sendMessage, messages, typing, sendPreview, preview, escalate,
        updateEscalation, sendChatEvent, endChat, enqueueChat,
        startInstantCall, currentCall, call, holdCall, interruptCall, resumeCall, endCall, escalateCall, startVoicemail, callDeflection,
        audibleMessages, voicemails, scheduledTimeSlots, createScheduledCall, cancelScheduledCall, acceptIncomingCall,
        declineIncomingCall, updatePushToken, pushes,
        uploadMedia, downloadMedia,
        smartActions, smartActionReceived, smartActionResult, smartActionStatus,
        callSmartActions, callSmartActionReceived, callSmartActionResult, callSmartActionStatus,
        customForm, submitCustomForm, fetchWebForm, validateWebForm, formComplete,
        createScreenShare, screenShare, activateScreenShare, screenShareRemoteControl, screenShareOptions, endScreenShare,
        screenShareEvent, queueMenus, waitTimes,
        postSessionSettings, startPostSession, readyPostSession, survey, submitSurvey, rate,
        callPostSessionSettings, startCallPostSession, readyCallPostSession, callSurvey, submitCallSurvey, rateCall,
        transcript, ratings, health,
    ]
}
