import CCAIWire
import Foundation
import Timekeeping

/// What the console's page shows, read once a second (`GET /console/api/state`): the
/// queues with their waiting chats and calls, the agents and what each holds, the console
/// agents' own chats (messages, typing, smart actions, forms) and calls, the newest live
/// chats and calls of the other agents and virtual agents (one of them watched, with its
/// messages), and the latest post-session ratings and survey answers. Every list is
/// bounded, so a load test's thousands of sessions do not make the page heavy.
struct ConsoleState: Encodable {
    struct Queue: Encodable {
        var menuId: Int
        var name: String
        var waiting: [Waiting]
        var waitingCalls: [Waiting]
    }

    /// A chat or a call waiting for an agent.
    struct Waiting: Encodable {
        var id: Int
        var waitingSeconds: Double
    }

    struct Agent: Encodable {
        var name: String
        var console: Bool
        var menus: [Int]
        var chats: [Int]
        var calls: [Int]
        var maxChats: Int?
    }

    /// A chat a console agent plays (with its smart actions and forms), or the one watched.
    struct Chat: Encodable {
        var chatId: Int
        var agent: String?
        var virtualAgent: String?
        var menuId: Int
        var status: String
        /// A console agent's: the page offers its controls.
        var played: Bool
        var messages: [Message]
        /// Whether the customer is typing, and the preview of what they type (the
        /// message preview agents see, redacted when the queue redacts).
        var customerTyping: Bool
        var preview: String?
        var smartActions: [SmartActionShown]
        var forms: [FormShown]
    }

    struct Message: Encodable {
        var id: Int
        var senderType: String
        var senderName: String?
        var type: String
        var text: String?
        /// A file's name, type and size; its bytes at `/console/api/media`.
        var media: ChatMedia?
    }

    struct SmartActionShown: Encodable {
        var id: Int
        var type: String
        var status: String
    }

    struct FormShown: Encodable {
        var id: Int
        var kind: String
        /// The custom form's id, or the web form's external id.
        var form: String
        var status: String
        /// Question ids (as strings) to the customer's values.
        var answers: [String: String]
    }

    /// A call a console agent holds.
    struct Call: Encodable {
        var callId: Int
        var agent: String
        var menuId: Int
        var status: String
    }

    /// A chat or call in progress that no console agent holds: who has it, and whether a
    /// person may escalate it (a virtual agent's, not yet escalated).
    struct Live: Encodable {
        var channel: String
        var id: Int
        var menuId: Int
        var agent: String?
        var virtualAgent: String?
        var status: String
        var escalatable: Bool
    }

    /// A form the console agents may send: a custom form (`form_id`) or a web form
    /// (`external_form_id`).
    struct FormChoice: Encodable {
        var formId: Int?
        var externalFormId: String?
        var name: String
    }

    var queues: [Queue]
    var agents: [Agent]
    var forms: [FormChoice]
    var chats: [Chat]
    var calls: [Call]
    var live: [Live]
    var watched: Chat?
    var ratings: [RatingsReport.Rating]
    var surveys: [RatingsReport.SurveyAnswers]
}

/// Reads a ``ConsoleState`` from the sandbox's domain.
struct ConsoleStateReader: Sendable {
    var configuration: SandboxConfiguration
    var chats: Chats
    var calls: Calls
    var conversation: Conversation
    var smartActions: SmartActions
    var forms: Forms
    var desk: AgentDesk
    var postSessions: PostSessions
    var clock: any TimeSource

    /// The messages of each chat shown, the live sessions listed, and the latest ratings
    /// and survey answers.
    static let messagesShown = 100
    static let liveShown = 50
    static let ratingsShown = 20

    /// The state, with chat `watched`'s messages when it is in progress.
    func read(watching watched: Int?) async throws -> ConsoleState {
        let holdings = await desk.holdings()
        let agents = (configuration.agents ?? []).map { agent in
            let items = holdings[agent.name] ?? []
            return ConsoleState.Agent(name: agent.name, console: agent.isPlayedAtTheConsole, menus: agent.menus,
                                      chats: items.compactMap { if case .chat(let id) = $0 { id } else { nil } }.sorted(),
                                      calls: items.compactMap { if case .call(let id) = $0 { id } else { nil } }.sorted(),
                                      maxChats: agent.maxChats)
        }
        var played: [ConsoleState.Chat] = []
        var playedCalls: [ConsoleState.Call] = []
        for agent in agents where agent.console {
            for chatID in agent.chats {
                if let chat = try await chat(chatID, played: true) { played.append(chat) }
            }
            for callID in agent.calls {
                guard let owner = try await calls.owner(of: callID), let call = try? await calls.call(callID, endUserID: owner) else { continue }
                playedCalls.append(ConsoleState.Call(callId: callID, agent: agent.name, menuId: call.menuId, status: call.status.rawValue))
            }
        }
        let consoleItems = Set(agents.filter(\.console).flatMap { $0.chats.map(WorkItem.chat) + $0.calls.map(WorkItem.call) })
        var watchedChat: ConsoleState.Chat?
        if let watched, !consoleItems.contains(.chat(watched)) { watchedChat = try await chat(watched, played: false) }
        let forms = (configuration.customForms ?? []).map {
            ConsoleState.FormChoice(formId: $0.id, name: $0.title ?? $0.name ?? "form \($0.id)")
        } + (configuration.webForms ?? []).map {
            ConsoleState.FormChoice(externalFormId: $0.externalFormId, name: $0.title ?? $0.externalFormId)
        }
        return ConsoleState(queues: try await queues(), agents: agents, forms: forms, chats: played, calls: playedCalls,
                            live: try await live(besides: consoleItems), watched: watchedChat,
                            ratings: try await postSessions.latestRatings(.chats, limit: Self.ratingsShown),
                            surveys: try await postSessions.latestSurveyAnswers(.chats, limit: Self.ratingsShown))
    }

