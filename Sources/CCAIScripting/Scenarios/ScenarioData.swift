import Foundation
import LuaRuntime

/// `ccai.data.csv(path)` and `ccai.data.json(path)`: data for customers, read from the
/// script's folder (confined like every path) once per run and shared by every VU (k6's
/// `SharedArray`). A list (the rows of a CSV file, each a table by header; a JSON array)
/// comes back as a read-only view whose elements are made when read, so a VU holds only
/// the rows it uses; a JSON object comes back as a table of its own.
///
/// ```lua
/// local customers = ccai.data.csv("customers.csv")   -- name,email
/// print(#customers, customers[1].name)
/// ```
public final class ScenarioData: @unchecked Sendable {
    /// The largest file read.
    public static let maximumBytes = 64 << 20

    private let lock = NSLock()
    private var loaded: [String: LuaValue] = [:]

    public init() {}

    /// The parsed contents of `path` in `folder`, read and parsed once.
    func load(_ path: String, in folder: ConfinedFolder, format: Format) throws -> (key: String, value: LuaValue) {
        let key = format.rawValue + ":" + folder.root + "/" + path
        if let value = lock.withLock({ loaded[key] }) { return (key, value) }
        let bytes = try folder.read(path, maximumBytes: Self.maximumBytes)
        let value: LuaValue
        switch format {
        case .csv: value = .array(try CSVTable.rows(of: bytes, file: path))
        case .json:
            do { value = try LuaJSON.decode(bytes) } catch let error as LuaJSON.Error {
                throw ScenarioDataError(message: "\(path): \(error.message)")
            }
        }
        return lock.withLock {
            if let first = loaded[key] { return (key, first) }
            loaded[key] = value
            return (key, value)
        }
    }

    func value(_ key: String) -> LuaValue? { lock.withLock { loaded[key] } }

    enum Format: String { case csv, json }
}

struct ScenarioDataError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// RFC 4180 CSV: a header row, then rows of as many fields; fields may be quoted (`""` is
/// a quote inside), line ends are LF or CRLF, a leading byte-order mark is skipped. Every
/// value is a string.
enum CSVTable {
    static func rows(of bytes: Data, file: String) throws -> [LuaValue] {
        var records: [[String]] = []
        var record: [String] = []
        var field: [UInt8] = []
        var quoted = false, wasQuoted = false
        var line = 1
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let all = [UInt8](bytes)
        func endField() {
            record.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            wasQuoted = false
        }
        while index < all.count {
            let byte = all[index]
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < all.count, all[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    field.append(byte)
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""):
                    guard field.isEmpty, !wasQuoted else {
                        throw ScenarioDataError(message: "\(file):\(line): a quote inside an unquoted field")
                    }
                    quoted = true
                    wasQuoted = true
                case UInt8(ascii: ","):
                    endField()
                case UInt8(ascii: "\r") where index + 1 < all.count && all[index + 1] == UInt8(ascii: "\n"):
                    break
                case UInt8(ascii: "\n"):
                    endField()
                    records.append(record)
                    record = []
                    line += 1
                default:
                    guard !wasQuoted else {
                        throw ScenarioDataError(message: "\(file):\(line): text after a quoted field")
                    }
                    field.append(byte)
                }
            }
            index += 1
        }
        if quoted { throw ScenarioDataError(message: "\(file):\(line): a quoted field is not closed") }
        if !field.isEmpty || !record.isEmpty || wasQuoted {
            endField()
            records.append(record)
        }
        records.removeAll { $0 == [""] }
        guard let header = records.first else { throw ScenarioDataError(message: "\(file): no header row") }
        var seen: Set<String> = []
        for name in header {
            guard !name.isEmpty, seen.insert(name).inserted else {
                throw ScenarioDataError(message: "\(file):1: the header names must be distinct and not empty")
            }
        }
        var rows: [LuaValue] = []
        rows.reserveCapacity(records.count - 1)
        for (offset, fields) in records.dropFirst().enumerated() {
            guard fields.count == header.count else {
                throw ScenarioDataError(message: "\(file): row \(offset + 1) has \(fields.count) fields, the header \(header.count)")
            }
            var row: [String: LuaValue] = [:]
            for (name, value) in zip(header, fields) { row[name] = .string(value) }
            rows.append(LuaValue(row))
        }
        return rows
    }
}
