import LuaRuntime

/// A configuration that cannot be used, with the field at fault.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }

    /// Several problems at once, each naming its field: `config.lua: 2 problems: a; b`.
    init(problems: [String], in file: String? = nil) {
        let list = problems.count == 1 ? problems[0] : "\(problems.count) problems: " + problems.joined(separator: "; ")
        message = file.map { "\($0): " + list } ?? list
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? LuaKeyStrategy.snakeCased($0.stringValue) }
                .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is required"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        case .dataCorrupted(let context): return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "the configuration does not have the expected shape"
        }
    }
}
