import Foundation
import LuaRuntime
import Testing

@Suite struct CodableTests {
    struct Channel: Codable, Equatable {
        enum Kind: String, Codable { case chat, voiceCall }
        var kind: Kind
        var isEnabled: Bool
    }

    struct Menu: Codable, Equatable {
        var id: Int
        var menuID: Int64
        var name: String
        var postSessionOptInRequired: Bool
        var waitSeconds: Double?
        var channels: [Channel]
        var logo: Data
        var updatedAt: Date
        var helpURL: URL
        var children: [Menu]
    }

    let menu = Menu(
        id: 1, menuID: 99, name: "Billing", postSessionOptInRequired: true, waitSeconds: nil,
        channels: [.init(kind: .voiceCall, isEnabled: true)], logo: Data([0, 0xFF]),
        updatedAt: Date(timeIntervalSince1970: 1_700_000_000), helpURL: URL(string: "https://help.acme.test")!,
        children: [])

    @Test func encodesWithSnakeCaseKeys() throws {
        let value = try LuaEncoder().encode(menu)
        #expect(value["id"] == 1)
        #expect(value["menu_id"] == 99)
        #expect(value["post_session_opt_in_required"] == true)
        #expect(value["wait_seconds"] == nil)
        #expect(value["channels"]?[1]?["kind"] == "voiceCall")
        #expect(value["channels"]?[1]?["is_enabled"] == true)
        #expect(value["logo"] == .data(Data([0, 0xFF])))
        #expect(value["updated_at"] == .number(1_700_000_000))
        #expect(value["help_url"] == "https://help.acme.test")
    }

    @Test func decodesWhatItEncodes() throws {
        let value = try LuaEncoder().encode(menu)
        #expect(try LuaDecoder().decode(Menu.self, from: value) == menu)
    }

    @Test func decodesFromLuaTables() async throws {
        let state = try makeState()
        let value = try await state.withContext { lua in
            try lua.evaluate("""
                return { id = 2, menu_id = 7.0, name = "Sales", post_session_opt_in_required = false,
                         wait_seconds = 30, channels = {}, logo = "\\0\\1", updated_at = 0,
                         help_url = "https://x.test", children = {} }
                """).first!
        }
        let decoded = try LuaDecoder().decode(Menu.self, from: value)
        #expect(decoded.menuID == 7)
        #expect(decoded.waitSeconds == 30)
        #expect(decoded.logo == Data([0, 1]))
    }

