/// A field read as the script wrote it: ``LuaDecoder`` hands the value over unconverted
/// (a table stays a table, keys and all), for the few arguments whose rules a type cannot
/// state (survey answers keyed by question id, strings or numbers). ``LuaSchema`` shows it
/// as `any`. Another decoder gives a scalar, or fails.
///
/// ```swift
/// struct Arguments: Decodable { var answers: LuaValue }
/// ```
extension LuaValue: Decodable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .nil
        } else if let flag = try? container.decode(Bool.self) {
            self = .boolean(flag)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }
}
