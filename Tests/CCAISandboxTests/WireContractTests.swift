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

    /// A document of docs/ read by a YAML parser (Debian's python3-yaml, from
    /// scripts/bootstrap), not by lines, as JSON.
    static func parsedDocument(_ name: String) async throws -> JSONValue {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let result = try await ChildProcess.run("/usr/bin/python3", ["-c", """
            import json, sys, yaml
            print(json.dumps(yaml.safe_load(open(sys.argv[1])), default=str))
            """, root.appendingPathComponent("docs").appendingPathComponent(name).path])
        #expect(result.status == 0, "docs/\(name) does not parse: \(String(decoding: result.errors, as: UTF8.self))")
        return try JSONValue(jsonText: String(decoding: result.output, as: UTF8.self))
    }

    /// Where a document holds a key with no value: in YAML's flow mappings an unquoted
    /// comma ends a value (`{ description: A chat in progress, or ... }` makes a key `or
    /// ...` with none), which a lenient reader does not notice and a validator refuses.
    static func keysWithoutValues(_ value: JSONValue, at path: String = "") -> [String] {
        switch value {
        case .object(let fields):
            return fields.sorted { $0.key < $1.key }.flatMap { key, field in
                field == .null ? ["\(path)/\(key)"] : keysWithoutValues(field, at: "\(path)/\(key)")
            }
        case .array(let items):
            return items.enumerated().flatMap { keysWithoutValues($1, at: "\(path)/\($0)") }
        default:
            return []
        }
    }

    /// The document is valid YAML whose operations are the table's, each with the table's
    /// `operationId`, and no value of it is lost to YAML's flow syntax.
    @Test func theDocumentParsesAsYAMLWithTheTablesOperations() async throws {
        let document = try await Self.parsedDocument("openapi.yaml")
        #expect(Self.keysWithoutValues(document) == [], "keys without a value (an unquoted comma in a flow mapping?)")
        var operationIDs: [String: String] = [:]
        for (path, item) in document["paths"]?.objectValue ?? [:] {
            for (method, operation) in item.objectValue ?? [:] where ["get", "post", "put", "patch", "delete"].contains(method) {
                operationIDs["\(method.uppercased()) \(path)"] = operation["operationId"]?.stringValue ?? "(none)"
            }
        }
        let table = Dictionary(uniqueKeysWithValues: Endpoints.all.map { ($0.operation, $0.operationID) })
        #expect(operationIDs == table)
        #expect(Set(table.values).count == table.count, "every operationId is unique")
    }

    /// Files are described as generators need them: an upload as a form with a binary
    /// `file` part in the types the sandbox takes, a download as binary in every type a
    /// chat's file may have (CCAIWire's lists).
    @Test func filesAreDescribedAsBinaryWithTheirTypes() async throws {
        let document = try await Self.parsedDocument("openapi.yaml")
        let upload = document["paths"]?["/chats/{id}/media"]?["post"]?["requestBody"]?["content"]
        #expect(upload?.objectValue.map { Array($0.keys) } == ["multipart/form-data"])
        let form = upload?["multipart/form-data"]
        #expect(form?["schema"]?["properties"]?["file"]?["format"]?.stringValue == "binary")
        let partTypes = (form?["encoding"]?["file"]?["contentType"]?.stringValue ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(Set(partTypes) == ChatMediaType.endUserImageTypes.union(ChatMediaType.endUserVideoTypes))

        let download = document["paths"]?["/media/{id}"]?["get"]?["responses"]?["200"]?["content"]?.objectValue ?? [:]
        #expect(Set(download.keys) == Set(ChatMediaType.agentFileTypes.keys).union(ChatMediaType.endUserImageTypes))
        #expect(download.values.allSatisfy { $0["schema"]?["format"]?.stringValue == "binary" })
        let transcript = document["paths"]?["/chats/{id}/transcript"]?["get"]?["responses"]?["200"]?["content"]?.objectValue
        #expect(transcript.map { Array($0.keys) } == ["application/pdf"])
    }

    /// docs/asyncapi.yaml names every event of `PlatformEventName`, and no other, each with
    /// the payload the event carries: the OpenAPI component `payloadSchema` names.
    @Test func theEventDocumentNamesEveryEventWithItsPayload() async throws {
        let events = try await Self.parsedDocument("asyncapi.yaml")
        let openAPI = try await Self.parsedDocument("openapi.yaml")
        #expect(Self.keysWithoutValues(events) == [], "keys without a value (an unquoted comma in a flow mapping?)")
        #expect(events["asyncapi"]?.stringValue == "3.0.0")
        let names = Set(PlatformEventName.allCases.map(\.rawValue))
        let messages = events["components"]?["messages"]?.objectValue ?? [:]
        #expect(Set(messages.keys) == names)
        #expect(Set((events["channels"]?["events"]?["messages"]?.objectValue ?? [:]).keys) == names)
        #expect(events["channels"]?["events"]?["address"]?.stringValue == Endpoints.events.template)
        let components = openAPI["components"]?["schemas"]?.objectValue ?? [:]
        for event in PlatformEventName.allCases {
            let message = messages[event.rawValue]
            #expect(message?["name"]?.stringValue == event.rawValue)
            #expect(message?["payload"]?["schemaFormat"]?.stringValue == "application/vnd.oai.openapi;version=3.0.0")
            #expect(message?["payload"]?["schema"]?["$ref"]?.stringValue == "openapi.yaml#/components/schemas/\(event.payloadSchema)",
                    "\(event.rawValue)")
            #expect(components[event.payloadSchema] != nil, "\(event.payloadSchema) is a component of docs/openapi.yaml")
        }
    }

    /// Each event's data, as CCAIWire encodes it, is what its schema describes. The three
    /// payloads that REST operations also answer (a chat, its messages, a smart action) are
    /// the very components those answers use, which schemathesis checks against the sandbox.
    @Test func eachEventsDataIsWhatItsSchemaDescribes() async throws {
        let schemas = try await Self.parsedDocument("openapi.yaml")["components"]?["schemas"] ?? .null
        let ben = ChatMember(type: "agent", name: "Ben")
        let samples: [PlatformEventName: JSONValue] = [
            .typingEvent: try JSONValue(encoding: ChatTypingPayload(chatId: 7, typing: true, member: ben)),
            .memberEvent: try JSONValue(encoding: ChatMemberPayload(chatId: 7, type: .joined, member: ben)),
            .coldTransfer: try JSONValue(encoding: ColdTransfer(chatId: 7, fromMenuId: 1, toMenuId: 8, agent: ben)),
            .screenShareState: try JSONValue(encoding: ScreenShareStatePayload(sessionId: 3, chatId: 7, state: .authorizing)),
            .screenShareRequest: try JSONValue(encoding: ScreenShareRequestPayload(sessionId: 3, type: .remoteControl)),
        ]
        for (event, sample) in samples {
            #expect(Self.mismatches(sample, schemas[event.payloadSchema] ?? .null, schemas) == [], "\(event.rawValue)")
        }
        let paths = try await Self.parsedDocument("openapi.yaml")["paths"]
        func answer(_ path: String) -> JSONValue? { paths?[path]?["get"]?["responses"]?["200"]?["content"]?["application/json"]?["schema"] }
        #expect(answer("/chats/{id}")?["$ref"]?.stringValue == "#/components/schemas/\(PlatformEventName.chatReceived.payloadSchema)")
        #expect(schemas[PlatformEventName.messagesReceived.payloadSchema]?["items"] == answer("/chats/{id}/messages")?["items"])
        #expect(answer("/chats/{id}/smart_actions")?["items"]?["$ref"]?.stringValue
                == "#/components/schemas/\(PlatformEventName.smartActionRequested.payloadSchema)")
        #expect(Self.mismatches(try JSONValue(encoding: ScreenShareStatePayload(sessionId: 3, chatId: 7, state: .ended)),
                                schemas["ChatTypingPayload"] ?? .null, schemas) != [], "a payload of another event does not pass")
    }

    /// Where `value` departs from an OpenAPI `schema` (`$ref`s into `schemas`): a key it
    /// does not describe, a required key missing, another type, a value outside its enum.
    static func mismatches(_ value: JSONValue, _ schema: JSONValue, _ schemas: JSONValue, at path: String = "") -> [String] {
        if let reference = schema["$ref"]?.stringValue {
            let name = String(reference.split(separator: "/").last ?? "")
            guard let target = schemas[name] else { return ["\(path): no schema \(reference)"] }
            return mismatches(value, target, schemas, at: path)
        }
        if let allowed = schema["enum"], case .array(let values) = allowed, !values.contains(value) {
            return ["\(path): \(value) is not one of \(values)"]
        }
        switch (schema["type"]?.stringValue, value) {
        case ("object", .object(let fields)):
            let properties = schema["properties"]?.objectValue ?? [:]
            var required: [String] = []
            if case .array(let names)? = schema["required"] { required = names.compactMap { $0.stringValue } }
            return required.filter { fields[$0] == nil }.map { "\(path)/\($0): required, missing" }
                + fields.sorted { $0.key < $1.key }.flatMap { key, field in
                    properties[key].map { mismatches(field, $0, schemas, at: "\(path)/\(key)") } ?? ["\(path)/\(key): not in the schema"]
                }
        case ("array", .array(let items)):
            return items.enumerated().flatMap { mismatches($1, schema["items"] ?? .null, schemas, at: "\(path)/\($0)") }
        case ("string", .string), ("boolean", .bool), ("integer", .integer), ("number", .integer), ("number", .number):
            return []
        case (let type, _):
            return ["\(path): \(value) is not of type \(type ?? "(none)")"]
        }
    }

    /// What YAML loses in a flow mapping is found.
    @Test func aValueSplitByACommaIsFound() throws {
        let document = try JSONValue(jsonText: """
            {"paths": {"/chats": {"post": {"responses": {"409": {"description": "A chat in progress", "or the queue": null}}}}}}
            """)
        #expect(Self.keysWithoutValues(document) == ["/paths//chats/post/responses/409/or the queue"])
    }

    @Test func endpointsFillTheirPaths() {
        #expect(Endpoints.smartActionStatus.chat.path(["id": 4, "action": 9]) == "/chats/4/smart_actions/9/status")
        #expect(Endpoints.smartActionStatus.chat.parameterNames == ["id", "action"])
        #expect(Endpoints.smartActionStatus.call.operation == "PUT /calls/{id}/smart_actions/{action}/status"
                && Endpoints.rate.call.operationID == "rateCall" && Endpoints.rate[.chat].operationID == "rate")
        #expect(Endpoints.customForm.path(["id": "a/b c"]) == "/custom_forms/a%2Fb%20c", "a parameter stays one segment")
        #expect(Endpoints.authenticate.access == .anyone && Endpoints.signOut.access == .endUser)
        #expect(Endpoints.uploadMedia.maximumBodyBytes == 32 << 20 && Endpoints.sendMessage.maximumBodyBytes == 1 << 20)
    }
}
