import CCurl
import Foundation
import CLua
import CMicroHTTPD
import CSQLite
import CSSL
import Testing

/// The system libraries the platform layers build on are found, linked and of a version
/// that has what the project uses.
@Suite struct SystemLibrariesTests {
    @Test func lua54() {
        #expect(String(cString: LUA_VERSION_MAJOR) == "5")
        #expect(String(cString: LUA_VERSION_MINOR) == "4")
    }

    @Test func libcurlWithHTTP() {
        let info = curl_version_info(CURLVERSION_ELEVENTH)!.pointee
        var protocols: [String] = []
        var cursor = info.protocols!
        while let name = cursor.pointee {
            protocols.append(String(cString: name))
            cursor += 1
        }
        #expect(protocols.contains("http"))
        #expect(info.version_num >= 0x074400)
    }

    @Test func openSSLHMAC() {
        var output = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        let key = Array("key".utf8), data = Array("The quick brown fox jumps over the lazy dog".utf8)
        _ = HMAC(EVP_sha256(), key, Int32(key.count), data, data.count, &output, &length)
        let hex = output.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
        #expect(hex == "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8")
    }

    @Test func libmicrohttpd() {
        #expect(String(cString: MHD_get_version()).hasPrefix("0.9"))
    }

    @Test func sqliteWithWAL() {
        #expect(sqlite3_libversion_number() >= 3_035_000)
    }
}
