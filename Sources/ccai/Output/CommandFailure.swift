/// A command that did not get through, with what it has to say: each message becomes an
/// `error: ` line, and `status` the exit status (``ErrorReport``).
///
/// ```swift
/// throw CommandFailure("cannot write to 'out': permission denied")
/// ```
struct CommandFailure: Error, Equatable {
    var messages: [String]
    var status: ExitStatus

    init(_ messages: String..., status: ExitStatus = .failure) {
        self.init(messages: messages, status: status)
    }

    init(messages: [String], status: ExitStatus = .failure) {
        self.messages = messages
        self.status = status
    }
}
