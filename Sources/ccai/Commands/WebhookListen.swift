import CCAISandbox
import CCAIScripting
import CCAIWire
import Foundation

/// `ccai run --webhook-listen HOST:PORT`: a receiver of the platform's webhooks on that
/// address, verifying every signature (and refusing unsigned, stale and replayed
/// deliveries) with the secrets of `--webhook-secret-file` (its first line the primary, its
/// second the secondary) or `CCAI_WEBHOOK_SECRETS` (`PRIMARY[,SECONDARY]`). Each delivery
/// goes to the state whose `ccai.apps.start_chat` started its chat (``WebhookInbox``). With
/// the embedded sandbox and no secrets, one is made up and the sandbox sends its webhooks
/// here (unless its configuration names its own `webhooks`).
///
/// ```sh
/// CCAI_WEBHOOK_SECRETS=$PRIMARY ccai run bot.lua --apps-host https://acme.example.com --webhook-listen 0.0.0.0:8088
/// ```
struct WebhookListen {
    static let environmentVariable = "CCAI_WEBHOOK_SECRETS"

    var host: String
    var port: UInt16
    /// The secrets given; nil: the embedded sandbox's (made up, or its configuration's).
    var secrets: (primary: String, secondary: String?)?

    /// `--webhook-listen` and its secrets, or nil without it; `remote` when the platform is
    /// not the embedded sandbox, which must then be given the secrets.
    static func parse(_ options: [String: String], remote: Bool, environment: [String: String]) throws -> WebhookListen? {
        guard let address = options["--webhook-listen"] else {
            guard options["--webhook-secret-file"] == nil else {
                throw UsageError(message: "--webhook-secret-file goes with --webhook-listen", command: "run")
            }
            return nil
        }
        let listen = try ListenAddress.parse(address, for: "--webhook-listen", command: "run")
        let secrets = try self.secrets(file: options["--webhook-secret-file"], environment: environment)
        if remote, secrets == nil {
            throw UsageError(message: "--webhook-listen with a platform needs its webhook secrets: --webhook-secret-file FILE or "
                             + "\(environmentVariable) (PRIMARY[,SECONDARY])", command: "run")
        }
        return WebhookListen(host: listen.host, port: listen.port, secrets: secrets)
    }

    private static func secrets(file: String?, environment: [String: String]) throws -> (primary: String, secondary: String?)? {
        var values: [String]
        if let file {
            do {
                values = try ServeToken.readLines(file)
            } catch let error as ServeTokenError {
                throw UsageError(message: "--webhook-secret-file: \(error.message)", command: "run")
            }
        } else if let given = environment[environmentVariable], !given.isEmpty {
            values = given.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        } else {
            return nil
        }
        values = values.filter { !$0.isEmpty }
        guard (1...2).contains(values.count),
              values.allSatisfy({ $0.utf8.count >= WebhookConfiguration.minimumSecretBytes })
        else {
            throw UsageError(message: "the webhook secrets must be one or two (primary, secondary), each at least "
                             + "\(WebhookConfiguration.minimumSecretBytes) bytes", command: "run")
        }
        return (values[0], values.count > 1 ? values[1] : nil)
    }

    /// The URL the embedded sandbox delivers to: the listening address, or loopback for a
    /// wildcard one.
    var loopbackURL: (UInt16) -> String {
        let host = self.host == "0.0.0.0" ? "127.0.0.1" : self.host
        return { port in "http://\(host):\(port)/" }
    }

    /// Starts the receiver, verifying with `signature`, and hands every delivery to the
    /// returned inbox.
    func start(signature: WebhookSignature) throws -> (WebhookReceiver, WebhookInbox) {
        let (receiver, deliveries) = try WebhookReceiver.stream(address: host, port: port, signature: signature)
        let inbox = WebhookInbox()
        Task {
            for await delivery in deliveries { inbox.receive(delivery.envelope) }
        }
        return (receiver, inbox)
    }
}
