import CCAIWire
import Foundation

/// Turns what the store knows of an ended session (``SandboxStore/SessionFacts``) into its
/// published metadata record (``SessionMetadata``); each choice where the pages are silent
/// is in docs/session-metadata.md. Pure: the same facts give the same record.
struct SessionMetadataBuilder: Sendable {
    let configuration: SandboxConfiguration

    func record(_ facts: SandboxStore.SessionFacts) -> SessionMetadata {
        switch facts.session {
        case .chat(let chat, let assignedAt, let apps):
            chatRecord(facts, chat, assignedAt: assignedAt, apps: apps)
        case .call(let call):
            callRecord(facts, call)
        }
    }

    private func chatRecord(_ facts: SandboxStore.SessionFacts, _ chat: ChatResponse, assignedAt: Double?,
                            apps: SandboxStore.AppsChatFacts) -> SessionMetadata
    {
        let ended = chat.endedAt ?? chat.createdAt
        var record = base(.chat, id: chat.id, lang: chat.lang, menuID: chat.menuId, facts: facts, createdAt: chat.createdAt,
                          endedAt: ended, agent: chat.agent, virtualAgent: chat.virtualAgent)
        (record.sessionType, record.sessionTypeV2) = apps.startedByServer
            ? ("Messaging Inbound (API)", "Messaging Inbound (API)") : ("Messaging Inbound (App Chat)", "Messaging Inbound (Mobile Chat)")
        let (status, subStatus) = AppsChatStatusMapping.status(of: chat, apps)
        (record.status, record.subStatus) = (status.rawValue, subStatus.rawValue)
        record.assignedAt = assignedAt.map(Self.time)
        record.waitDuration = Self.seconds(from: chat.createdAt, to: assignedAt ?? ended)
        record.duration = assignedAt.flatMap { Self.seconds(from: $0, to: ended) }
        record.firstMessageAt = facts.firstMessageAt.map(Self.time)
        record.lastMessageAt = facts.lastMessageAt.map(Self.time)
        record.deflection = apps.escalationChannel.flatMap { $0 == "chat" ? nil : "deflected_to_\($0)" } ?? "no_deflection"
        record.disconnectedBy = Self.disconnectedBy(chat.endedBy?.rawValue)
        return record
    }

    private func callRecord(_ facts: SandboxStore.SessionFacts, _ call: CallResponse) -> SessionMetadata {
        let ended = call.endedAt ?? call.createdAt
        var record = base(.call, id: call.id, lang: configuration.company.languages.first ?? "en", menuID: call.menuId, facts: facts,
                          createdAt: call.createdAt, endedAt: ended, agent: call.agent, virtualAgent: call.virtualAgent)
        (record.sessionType, record.sessionTypeV2) = call.type == .scheduled
            ? ("Voice Scheduled (App)", "Voice scheduled (Mobile)") : ("Voice Inbound (App)", "Voice inbound (Mobile)")
        record.status = if call.status == .failed { "failed" }
            else if call.endReason == .voicemail { "deflected" }
            else if call.connectedAt != nil { "finished" }
            else { "failed" }
        let queuedAt = call.type == .instant ? call.createdAt : nil
        record.queuedAt = queuedAt.map(Self.time)
        record.assignedAt = call.connectedAt.map(Self.time)
        record.connectedAt = record.assignedAt
        record.scheduledAt = call.scheduleTime.map(Self.time)
        record.waitDuration = queuedAt.flatMap { Self.seconds(from: $0, to: call.connectedAt ?? ended) }
        record.duration = call.connectedAt.flatMap { Self.seconds(from: $0, to: ended) }
        record.deflection = call.endReason == .voicemail || call.type == .voicemail ? "deflected_to_voicemail" : "no_deflection"
        record.disconnectedBy = Self.disconnectedBy(call.endReason?.rawValue)
        return record
    }

    /// What chats and calls share: the menu, the handler, the end user, CSAT and smart actions.
    private func base(_ kind: CommunicationRouter.CommunicationType, id: Int, lang: String, menuID: Int, facts: SandboxStore.SessionFacts,
                      createdAt: Double, endedAt: Double, agent: ChatAgent?, virtualAgent: ChatAgent?) -> SessionMetadata
    {
        let results = facts.smartActions.filter { $0.status == .finished }
        func media(_ types: [SmartActionType]) -> [Int] {
            results.filter { types.contains($0.type) }.flatMap { $0.result?.mediaIds ?? [] }
        }
        let updated = ([endedAt, facts.rating?.at] + facts.smartActions.map(\.updatedAt)).compactMap { $0 }.max() ?? endedAt
        return SessionMetadata(
            kind: kind, id: id, lang: lang, sessionType: "", sessionTypeV2: "", status: "", createdAt: Self.time(createdAt),
            endsAt: Self.time(endedAt), updatedAt: Self.time(updated),
            verified: results.contains { $0.type == .verification && $0.result?.verified == true },
            rating: facts.rating?.value, feedback: facts.rating?.feedback, deflection: "no_deflection", disconnectedBy: "",
            selectedMenu: selectedMenu(menuID, lang), menuPath: menuPath(menuID, lang),
            agentInfo: agent.map { .init(name: $0.name, isVirtual: false) } ?? virtualAgent.map { .init(name: $0.name, isVirtual: true) },
            endUser: facts.endUser.flatMap { user in user.id.map { .init(id: $0, identifier: user.identifier) } },
            photos: media([.photo, .screenshot]), videos: media([.video]),
            texts: results.filter { $0.type == .text }.compactMap { $0.result?.text },
            smartActions: facts.smartActions.map { action in
                .init(id: action.id, type: action.type.rawValue, status: action.status.rawValue, verified: action.result?.verified,
                      text: action.result?.text, mediaIds: action.result?.mediaIds, createdAt: Self.time(action.createdAt),
                      updatedAt: Self.time(action.updatedAt))
            })
    }

    private func selectedMenu(_ menuID: Int, _ lang: String) -> SessionMetadata.SelectedMenu? {
        let path = configuration.menuPath(to: menuID)
        guard let menu = path.last else { return nil }
        return .init(id: menu.id, name: configuration.menuName(menu, language: lang), parentId: path.dropLast().last?.id,
                     position: menu.position, menuType: AppsMenuType.mobileMenu.rawValue)
    }

    private func menuPath(_ menuID: Int, _ lang: String) -> SessionMetadata.MenuPath? {
        guard let menu = selectedMenu(menuID, lang) else { return nil }
        return .init(name: menu.name, materializedPath: configuration.materializedPath(to: menuID, language: lang))
    }

    /// `disconnected_by_end_user`, `_agent`, `_timeout`...: who ended the session, after the
    /// published `disconnected_by_unknown`.
    private static func disconnectedBy(_ who: String?) -> String {
        "disconnected_by_" + (who ?? "unknown")
    }

    /// A time as the pages' `date-time`: ISO 8601 in UTC with milliseconds.
    static func time(_ seconds: Double) -> String {
        Date(timeIntervalSince1970: seconds).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Whole seconds from `start` to `end` (rounded), nil when it does not fit.
    private static func seconds(from start: Double, to end: Double) -> Int? {
        Checked.truncated((end - start).rounded())
    }
}
