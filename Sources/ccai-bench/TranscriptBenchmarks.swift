import CCAISandbox
import CCAIWire
import Foundation

/// How long the sandbox takes to render a chat's transcript as a PDF (cairo and pango), and to
/// redact a message as it stores it.
struct TranscriptBenchmarks {
    /// Milliseconds for a 1,000-message chat (the best of 5 renderings), reported with no
    /// target.
    func transcriptPDF() throws -> BenchmarkResult {
        let chat = ChatResponse(id: 1, status: .ended, menuId: 8, lang: "en", createdAt: 1_796_061_600, endedAt: 1_796_065_200)
        let messages = (1...1_000).map { (number: Int) -> ChatMessage in
            let isAgent = number % 2 == 0
            return ChatMessage(id: number, chatId: 1, sequence: number,
                               sender: ChatMessageSender(type: isAgent ? "agent" : "end_user", name: isAgent ? "Ben" : nil),
                               text: "Message \(number): my order arrived late and the box was damaged, café, Καλημέρα, Привет",
                               createdAt: 1_796_061_600 + Double(number))
        }
        let transcript = ChatTranscript(chat: chat, messages: messages, companyName: "Acme", queueName: "Overflow",
                                        timeZone: TimeZone(identifier: "America/Los_Angeles") ?? .gmt, endUserName: "Ana")
        var bytes = 0
        let nanoseconds = try Timing.nanosecondsPerOperation(operations: 1) { bytes = try transcript.pdf().count }
        return BenchmarkResult(name: "transcript_pdf_ms", value: nanoseconds / 1e6, target: "-",
                               detail: "1,000 messages, \(bytes / 1024) KiB of PDF")
    }

    /// Milliseconds to redact a 10,000-character message, the worst of three kinds (one
    /// letter repeated, `a@` repeated, a message with an address, a card and a phone number
    /// among words), the best of 5 each: what one message costs when it is stored.
    func redaction() -> BenchmarkResult {
        let words = String(repeating: "my card 4111 1111 1111 1111 or ana@acme.test, call 415-555-3423 please ", count: 140)
        let texts = [String(repeating: "a", count: 10_000), String(repeating: "a@", count: 5_000), String(words.prefix(10_000))]
        let worst = texts.map { text in Timing.nanosecondsPerOperation(operations: 1) { _ = Redactor.redact(text) } }.max() ?? 0
        return BenchmarkResult(name: "redaction_ms", value: worst / 1e6, target: "-",
                               detail: "the slowest of 3 kinds of 10,000-character message")
    }
}
