import CCAISandbox
import CCAIWire
import Foundation

/// How long the sandbox takes to render a chat's transcript as a PDF (cairo and pango).
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
}