    @Test func decodingErrorsNameTheField() {
        #expect(throws: DecodingError.self) {
            try LuaDecoder().decode(Channel.self, from: ["kind": "chat", "is_enabled": "yes"])
        }
        #expect(throws: DecodingError.self) {
            try LuaDecoder().decode(Channel.self, from: ["kind": "chat"])
        }
        #expect(throws: DecodingError.self) {
            try LuaDecoder().decode(Menu.self, from: ["id": 1.5])
        }
    }

    @Test(arguments: [
        ("postSessionOptInRequired", "post_session_opt_in_required"), ("menuID", "menu_id"),
        ("isMuted", "is_muted"), ("URLString", "url_string"), ("id", "id"), ("afterHourDeflection", "after_hour_deflection"),
        ("value2Text", "value2_text"), ("already_snake_case", "already_snake_case"),
        ("HTTPRequest2Body", "http_request2_body"), ("ÀlaCarte", "àla_carte"),
    ])
    func snakeCase(_ swift: String, _ lua: String) {
        #expect(LuaKeyStrategy.snakeCased(swift) == lua)
    }

    @Test func fieldsATypeNeverReadAreReportedWithWhereTheyAre() throws {
        struct Channel: Decodable { var redaction: Bool? }
        struct Menu: Decodable { var id: Int; var channels: [String: Channel]?; var children: [Menu]? }
        struct Root: Decodable { var menus: [Menu]; var tags: [String: String]? }
        let child: LuaValue = ["id": 2, "hidenn": true]
        let menu: LuaValue = ["id": 1, "chanels": [:], "channels": ["chat": ["redacton": true]], "children": [child]]
        let root: LuaValue = ["menus": [menu], "tags": ["any": "thing"]]
        let (decoded, unknown) = try LuaDecoder().decodeReportingUnknownKeys(Root.self, from: root)
        #expect(decoded.menus[0].children?[0].id == 2)
        #expect(unknown.map(\.field) == ["menus[1].chanels", "menus[1].channels.chat.redacton", "menus[1].children[1].hidenn"],
                "a dictionary's own keys are all read; \(unknown.map(\.field))")
        #expect(unknown.first?.known.contains("channels") == true)
        #expect(try LuaDecoder().decodeReportingUnknownKeys(Channel.self, from: ["redaction": true]).1.isEmpty)
    }

    @Test func everyProblemIsCollectedInOnePass() {
        struct Agent: Decodable { var name: String; var maxChats: Int?; var menus: [Int] }
        struct Root: Decodable { var agents: [Agent]?; var timeout: Double?; var surveys: [String: Agent]?; var name: String }
        let agents: LuaValue = [["name": "Ava", "max_chats": "two", "menus": [1]], ["name": "Bo", "menus": "all", "scirpt": "x"],
                                ["name": "Cy", "menus": [1], "max_chat": 2]]
        let root: LuaValue = ["agents": agents, "timeout": "soon", "surveys": ["a": ["name": 1, "menus": [1]], "b": ["menus": [1]]],
                              "name": "acme", "extra": true]
        let report = LuaDecoder().decodeCollectingProblems(Root.self, from: root)
        #expect(report.value == nil, "a required part is wrong")
        let paths = report.problems.map { error -> String in
            switch error {
            case .keyNotFound(let key, let context): return (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                return context.codingPath.map(\.stringValue).joined(separator: ".")
            @unknown default: return "?"
            }
        }
        #expect(Set(paths) == ["agents.1.maxChats", "agents.2.menus", "timeout", "surveys.a.name", "surveys.b.name"],
                "each element and each value of a dictionary is checked: \(paths)")
        #expect(paths.count == 5, "each problem once: \(paths)")
        // Bo's wrong `menus` has a stand-in, so Bo's other fields are read and judged too.
        #expect(report.unknownKeys.map(\.field) == ["extra", "agents[2].scirpt", "agents[3].max_chat"])

        let optionalOnly = LuaDecoder().decodeCollectingProblems(Root.self, from: ["name": "acme", "timeout": "soon"])
        #expect(optionalOnly.value?.name == "acme" && optionalOnly.value?.timeout == nil && optionalOnly.problems.count == 1,
                "a wrong optional field is read as absent")
        let noName = LuaDecoder().decodeCollectingProblems(Root.self, from: ["agents": agents, "extra": true])
        #expect(noName.problems.count == 3 && noName.unknownKeys.count == 3,
                "a missing required field hides nothing after it: \(noName.problems) \(noName.unknownKeys)")
    }

    @Test func aFloodOfProblemsIsCountedNotListed() {
        struct Root: Decodable { var ids: [Int] }
        let report = LuaDecoder().decodeCollectingProblems(Root.self, from: ["ids": .table(LuaTable(sequence: (0..<5_000).map { _ in "x" }))])
        #expect(report.problems.count == LuaDecoder.problemLimit && report.unreportedProblems == 5_000 - LuaDecoder.problemLimit)
    }

    @Test func aTypeThatTriesAnotherShapeFirstIsNotAProblem() {
        struct Either: Decodable {
            var count: Int
            init(from decoder: Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let list = try? container.decode([Int].self) {
                    count = list.count
                } else {
                    count = try container.decode([String: Int].self).count
                }
            }
        }
        struct Root: Decodable { var either: Either; var rest: Int? }
        let report = LuaDecoder().decodeCollectingProblems(Root.self, from: ["either": ["a": 1, "b": 2], "rest": 3])
        #expect(report.problems.isEmpty && report.unknownKeys.isEmpty)
        #expect(report.value?.either.count == 2 && report.value?.rest == 3)
    }
}

/// Models that are Lua classes: their tables get the class's methods when pushed.
@Suite struct LuaClassTests {
    struct Ticket: Codable, LuaClass {
        static let luaClassName = "test.Ticket"
        var id: Int
        var open: Bool
    }

    struct Desk: Codable {
        var tickets: [Ticket]
    }

    @Test func encodedTablesNameTheirClassAtAnyDepthAndCompareByTheirEntries() throws {
        let ticket = try LuaEncoder().encode(Ticket(id: 1, open: true))
        #expect(ticket.tableValue?.className == "test.Ticket")
        #expect(ticket == ["id": 1, "open": true], "the class is presentation, not data")
        let desk = try LuaEncoder().encode(Desk(tickets: [Ticket(id: 2, open: false)]))
        #expect(desk.tableValue?.className == nil && desk["tickets"]?[1]?.tableValue?.className == "test.Ticket")
    }

    @Test func aStateThatDefinesTheClassGivesItsTablesTheMethods() async throws {
        let state = try makeState()
        let results = try await state.withContext { lua in
            var methods = LuaModule(name: "test.Ticket")
            methods.function("is_open", LuaSignature("Whether the ticket is open.", returns: ["boolean"])) { call in
                call.returning(.boolean(try LuaDecoder().decode(Ticket.self, from: .table(try call.table(1, "self"))).open))
            }
            lua.defineClass(Ticket.luaClassName, methods: methods)
            lua.setGlobal("ticket", try LuaEncoder().encode(Ticket(id: 3, open: true)))
            lua.setGlobal("desk", try LuaEncoder().encode(Desk(tickets: [Ticket(id: 4, open: false)])))
            return try lua.evaluate("""
                return ticket:is_open(), desk.tickets[1]:is_open(), tostring(ticket):match('^test%.Ticket'), ticket.id,
                       getmetatable(ticket), (pcall(setmetatable, ticket, nil))
                """)
        }
        #expect(results == [true, false, "test.Ticket", 3, "test.Ticket", false], "the metatable is protected")
    }

    @Test func aClassTheStateNeverDefinedLeavesTablesPlain() async throws {
        let state = try makeState()
        let results = try await state.withContext { lua in
            lua.setGlobal("ticket", try LuaEncoder().encode(Ticket(id: 5, open: true)))
            return try lua.evaluate("return getmetatable(ticket) == nil, ticket.id")
        }
        #expect(results == [true, 5])
    }
}
