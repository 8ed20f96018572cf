import CCAIWire
import Foundation

/// A `HOST:PORT` to listen on, as `--listen`, `--webhook-listen` and `--out prometheus=`
/// take it: an IPv6 host in brackets (`[::1]:9464`), PORT 0 for any free port.
struct ListenAddress: Equatable {
    var host: String
    var port: UInt16

    /// Reads `value`; nil when it is not HOST:PORT.
    init?(_ value: String) {
        guard let colon = value.lastIndex(of: ":"), colon != value.startIndex,
              let port = UInt16(value[value.index(after: colon)...])
        else { return nil }
        host = String(value[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        self.port = port
        guard !host.isEmpty else { return nil }
    }

    /// Reads `value` for `option`, or the usage error that says what it expects.
    static func parse(_ value: String, for option: String, command: String) throws -> ListenAddress {
        guard let address = ListenAddress(value) else {
            throw UsageError(message: "\(option) expects HOST:PORT (PORT 0: any free port), got '\(TerminalText.escaped(value))'",
                             command: command)
        }
        return address
    }
}
