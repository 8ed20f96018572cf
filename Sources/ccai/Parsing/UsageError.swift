/// A usage mistake on the command line: rendered with a hint to the command's help, exit
/// status 2 (``ErrorReport``).
struct UsageError: Error, CustomStringConvertible, Equatable {
    var message: String
    /// The help topic the hint points to (`ccai help run`), nil for `ccai help`.
    var command: String?

    var description: String { message }
}
