import CCAIKit
import CCAISandbox
import Foundation
import TestSupport
import Testing

@Suite struct ServerSentEventParserTests {
    @Test func parsesEventsSplitAnywhere() throws {
        let text = "retry: 250\r\n: a comment\r\nid: 1\r\nevent: state_changed\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata: plain\n\nid: 3\rdata: cr only\r\r"
        let bytes = Array(text.utf8)
        for size in [1, 2, 3, 7, bytes.count] {
            var parser = ServerSentEventParser()
            var events: [ServerSentEvent] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + size, bytes.count)
                events += try parser.feed(Data(bytes[offset..<end]))
                offset = end
            }
            events += try parser.feed(Data("\n".utf8))
            #expect(events == [
                ServerSentEvent(id: "1", event: "state_changed", data: "{\"a\":\n1}"),
                ServerSentEvent(id: "1", event: "message", data: "plain"),
                ServerSentEvent(id: "3", event: "message", data: "cr only"),
            ], "chunks of \(size)")
            #expect(parser.retry == 250)
            #expect(parser.lastEventID == "3")
        }
    }

    @Test func ignoresEmptyEventsAndUnknownFields() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.feed(Data("event: x\n\nfoo: bar\ndata\n\n".utf8)) == [ServerSentEvent(data: "")])
    }

    /// Each byte is scanned once: an event of almost 1 MiB arriving 64 bytes at a time
    /// (16,000 chunks) parses in milliseconds, where rescanning the buffer on every chunk
    /// took minutes. The bound is generous: a quadratic parser misses it by far.
    /// It runs on a thread of its own: seconds of CPU in a debug build, which on the threads
    /// Swift's tasks share would stall the other tests' servers.
    @Test func aLongEventArrivingInSmallChunksParsesInLinearTime() async throws {
        let payload = String(repeating: "a", count: (1 << 20) - 100)
        let bytes = Array("data: \(payload)\n\n".utf8)
        // Linear parsing takes a fraction of a second here; rescanning the buffer on every
        // chunk (16,384 chunks over up to 1 MiB each) takes minutes. 30 s leaves room for a
        // loaded machine and the sanitizers.
        let (events, parsed) = try await offThePool { () throws -> ([ServerSentEvent], Int) in
            var parser = ServerSentEventParser()
            var events: [ServerSentEvent] = []
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(30))
            var offset = 0
            while offset < bytes.count, clock.now <= deadline {
                let end = min(offset + 64, bytes.count)
                events += try parser.feed(Data(bytes[offset..<end]))
                offset = end
            }
            return (events, offset)
        }
        #expect(parsed == bytes.count, "only \(parsed) of \(bytes.count) bytes parsed in 30 s")
        #expect(events.count == 1 && events.first?.data.count == payload.count)
    }

    /// A line that never ends, or an event that never ends (data lines without the blank
    /// line), cannot grow the buffer past the limit: the parser refuses it.
    @Test func aLineOrAnEventPastTheLimitIsRefused() throws {
        var endless = ServerSentEventParser(maximumEventBytes: 1000)
        #expect(try endless.feed(Data("data: ".utf8)).isEmpty)
        #expect(throws: ServerSentEventParser.TooLarge(limit: 1000)) {
            for _ in 0..<20 { _ = try endless.feed(Data(repeating: UInt8(ascii: "x"), count: 100)) }
        }
        var manyLines = ServerSentEventParser(maximumEventBytes: 1000)
        #expect(throws: ServerSentEventParser.TooLarge(limit: 1000)) {
            for _ in 0..<100 { _ = try manyLines.feed(Data("data: 0123456789\n".utf8)) }
        }
        var atTheLimit = ServerSentEventParser(maximumEventBytes: 1000)
        let full = String(repeating: "y", count: 1000)
        #expect(try atTheLimit.feed(Data("data:\(full.dropFirst(5))\n\n".utf8)) == [ServerSentEvent(data: String(full.dropFirst(5)))])
        #expect(ServerSentEventParser().maximumEventBytes == 1 << 20)
    }
}
