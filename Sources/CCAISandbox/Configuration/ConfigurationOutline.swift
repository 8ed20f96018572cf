import CCAIWire
import Foundation

/// The effective configuration as a tree a person reads: the company, its hours, the menus
/// with their ids, channels and rules, the agents and what each does, virtual agents,
/// surveys and forms. `ccai sandbox show` prints it, and the reference's page of the
/// built-in company is made by the same code.
///
/// ```swift
/// print(ConfigurationOutline.text(.builtIn))
/// // Acme (company key dev-key): languages en, es; time zone America/Los_Angeles
/// // hours: mon-fri 09:00-17:00; sat-sun closed
/// // ...
/// ```
public enum ConfigurationOutline {
    /// The outline, one item a line, nested by two spaces.
    public static func text(_ configuration: SandboxConfiguration) -> String {
        var lines: [String] = []
        let company = configuration.company
        lines.append("\(company.name) (company key \(company.key)): languages \(company.languages.joined(separator: ", ")); "
                     + "time zone \(company.timeZone)")
        lines.append("hours: " + (configuration.hours.map(\.summary) ?? "always open"))
        if let rules = company.postSession { lines.append("post-session (company-wide): " + summary(rules)) }
        if let messages = company.audibleMessages, !messages.isEmpty {
            lines.append("audible messages (company-wide): " + messages.keys.sorted().joined(separator: ", "))
        }
        lines.append("menus:" + ((configuration.menus ?? []).isEmpty ? " none" : ""))
        for menu in configuration.menus ?? [] { describe(menu, depth: 1, into: &lines) }
        lines.append("agents:" + ((configuration.agents ?? []).isEmpty ? " none" : ""))
        for agent in configuration.agents ?? [] {
            let load = (agent.maxChats.map { ", at most \($0) chats at once" } ?? "")
                + (agent.shifts.map { "; shifts " + $0.map(\.summary).joined(separator: ", ") } ?? "")
            let behaviour = agent.script.map { "script \($0)" } ?? "no script: " + DefaultAgent.summary
            lines.append("  \(agent.name): menus \(agent.menus.map(String.init).joined(separator: ", "))\(load); \(behaviour)")
        }
        if let virtualAgents = configuration.virtualAgents, !virtualAgents.isEmpty {
            lines.append("virtual agents:")
            for (id, agent) in virtualAgents.sorted(by: { $0.key < $1.key }) {
                var parts = [agent.script.map { "script \($0)" }
                    ?? "\(agent.rules?.count ?? 0) keyword rules"
                    + ((agent.rules ?? []).isEmpty ? "" : " (" + (agent.rules ?? []).map { $0.keywords.joined(separator: "/") }
                        .joined(separator: "; ") + ")")]
                if let options = agent.escalationOptions, !options.isEmpty {
                    parts.append("escalation options " + options.map { "\($0.id) \($0.deflectionChannel ?? "chat")" }
                        .joined(separator: ", "))
                }
                lines.append("  \(id) \"\(agent.name ?? id)\": " + parts.joined(separator: "; "))
            }
        }
        let surveys = configuration.numberedSurveys
        if !surveys.isEmpty {
            lines.append("surveys:")
            for (key, id, survey) in surveys {
                lines.append("  \(key) (survey \(id)): " + survey.questions.map { question in
                    "\(question.id) \(question.type.rawValue)" + (question.required == true ? " (required)" : "")
                        + (question.options.map { " [" + $0.map(\.value).joined(separator: ", ") + "]" } ?? "")
                }.joined(separator: ", "))
            }
        }
        if let forms = configuration.customForms, !forms.isEmpty {
            lines.append("custom forms:")
            for form in forms {
                lines.append("  \(form.id)" + (form.name.map { " \($0)" } ?? "") + (form.title.map { " \"\($0)\"" } ?? "")
                             + ": " + form.questions.map { "\($0.id) \($0.type.rawValue)" }.joined(separator: ", "))
            }
        }
        if let forms = configuration.webForms, !forms.isEmpty {
            lines.append("web forms:")
            for form in forms {
                lines.append("  \(form.externalFormId)" + (form.title.map { " \"\($0)\"" } ?? "") + (form.url.map { " at \($0)" } ?? ""))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func describe(_ menu: MenuConfiguration, depth: Int, into lines: inout [String]) {
        let indent = String(repeating: "  ", count: depth)
        var title = "\(indent)\(menu.id) \(name(menu.name))"
        if menu.hidden == true { title += " (hidden)" }
        if let keys = menu.directAccessKeys, !keys.isEmpty { title += "; direct access keys " + keys.joined(separator: ", ") }
        lines.append(title)
        let detail = indent + "    "
        let channels = channelSummaries(menu)
        if !channels.isEmpty { lines.append(detail + "channels: " + channels.joined(separator: "; ")) }
        if let hours = menu.hours { lines.append(detail + "hours: " + hours.summary) }
        if !menu.preSessionChatActions.isEmpty {
            lines.append(detail + "pre-session smart actions: " + menu.preSessionChatActions.map(\.rawValue).joined(separator: ", "))
        }
        if let capacity = menu.capacity {
            let limits = [capacity.maxWaiting.map { "\($0) waiting" }, capacity.waitThresholdSeconds.map { "a wait of \(Int($0)) s" }]
                .compactMap { $0 }
            if !limits.isEmpty { lines.append(detail + "over capacity at " + limits.joined(separator: " or ")) }
        }
        if let deflection = menu.deflection {
            let targets = [deflection.afterHours.map { "after hours to \($0)" }, deflection.overCapacity.map { "over capacity to \($0)" }]
                .compactMap { $0 }
            if !targets.isEmpty { lines.append(detail + "deflects " + targets.joined(separator: ", ")) }
        }
        if let rules = menu.postSession { lines.append(detail + "post-session: " + summary(rules)) }
        if let messages = menu.audibleMessages, !messages.isEmpty {
            lines.append(detail + "audible messages: " + messages.keys.sorted().joined(separator: ", "))
        }
        for child in menu.children ?? [] { describe(child, depth: depth + 1, into: &lines) }
    }

    private static func channelSummaries(_ menu: MenuConfiguration) -> [String] {
        guard let channels = menu.channels else { return [] }
        var parts: [String] = []
        if let chat = channels.chat {
            let traits = [chat.virtualAgent.map { "virtual agent \($0)" }, chat.redaction == true ? "redacted" : nil].compactMap { $0 }
            parts.append("chat" + (traits.isEmpty ? "" : " (" + traits.joined(separator: ", ") + ")"))
        }
        if let call = channels.voiceCall {
            let traits = [call.instant == true ? "instant" : nil, call.schedule == true ? "scheduled" : nil,
                          call.recording.map { "recording \($0.rawValue)" }, call.phoneNumber,
                          call.virtualAgent.map { "virtual agent \($0)" + (call.allowSkipVirtualAgent == true ? ", skippable" : "") },
                          call.redirectToVoicemail == true ? "redirected to voicemail" : nil,
                          call.waitDeflection.map { rule in
                              "past \(Checked.truncated(rule.afterSeconds) ?? 0) s offers " + rule.offers.map(\.rawValue).joined(separator: "/")
                          }].compactMap { $0 }
            parts.append("voice call" + (traits.isEmpty ? "" : " (" + traits.joined(separator: ", ") + ")"))
        }
        if let email = channels.email { parts.append("email \(email.email)") }
        if let links = channels.externalDeflectionLink?.links, !links.isEmpty {
            parts.append("links " + links.map { $0.displayName + ($0.enabled == false ? " (off)" : "") }.joined(separator: ", "))
        }
        return parts
    }

    private static func summary(_ rules: PostSessionConfiguration) -> String {
        let parts = [rules.virtualAgent.map { "virtual agent \($0)" }, rules.survey.map { "survey \($0)" },
                     rules.csat.map { $0 ? "csat" : "no csat" }, rules.optIn == true ? "opt-in" : nil].compactMap { $0 }
        return parts.isEmpty ? "inherited" : parts.joined(separator: ", ")
    }

    /// `Billing (es: Facturación)`: the text without a language, else English, with the others.
    private static func name(_ text: LocalizedText) -> String {
        let main = text.text("en", fallback: "") ?? ""
        let others = text.byLanguage.filter { !$0.key.isEmpty && $0.key != "en" }.sorted { $0.key < $1.key }
        return main + (others.isEmpty ? "" : " (" + others.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")")
    }
}
