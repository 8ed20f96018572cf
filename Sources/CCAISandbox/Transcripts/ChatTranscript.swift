import CCAIWire
import Foundation

/// A chat's transcript as the platform gives it for download (`GET /chats/{id}/transcript`,
/// seed 000): a PDF with the company, the queue and the chat's times, then every message
/// with its sender and time (company time zone). Files are named; the end user's text in
/// a redacting queue is shown redacted, as the agent saw it (the messages come as agents
/// see them: ``Conversation/agentView(of:)``).
///
/// One transcript never renders without bound, whatever the chat: it holds at most
/// ``maximumMessages`` messages (the first ones), ``maximumTextBytes`` bytes of text and
/// ``maximumPages`` pages. A name is cut at ``maximumNameBytes`` bytes and a message at
/// ``maximumMessageBytes`` (each cut says how much was left out), before pango lays the
/// text out; a notice at the end says which messages were left out.
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
    /// How many messages the chat has (`messages` may be its first ones only).
    public var messageCount: Int

    /// The most messages one transcript renders: what 100 pages hold of the shortest ones.
    public static let maximumMessages = 2_500
    /// The most bytes of text (UTF-8) one transcript renders, all blocks together.
    public static let maximumTextBytes = 256 << 10
    /// The most pages of one transcript.
    public static let maximumPages = 100
    /// The most bytes shown of one message: any text message whole (10,000 characters of
    /// up to 4 bytes).
    public static let maximumMessageBytes = 40_000
    /// The most bytes shown of a name (the end user's, an agent's, the company's, a queue's).
    public static let maximumNameBytes = 200

    public init(chat: ChatResponse, messages: [ChatMessage], messageCount: Int? = nil, companyName: String, queueName: String,
                timeZone: TimeZone, endUserName: String?) {
        self.chat = chat
        self.messages = messages
        self.messageCount = max(messageCount ?? 0, messages.count)
        self.companyName = companyName
        self.queueName = queueName
        self.timeZone = timeZone
        self.endUserName = endUserName
    }

    /// The PDF's bytes.
    public func pdf() throws -> Data {
        var document = PDFDocument(maximumPages: Self.maximumPages)
        var budget = Self.maximumTextBytes
        func add(_ text: String, style: PDFDocument.Style, maximumBytes: Int) {
            let shown = Self.cut(text, toBytes: min(maximumBytes, budget))
            budget -= shown.utf8.count
            document.add(shown, style: style)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss zzz"
        func time(_ seconds: Double) -> String { formatter.string(from: Date(timeIntervalSince1970: seconds)) }

        add(Self.cut(companyName, toBytes: Self.maximumNameBytes) + " · Chat transcript", style: .title,
            maximumBytes: Self.maximumNameBytes * 2)
        add("Chat \(chat.id) · \(Self.cut(queueName, toBytes: Self.maximumNameBytes)) · started \(time(chat.createdAt))"
            + (chat.endedAt.map { ", ended \(time($0))" } ?? ""), style: .notice, maximumBytes: Self.maximumNameBytes * 2)
        var firstBlocks: [Int] = []
        for message in messages.prefix(Self.maximumMessages) {
            guard budget > 0 else { break }
            firstBlocks.append(document.blockCount)
            add(Self.cut(sender(message.sender), toBytes: Self.maximumNameBytes) + " · " + time(message.createdAt), style: .label,
                maximumBytes: Self.maximumNameBytes * 2)
            let (text, style) = content(message)
            add(text, style: style, maximumBytes: Self.maximumMessageBytes)
        }
        let blockCount = document.blockCount
        return try document.render { firstBlockLeftOut in
            // A message is two blocks, its label and its content: drawn both, or begun.
            let end = firstBlockLeftOut ?? blockCount
            let drawn = firstBlocks.filter { $0 + 1 < end }.count
            let begun = firstBlocks.contains { $0 + 1 == end }
            guard drawn < messageCount else { return nil }
            return "The transcript shows messages 1 to \(drawn) of \(messageCount)"
                + (begun ? ", and message \(drawn + 1) in part" : "")
                + ": it holds at most \(Self.maximumMessages) messages, \(Self.maximumTextBytes) bytes of text and "
                + "\(Self.maximumPages) pages."
        }
    }

    /// `text` cut to at most `maximumBytes` bytes of UTF-8 (after a whole scalar), followed
    /// by how many bytes were left out; `text` itself when it fits. Only the part kept is
    /// read.
    static func cut(_ text: String, toBytes maximumBytes: Int) -> String {
        let total = text.utf8.count
        guard total > maximumBytes else { return text }
        var kept = 0
        var end = text.unicodeScalars.startIndex
        for scalar in text.unicodeScalars {
            let size = UTF8.width(scalar)
            guard kept + size <= maximumBytes else { break }
            kept += size
            end = text.unicodeScalars.index(after: end)
        }
        return String(text.unicodeScalars[..<end]) + (kept > 0 ? " " : "") + "[\(total - kept) more bytes not shown]"
    }

    private func sender(_ sender: ChatMessageSender) -> String {
        switch sender.type {
        case .endUser: return sender.name ?? endUserName ?? "Customer"
        case .agent: return "\(sender.name ?? "Agent") (agent)"
        case .virtualAgent: return "\(sender.name ?? "Virtual agent") (virtual agent)"
        default: return "System"
        }
    }

    private func content(_ message: ChatMessage) -> (String, PDFDocument.Style) {
        if let media = message.media {
            return ("File: \(Self.cut(media.name ?? "unnamed", toBytes: Self.maximumNameBytes)) (\(media.mimeType), \(media.size) bytes)",
                    .body)
        }
        if let form = message.form { return ("Form: \(form.title ?? form.name ?? "form \(form.id)")", .notice) }
        if let webForm = message.webForm { return ("Web form: \(webForm.externalFormId)", .notice) }
        return (message.text ?? message.event ?? "", message.type == .notification || message.type == .screenShare ? .notice : .body)
    }
}
