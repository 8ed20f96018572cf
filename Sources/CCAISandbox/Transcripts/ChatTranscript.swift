import CCAIWire
import Foundation

/// A chat's transcript as the platform gives it for download (`GET /chats/{id}/transcript`,
/// seed 000): a PDF with the company, the queue and the chat's times, then every message
/// with its sender and time (company time zone). Files are named; the end user's text in
/// a redacting queue is shown redacted, as the agent saw it. At most
/// ``maximumMessages`` messages are rendered (the first ones), with a notice saying how
/// many more the chat has: one request never renders without bound.
///
/// ```swift
/// let pdf = try ChatTranscript(chat: chat, messages: messages, companyName: "Acme", queueName: "Billing",
///                              timeZone: .gmt, endUserName: "Ana").pdf()
/// ```
public struct ChatTranscript: Sendable {
    public var chat: ChatResponse
    public var messages: [ChatMessage]
    public var companyName: String
    public var queueName: String
    public var timeZone: TimeZone
    public var endUserName: String?

    /// The most messages one transcript renders (about 2.5 s of rendering).
    public static let maximumMessages = 10_000

    public init(chat: ChatResponse, messages: [ChatMessage], companyName: String, queueName: String, timeZone: TimeZone,
                endUserName: String?) {
        self.chat = chat
        self.messages = messages
        self.companyName = companyName
        self.queueName = queueName
        self.timeZone = timeZone
        self.endUserName = endUserName
    }

    /// The PDF's bytes.
    public func pdf() throws -> Data {
        var document = PDFDocument()
        document.add("\(companyName) · Chat transcript", style: .title)
        document.add("Chat \(chat.id) · \(queueName) · started \(time(chat.createdAt))"
                     + (chat.endedAt.map { ", ended \(time($0))" } ?? ""), style: .notice)
        for message in messages.prefix(Self.maximumMessages) {
            document.add("\(sender(message.sender)) · \(time(message.createdAt))", style: .label)
            let (text, style) = content(message)
            document.add(text, style: style)
        }
        if messages.count > Self.maximumMessages {
            document.add("\(messages.count - Self.maximumMessages) more messages are not shown: a transcript holds the first "
                         + "\(Self.maximumMessages).", style: .notice)
        }
        return try document.render()
    }

    private func sender(_ sender: ChatMessageSender) -> String {
        switch sender.type {
        case "end_user": return sender.name ?? endUserName ?? "Customer"
        case "agent": return "\(sender.name ?? "Agent") (agent)"
        case "virtual_agent": return "\(sender.name ?? "Virtual agent") (virtual agent)"
        default: return "System"
        }
    }

    private func content(_ message: ChatMessage) -> (String, PDFDocument.Style) {
        if let media = message.media {
            return ("File: \(media.name ?? "unnamed") (\(media.mimeType), \(media.size) bytes)", .body)
        }
        if let form = message.form { return ("Form: \(form.title ?? form.name ?? "form \(form.id)")", .notice) }
        if let webForm = message.webForm { return ("Web form: \(webForm.externalFormId)", .notice) }
        let text = message.text ?? message.event ?? ""
        if message.sender.type == "end_user", chat.redactionEnabled { return (chat.agentView(of: text), .body) }
        return (text, message.type == "noti" || message.type == "screen_share" ? .notice : .body)
    }

    private func time(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss zzz"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
