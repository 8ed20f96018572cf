import CCAIKit
import CCAISandbox
import Foundation
import Testing

@Suite struct ServerSentEventParserTests {
    @Test func parsesEventsSplitAnywhere() {
        let text = "retry: 250\r\n: a comment\r\nid: 1\r\nevent: state_changed\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata: plain\n\nid: 3\rdata: cr only\r\r"
        let bytes = Array(text.utf8)
        for size in [1, 2, 3, 7, bytes.count] {
            var parser = ServerSentEventParser()
            var events: [ServerSentEvent] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + size, bytes.count)
                events += parser.feed(Data(bytes[offset..<end]))
                offset = end
            }
            events += parser.feed(Data("\n".utf8))
            #expect(events == [
                ServerSentEvent(id: "1", event: "state_changed", data: "{\"a\":\n1}"),
                ServerSentEvent(id: "1", event: "message", data: "plain"),
                ServerSentEvent(id: "3", event: "message", data: "cr only"),
            ], "chunks of \(size)")
            #expect(parser.retry == 250)
            #expect(parser.lastEventID == "3")
        }
    }

    @Test func ignoresEmptyEventsAndUnknownFields() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Data("event: x\n\nfoo: bar\ndata\n\n".utf8)) == [ServerSentEvent(data: "")])
    }
}
