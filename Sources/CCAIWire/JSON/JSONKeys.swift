import Foundation

/// Finds a key that appears twice in one object of a JSON text, which decoders resolve
/// silently (one takes the first, another the last): a signed token must mean one thing.
///
/// ```swift
/// JSONKeys.duplicate(in: Data(#"{"sub":"a","sub":"b"}"#.utf8))   // "sub"
/// ```
enum JSONKeys {
    /// The first key seen twice in the same object, or nil. Assumes valid JSON (decode first).
    static func duplicate(in json: Data) -> String? {
        var objects: [Set<String>?] = []   // one entry per open object or array (nil for arrays)
        var expectingKey = false
        var index = json.startIndex
        while index < json.endIndex {
            let byte = json[index]
            switch byte {
            case UInt8(ascii: "{"):
                objects.append([])
                expectingKey = true
            case UInt8(ascii: "["):
                objects.append(nil)
                expectingKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = objects.popLast()
                expectingKey = false
            case UInt8(ascii: ","):
                expectingKey = objects.last.map { $0 != nil } ?? false
            case UInt8(ascii: "\""):
                let (text, end) = string(json, from: index)
                if expectingKey, let keys = objects.last, let keys {
                    if keys.contains(text) { return text }
                    objects[objects.count - 1] = keys.union([text])
                    expectingKey = false
                }
                index = end
                continue
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The decoded string starting at the quote at `start`, and the index after its closing quote.
    private static func string(_ json: Data, from start: Data.Index) -> (String, Data.Index) {
        var index = start + 1
        while index < json.endIndex, json[index] != UInt8(ascii: "\"") {
            index += json[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        let end = min(index + 1, json.endIndex)
        let literal = json[start..<end]
        let decoded = (try? JSONDecoder().decode(String.self, from: literal)) ?? String(decoding: literal, as: UTF8.self)
        return (decoded, end)
    }
}
