import Foundation
import LuaRuntime
import Testing

@Suite struct SchemaTests {
    enum Status: String, Codable, CaseIterable { case open, closed = "closed_now" }
    struct Media: Codable { var id: Int; var size: Int? }
    struct Node: Codable { var id: Int; var children: [Node]?; var labels: [String: Double]? }
    struct Message: Codable {
        var id: Int
        var text: String?
        var done: Bool?
        var status: Status
        var media: Media?
        var tags: [String]
        var createdAt: Date
        var nodes: [Node]?
    }

    @Test func fieldsTheirTypesAndWhetherTheyAreOptionalComeFromTheType() throws {
        let schema = LuaSchema(classNames: [ObjectIdentifier(Node.self): "test.Node"])
        let shape = try schema.shape(of: Message.self)
        #expect(shape.luaType == #"{ id: integer, text: string?, done: boolean?, status: "open"|"closed_now", "#
            + "media: { id: integer, size: integer? }?, tags: string[], created_at: number, nodes: test.Node[]? }")
        #expect(try schema.shape(of: Node.self).luaType == "{ id: integer, children: test.Node[]?, labels: table<string, number>? }",
                "a named class may contain itself through a list")
        #expect(try schema.shape(of: [String: [Status]].self).luaType == #"table<string, ("open"|"closed_now")[]>"#)
    }

    @Test func optionalUnionsAreWrittenAsLuaLSReadsThem() {
        let field = LuaShape.Field(name: "status", shape: .literals(["a", "b"]), isOptional: true)
        #expect(field.luaType == #""a"|"b"|nil"#)
        #expect(LuaShape.Field(name: "n", shape: .integer, isOptional: true).luaType == "integer?")
    }

    @Test func aSampleHasEveryOptionalFieldSoItsEncodingShowsAllAScriptSees() throws {
        struct Profile: Codable {
            var name: String?
            var displayName: String { name ?? "Customer" }
            enum CodingKeys: String, CodingKey { case name, displayName = "display_name" }
            init(from decoder: Decoder) throws {
                name = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .name)
            }
            func encode(to encoder: Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encodeIfPresent(name, forKey: .name)
                try container.encode(displayName, forKey: .displayName)
            }
        }
        let schema = LuaSchema()
        #expect(try schema.shape(of: Profile.self).luaType == "{ name: string? }")
        let encoded = try LuaEncoder().encode(try schema.sample(of: Profile.self))
        #expect(Set(encoded.tableValue?.fields.keys.compactMap(\.stringValue) ?? []) == ["name", "display_name"],
                "the written-only field shows in the sample's encoding")
    }

    @Test func aTypeThatNeedsItselfIsRefusedNotRecursedForEver() {
        final class Loop: Decodable {
            let next: Loop
            init(from decoder: Decoder) throws {
                next = try decoder.container(keyedBy: LuaCodingKeyStub.self).decode(Loop.self, forKey: .next)
            }
        }
        #expect(throws: (any Error).self) { try LuaSchema().shape(of: Loop.self) }
    }

    enum LuaCodingKeyStub: String, CodingKey { case next }
}