    /// Every menu with a chat or voice channel, with what waits on it.
    private func queues() async throws -> [ConsoleState.Queue] {
        let now = clock.now().timeIntervalSince1970
        let language = configuration.company.languages.first ?? "en"
        var queues: [ConsoleState.Queue] = []
        for menu in configuration.allMenus where menu.channels?.chat != nil || menu.channels?.voiceCall != nil {
            let waitingChats = try await chats.waiting(onMenus: [menu.id]).map {
                ConsoleState.Waiting(id: $0.chat.id, waitingSeconds: max(0, now - $0.chat.createdAt))
            }
            let waitingCalls = try await calls.waiting(onMenus: [menu.id]).map {
                ConsoleState.Waiting(id: $0.call.id, waitingSeconds: max(0, now - $0.call.createdAt))
            }
            queues.append(ConsoleState.Queue(menuId: menu.id, name: menu.name.text(language, fallback: language) ?? "",
                                             waiting: waitingChats, waitingCalls: waitingCalls))
        }
        return queues
    }

    /// The newest chats and calls in progress that an agent or a virtual agent has, outside
    /// the console (those waiting are in their queues).
    private func live(besides consoleItems: Set<WorkItem>) async throws -> [ConsoleState.Live] {
        let liveChats = try await chats.latestWithAnAgent(limit: Self.liveShown).compactMap { found -> ConsoleState.Live? in
            let chat = found.chat
            guard !consoleItems.contains(.chat(chat.id)) else { return nil }
            return ConsoleState.Live(channel: "chat", id: chat.id, menuId: chat.menuId, agent: chat.agent?.name,
                                     virtualAgent: chat.virtualAgent?.name, status: chat.status.rawValue,
                                     escalatable: chat.agent == nil && chat.virtualAgent != nil && chat.status != .queued)
        }
        let liveCalls = try await calls.latestWithAnAgent(limit: Self.liveShown).compactMap { found -> ConsoleState.Live? in
            let call = found.call
            guard !consoleItems.contains(.call(call.id)) else { return nil }
            return ConsoleState.Live(channel: "call", id: call.id, menuId: call.menuId, agent: call.agent?.name,
                                     virtualAgent: call.virtualAgent?.name, status: call.status.rawValue,
                                     escalatable: call.agent == nil && call.virtualAgent != nil)
        }
        return liveChats + liveCalls
    }

    /// Chat `chatID` as the page shows it; nil when it is unknown, or (watched) ended.
    private func chat(_ chatID: Int, played: Bool) async throws -> ConsoleState.Chat? {
        guard let endUserID = try await chats.owner(of: chatID), let chat = try await chats.chat(chatID, endUserID: endUserID),
              played || chat.isInProgress
        else { return nil }
        let messages = try await conversation.agentView(of: chat, .last(Self.messagesShown)).map {
            ConsoleState.Message(id: $0.id, senderType: $0.sender.type.rawValue, senderName: $0.sender.name, type: $0.type.rawValue,
                                 text: $0.text, media: $0.media)
        }
        let preview = try await chats.preview(of: chatID)
        var shown = ConsoleState.Chat(chatId: chatID, agent: chat.agent?.name, virtualAgent: chat.virtualAgent?.name, menuId: chat.menuId,
                                      status: chat.status.rawValue, played: played, messages: messages, customerTyping: preview.typing,
                                      preview: preview.text, smartActions: [], forms: [])
        if played {
            shown.smartActions = try await smartActions.all(of: CommunicationRouter(id: chatID, type: .chat)).map {
                ConsoleState.SmartActionShown(id: $0.id, type: $0.type.rawValue, status: $0.status.rawValue)
            }
            shown.forms = try await forms.requests(inChat: chatID).map {
                ConsoleState.FormShown(id: $0.id, kind: $0.kind.rawValue, form: $0.formID.map(String.init) ?? $0.externalFormID ?? "",
                                       status: $0.status.rawValue,
                                       answers: Dictionary($0.answers.map { (String($0.questionId), $0.value) }, uniquingKeysWith: { $1 }))
            }
        }
        return shown
    }
}
