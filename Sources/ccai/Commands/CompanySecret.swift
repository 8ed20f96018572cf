import Foundation

/// Where the CLI takes a company secret from, so that it need not be on the command line
/// (where `ps` shows it): the option itself, a file (`--…-file`, its first line), or the
/// `CCAI_COMPANY_SECRET` environment variable, in that order.
///
/// ```sh
/// CCAI_COMPANY_SECRET=... ccai run bot.lua --host platform.example --company-key k
/// ccai jwt sign --secret-file /run/secrets/ccai --claims -
/// ```
enum CompanySecret {
    static let environmentVariable = "CCAI_COMPANY_SECRET"

    /// The secret from `value` (an option's), else the file at `file`, else the environment.
    static func resolve(value: String?, file: String?, fileOption: String, command: String,
                        environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if let value { return value }
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw UsageError(message: "\(fileOption): cannot read '\(file)'", command: command)
            }
            let secret = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            guard !secret.isEmpty else { throw UsageError(message: "\(fileOption): '\(file)' is empty", command: command) }
            return secret
        }
        if let secret = environment[environmentVariable], !secret.isEmpty { return secret }
        return nil
    }
}
