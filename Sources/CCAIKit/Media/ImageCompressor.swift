import Foundation

/// The SDK's compression attempt for images over the limit. Without an image codec on
/// this platform it is lossless: it drops what does not change the picture (JPEG
/// EXIF/XMP/IPTC/comment segments, PNG text/EXIF/time chunks). Other formats, and images
/// it cannot parse, come back unchanged.
///
/// ```swift
/// let smaller = ImageCompressor.compress(photo, mimeType: "image/jpeg")
/// ```
public enum ImageCompressor {
    public static func compress(_ data: Data, mimeType: String) -> Data {
        let stripped: Data?
        switch mimeType.lowercased() {
        case "image/jpeg", "image/jpg": stripped = strippedJPEG(data)
        case "image/png": stripped = strippedPNG(data)
        default: stripped = nil
        }
        guard let stripped, stripped.count < data.count else { return data }
        return stripped
    }

    /// JPEG without APP1...APP13 and APP15 (EXIF, XMP, IPTC...) and COM segments; APP0
    /// (JFIF), APP2 (the ICC profile) and APP14 (Adobe colour) stay.
    static func strippedJPEG(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var output: [UInt8] = [0xFF, 0xD8]
        var index = 2
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xDA {
                output += bytes[index...]   // start of scan: the compressed picture follows
                return Data(output)
            }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { return nil }
            let droppable = (0xE1...0xED).contains(marker) || marker == 0xEF || marker == 0xFE
            if !droppable { output += bytes[index..<(index + 2 + length)] }
            index += 2 + length
        }
        return nil
    }

    /// PNG without tEXt, zTXt, iTXt, eXIf and tIME chunks.
    static func strippedPNG(_ data: Data) -> Data? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let bytes = [UInt8](data)
        guard bytes.count > 8, Array(bytes[0..<8]) == signature else { return nil }
        var output = signature
        var index = 8
        let droppable: Set<String> = ["tEXt", "zTXt", "iTXt", "eXIf", "tIME"]
        while index + 12 <= bytes.count {
            let length = Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            let end = index + 12 + length
            guard end <= bytes.count else { return nil }
            let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
            if !droppable.contains(type) { output += bytes[index..<end] }
            index = end
            if type == "IEND" { return Data(output) }
        }
        return nil
    }
}
