import CCAIWire
import Foundation

/// A `HOST:PORT` to listen on, as `--listen`, `--webhook-listen` and `--out prometheus=`
/// take it: HOST an IPv4 address or `localhost` (127.0.0.1), PORT 0 for any free port.
/// The server listens on IPv4 only, so an IPv6 address is refused here, not at start.
struct ListenAddress: Equatable {
    var host: String
    var port: UInt16

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Reads `value`; nil when it is not HOST:PORT with an IPv4 HOST or localhost.
    init?(_ value: String) {
        guard let colon = value.lastIndex(of: ":"), colon != value.startIndex,
              let port = UInt16(value[value.index(after: colon)...])
        else { return nil }
        let host = String(value[..<colon])
        guard !host.isEmpty, !host.contains(":"), !host.contains("["), !host.contains("]") else { return nil }
        self.host = host == "localhost" ? "127.0.0.1" : host
        self.port = port
    }

    /// Reads `value` for `option`, or the usage error that says what it expects.
    static func parse(_ value: String, for option: String, command: String) throws -> ListenAddress {
        guard let address = ListenAddress(value) else {
            throw UsageError(message: "\(option) expects HOST:PORT, HOST an IPv4 address or localhost (PORT 0: any free "
                             + "port), got '\(TerminalText.escaped(value))'", command: command)
        }
        return address
    }
}
