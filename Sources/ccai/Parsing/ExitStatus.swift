/// How `ccai` ends, as its exit status: the statuses the help texts and README document.
struct ExitStatus: RawRepresentable, Equatable, Sendable {
    var rawValue: Int32

    init(rawValue: Int32) { self.rawValue = rawValue }

    /// Everything went through.
    static let success = ExitStatus(rawValue: 0)
    /// The work failed: a script, a file, a connection.
    static let failure = ExitStatus(rawValue: 1)
    /// A mistake on the command line, or in a scenario's options.
    static let usage = ExitStatus(rawValue: 2)
    /// A scenario's thresholds failed (k6's status).
    static let thresholdsFailed = ExitStatus(rawValue: 99)

    /// Stopped by `signal`: 128 + its number (130 after Ctrl-C, 143 after SIGTERM).
    static func signalled(_ signal: Int32) -> ExitStatus { ExitStatus(rawValue: 128 + signal) }
}
