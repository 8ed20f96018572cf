import CCAIKit
import Foundation

/// Where `ccai run` takes the Apps API's credentials from for `--apps-host`, never a flag's
/// value (where `ps` shows it): `--apps-credentials-file`'s one line, else the
/// `CCAI_APPS_CREDENTIALS` environment variable, each `SUBDOMAIN:TOKEN`.
///
/// ```sh
/// CCAI_APPS_CREDENTIALS=acme:$TOKEN ccai run bot.lua --apps-host https://acme.example.com
/// ```
enum AppsCredentials {
    static let environmentVariable = "CCAI_APPS_CREDENTIALS"

    /// The credentials from `file`, else the environment; a usage error when neither gives
    /// `SUBDOMAIN:TOKEN`.
    static func resolve(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> AppsClient.Credentials
    {
        let text: String
        let source: String
        if let file {
            do {
                text = try ServeToken.read(file, kept: false)
            } catch let error as ServeTokenError {
                throw UsageError(message: "--apps-credentials-file: \(error.message)", command: "run")
            }
            source = "--apps-credentials-file '\(file)'"
        } else if let given = environment[environmentVariable], !given.isEmpty {
            (text, source) = (given, environmentVariable)
        } else {
            throw UsageError(message: "--apps-host needs credentials: --apps-credentials-file FILE or \(environmentVariable), "
                             + "each SUBDOMAIN:TOKEN", command: "run")
        }
        guard let credentials = AppsClient.Credentials(text) else {
            throw UsageError(message: "\(source) must be SUBDOMAIN:TOKEN (the company's subdomain, a colon, an API token)",
                             command: "run")
        }
        return credentials
    }
}
