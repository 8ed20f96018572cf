import CCAISandbox
import CCAIScripting
import CCAIWire
import Foundation
import Testing

/// The wire API is said once: the endpoint table. The sandbox routes exactly its
/// operations, and docs/openapi.yaml documents exactly those.
@Suite struct WireContractTests {
    /// `"METHOD /path"` for every operation of docs/openapi.yaml.
    private func documentedOperations() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        var operations: [String] = [], path: String?, inPaths = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" { inPaths = true; continue }
            if inPaths, !line.hasPrefix(" "), !line.isEmpty { break }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let method = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()
                if ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(method) { operations.append("\(method) \(path)") }
            }
        }
        return operations
    }

    @Test func theRouterTheTableAndTheDocumentAgree() throws {
        let table = Endpoints.all.map(\.operation)
        #expect(Set(table).count == table.count, "no endpoint twice")
        let routed = try Sandbox().router.operations
        let unlisted = Set(routed).subtracting(table), unrouted = Set(table).subtracting(routed)
        #expect(Set(routed) == Set(table), "routed, not in the table: \(unlisted); in the table, not routed: \(unrouted)")
        #expect(routed.count == table.count, "every endpoint has one handler")
        let documented = try documentedOperations()
        let extra = Set(documented).subtracting(table), missing = Set(table).subtracting(documented)
        #expect(Set(documented) == Set(table), "documented, not in the table: \(extra); in the table, not documented: \(missing)")
    }

    /// The document is valid YAML whose operations are the table's (read by a YAML parser,
    /// Debian's python3-yaml from scripts/bootstrap, not by lines).
    @Test func theDocumentParsesAsYAMLWithTheTablesOperations() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let result = try await ChildProcess.run("/usr/bin/python3", ["-c", """
            import sys, yaml
            document = yaml.safe_load(open(sys.argv[1]))
            for path, item in document["paths"].items():
                for method in item:
                    if method in ("get", "post", "put", "patch", "delete"):
                        print(method.upper(), path)
            """, root.appendingPathComponent("docs/openapi.yaml").path])
        let operations = String(decoding: result.output, as: UTF8.self)
        #expect(result.status == 0, "docs/openapi.yaml does not parse: \(String(decoding: result.errors, as: UTF8.self))")
        #expect(Set(operations.split(separator: "\n").map(String.init)) == Set(Endpoints.all.map(\.operation)))
    }

    @Test func endpointsFillTheirPaths() {
        #expect(Endpoints.smartActionStatus.path(["id": 4, "action": 9]) == "/chats/4/smart_actions/9/status")
        #expect(Endpoints.smartActionStatus.parameterNames == ["id", "action"])
        #expect(Endpoints.customForm.path(["id": "a/b c"]) == "/custom_forms/a%2Fb%20c", "a parameter stays one segment")
        #expect(Endpoints.authenticate.access == .anyone && Endpoints.signOut.access == .endUser)
        #expect(Endpoints.uploadMedia.maximumBodyBytes == 32 << 20 && Endpoints.sendMessage.maximumBodyBytes == 1 << 20)
    }
}
