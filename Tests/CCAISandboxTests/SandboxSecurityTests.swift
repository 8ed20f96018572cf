@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing
import Timekeeping

/// What a hostile client must not achieve against the sandbox (docs/security.md), and what
/// held up in the review, kept as regression tests.
@Suite struct SandboxSecurityTests {
    private func chat(_ server: HTTPServer, _ token: String) async throws -> ChatResponse {
        try SandboxHTTP.decode(try await SandboxHTTP.call(server, "POST", "/chats", token, #"{"menu_id": 1}"#), as: ChatResponse.self)
    }

    private static let help = "menus = { { id = 1, name = \"Help\", channels = { chat = {} } } }"

    @Test func requestsAreRefusedOnTheirHeadersBeforeTheBodyIsRead() async throws {
        let (_, server) = try SandboxHTTP.serveOverTheWire(configuration: try await LuaConfigurations.configuration(Self.help))
        let big = Data(repeating: 0x61, count: 30 << 20)
        let anonymous = try await Curl.request("POST", "\(server.baseURL)/chats/1/media?kind=video", body: big,
                                               headers: ["Content-Type": "video/mp4"])
        #expect(anonymous.status == 401, "no token, no body read: \(anonymous.body)")
        let forged = try await Curl.request("POST", "\(server.baseURL)/chats/1/media?kind=video", body: big,
                                            headers: ["Content-Type": "video/mp4", "Authorization": "Bearer \(String(repeating: "0", count: 64))"])
        #expect(forged.status == 401 && forged.body.contains("unknown, revoked or expired"))
        let ana = try await SandboxHTTP.token(server, "headers-ana")
        let tooLarge = try await SandboxHTTP.call(server, "POST", "/chats", ana, String(repeating: " ", count: (1 << 20) + 1))
        #expect(tooLarge.status == 413 && tooLarge.body.contains("takes at most 1048576"), "\(tooLarge.body)")
        let longPath = try await SandboxHTTP.call(server, "GET", "/" + String(repeating: "x", count: 2_000), ana)
        #expect(longPath.status == 404 && (try? SandboxHTTP.decode(longPath, as: ErrorResponse.self)) != nil,
                "a refusal with a long message is still JSON")
        let wrongMethod = try await SandboxHTTP.call(server, "DELETE", "/company", ana)
        #expect(wrongMethod.status == 405 && wrongMethod.headers["allow"] == "GET", "\(wrongMethod.headers)")
        let literal = try await SandboxHTTP.call(server, "OPTIONS", "/custom_forms/submissions", ana)
        #expect(literal.status == 405 && literal.headers["allow"] == "POST",
                "a literal path allows its own methods, not those of /custom_forms/{id}: \(literal.headers)")
        #expect(try await SandboxHTTP.call(server, "GET", "/company", ana).status == 200)
        await server.stop()
    }

    @Test func signingInTakesAJWTNotAnUpload() async throws {
        let (_, server) = try SandboxHTTP.serveOverTheWire(configuration: try await LuaConfigurations.configuration(Self.help))
        let padded = #"{"company_key":"dev-key","jwt":"\#(String(repeating: "a", count: 40_000))"}"#
        let refused = try await Curl.request("POST", "\(server.baseURL)/auth/end_user", body: Data(padded.utf8))
        #expect(refused.status == 413 && refused.body.contains("takes at most \(Endpoints.authenticate.maximumBodyBytes)"),
                "\(refused.status): \(refused.body)")
        let ana = try await SandboxHTTP.token(server, "small-ana")
        #expect(try await SandboxHTTP.call(server, "GET", "/company", ana).status == 200, "a real sign-in fits")
        await server.stop()
    }

    @Test func tokensAreBoundToTheCompanyRevocableAndStoredAsDigests() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try Sandbox(dataDirectory: folder, clock: ManualClock(QueueMenuTests.mondayMorning))
        let server = try first.serve()
        let ana = try await SandboxHTTP.token(server, "token-ana")
        let bob = try await SandboxHTTP.token(server, "token-bob")
        #expect(try await SandboxHTTP.call(server, "DELETE", "/auth/end_user", ana).status == 204)
        #expect(try await SandboxHTTP.call(server, "GET", "/end_user", ana).status == 401, "a revoked token is refused")
        #expect(try await SandboxHTTP.call(server, "GET", "/end_user", bob).status == 200, "other tokens stay valid")
        await server.stop()

        let database = try Data(contentsOf: URL(fileURLWithPath: folder + "/sandbox.sqlite"))
            + ((try? Data(contentsOf: URL(fileURLWithPath: folder + "/sandbox.sqlite-wal"))) ?? Data())
        #expect(database.range(of: Data(bob.utf8)) == nil, "tokens are stored as digests only")
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
        let fileMode = try FileManager.default.attributesOfItem(atPath: folder + "/sandbox.sqlite")[.posixPermissions] as? Int
        #expect(folderMode == 0o700 && fileMode == 0o600)

        let same = try Sandbox(dataDirectory: folder, clock: ManualClock(QueueMenuTests.mondayMorning))
        let restarted = try same.serve()
        #expect(try await SandboxHTTP.call(restarted, "GET", "/end_user", bob).status == 200, "a restart keeps tokens")
        await restarted.stop()
    }

    /// A data folder belongs to the company that first used it: opening it with another
    /// company key would serve the first company's chats, so it is refused, naming both.
    @Test func aDataFolderServesOnlyItsOwnCompany() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("company-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try Sandbox(dataDirectory: folder, clock: ManualClock(QueueMenuTests.mondayMorning))
        let server = try first.serve()
        let ana = try await SandboxHTTP.token(server, "company-ana")
        _ = try await chat(server, ana)
        await server.stop()

        var otherCompany = SandboxConfiguration.builtIn
        otherCompany.company.key = "other-key"
        #expect {
            try Sandbox(configuration: otherCompany, dataDirectory: folder, clock: ManualClock(QueueMenuTests.mondayMorning))
        } throws: { error in
            let message = (error as? ConfigurationError)?.message ?? ""
            return message.contains(folder) && message.contains("'dev-key'") && message.contains("'other-key'")
        }
        let again = try Sandbox(dataDirectory: folder, clock: ManualClock(QueueMenuTests.mondayMorning))
        let restarted = try again.serve()
        #expect(try await SandboxHTTP.call(restarted, "GET", "/chats/current", ana).status == 200,
                "the folder still serves its own company")
        await restarted.stop()
    }

    @Test func textWithNULIsKeptWholeAndIdentifiersRefuseIt() async throws {
        let (_, server) = try SandboxHTTP.serveOverTheWire(configuration: try await LuaConfigurations.configuration(Self.help))
        let jwt = try JWTSigner(algorithm: .hs384, secret: "dev-secret")
            .sign(["identifier": "victim\u{0}x"], issuedAt: QueueMenuTests.mondayMorning, lifetime: 600)
        let signIn = try await Curl.request("POST", "\(server.baseURL)/auth/end_user",
                                            body: Data(#"{"company_key":"dev-key","jwt":"\#(jwt)"}"#.utf8))
        #expect(signIn.status == 400 && signIn.body.contains("control or format characters"), "\(signIn.body)")
        let ana = try await SandboxHTTP.token(server, "nul-ana")
        let chat = try await chat(server, ana)
        let sent = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana,
                                              #"{"client_message_id": "m1", "text": "hello\u0000tail"}"#)
        #expect(sent.status == 201, "\(sent.body)")
        #expect(try SandboxHTTP.decode(sent, as: ChatMessage.self).text == "hello\u{0}tail")
        let listed = try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)/messages", ana)
        #expect(listed.body.contains(#"hello\u0000tail"#), "stored whole: \(listed.body)")
        let nulID = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana,
                                               #"{"client_message_id": "m\u0000", "text": "x"}"#)
        #expect(nulID.status == 400)
        let long = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana,
                                              #"{"client_message_id": "long", "text": "\#(String(repeating: "é", count: 10_001))"}"#)
        #expect(long.status == 413 && long.body.contains("at most 10000 characters"), "\(long.body)")
        await server.stop()
    }

    @Test func numbersFromClientsNeverCrashTheServer() async throws {
        let (_, server) = try SandboxHTTP.serveOverTheWire(configuration: try await LuaConfigurations.configuration(Self.help))
        let ana = try await SandboxHTTP.token(server, "numbers-ana")
        for page in ["9223372036854775807", "9223372036854775808", "-1", "0", "1e300", "nan", "1000001"] {
            let reply = try await SandboxHTTP.call(server, "GET", "/chats/previous?page=\(page)", ana)
            #expect(reply.status == 400, "page \(page): \(reply.body)")
        }
        for id in ["9223372036854775807", "-9223372036854775808", "99999999999999999999", "1e3"] {
            let reply = try await SandboxHTTP.call(server, "GET", "/chats/\(id)", ana)
            #expect([400, 404].contains(reply.status), "chat \(id): \(reply.body)")
        }
        let events = try await Curl.request("GET", "\(server.baseURL)/events", headers: ["Authorization": "Bearer \(ana)",
                                                                                          "Last-Event-ID": "99999999999999999999"])
        #expect(events.status == 400)
        #expect(try await SandboxHTTP.call(server, "GET", "/company", ana).status == 200, "still serving")
        await server.stop()
    }

    @Test func uploadsAreImagesAndDownloadsCannotInjectHeaders() async throws {
        let (_, server) = try SandboxHTTP.serveOverTheWire(configuration: try await LuaConfigurations.configuration(Self.help))
        let ana = try await SandboxHTTP.token(server, "download-ana")
        let chat = try await chat(server, ana)
        func upload(_ mimeType: String, name: String) async throws -> Curl.Reply {
            let query = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return try await Curl.request("POST", "\(server.baseURL)/chats/\(chat.id)/media?kind=image&name=\(query)",
                                          body: Data("<svg onload=alert(1)>".utf8),
                                          headers: ["Authorization": "Bearer \(ana)", "Content-Type": mimeType])
        }
        #expect(try await upload("image/svg+xml", name: "a.svg").status == 400, "SVG is not a photo")
        #expect(try await upload("image/", name: "a").status == 400)
        #expect(try await upload("image/png", name: "a\r\nSet-Cookie: x=1").status == 400, "a name is a name")
        let reversed = try await upload("image/png", name: "invoice\u{202E}gnp.exe")
        #expect(reversed.status == 400 && reversed.body.contains("format characters"), "a bidi override is refused: \(reversed.body)")
        let stored = try await upload("image/png", name: "réçu.png")
        #expect(stored.status == 201, "\(stored.body)")
        let media = try #require(try SandboxHTTP.decode(stored, as: ChatMessage.self).media)
        let download = try await SandboxHTTP.call(server, "GET", "/media/\(media.id)", ana)
        #expect(download.headers["x-content-type-options"] == "nosniff")
        #expect(ContentDisposition.fileName(of: download.headers["content-disposition"]) == "réçu.png",
                "\(download.headers["content-disposition"] ?? "")")
        await server.stop()
    }

    /// A transcript shows a bidi override where it is, escaped, so a message cannot read in
    /// another order than it was written.
    @Test func formatCharactersAreShownEscapedInTranscripts() {
        #expect(PDFDocument.printable("pay to \u{202E}0001\u{202C} now\n") == #"pay to \u{202e}0001\u{202c} now"# + "\n")
        #expect(PDFDocument.printable("zero\u{200B}width\u{2028}") == #"zero\u{200b}width\u{2028}"#)
    }

    @Test func quotasAndTheRateAnswer429() async throws {
        let (_, server) = try SandboxHTTP.serveOverTheWire(configuration: try await LuaConfigurations.configuration(Self.help + """
            , limits = { chats_per_hour = 2, uploads_per_hour = 1, upload_bytes_per_hour = 100 }
            """))
        let ana = try await SandboxHTTP.token(server, "quota-ana")
        for _ in 1...2 {
            let chat = try await chat(server, ana)
            _ = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/end", ana)
        }
        let third = try await SandboxHTTP.call(server, "POST", "/chats", ana, #"{"menu_id": 1}"#)
        #expect(third.status == 429 && third.body.contains("limits.chats_per_hour") && third.headers["retry-after"] != nil,
                "\(third.body)")
        let bob = try await SandboxHTTP.token(server, "quota-bob")
        let bobChat = try await chat(server, bob)
        func upload(_ bytes: Int) async throws -> Curl.Reply {
            try await Curl.request("POST", "\(server.baseURL)/chats/\(bobChat.id)/media?kind=image", body: Data(count: bytes),
                                   headers: ["Authorization": "Bearer \(bob)", "Content-Type": "image/png"])
        }
        #expect(try await upload(101).body.contains("limits.upload_bytes_per_hour"))
        #expect(try await upload(10).status == 201)
        let second = try await upload(10)
        #expect(second.status == 429 && second.body.contains("limits.uploads_per_hour"), "\(second.body)")

        let (_, limited) = try SandboxHTTP.serveOverTheWire(configuration: try await LuaConfigurations.configuration(Self.help + """
            , limits = { requests_per_second = 0.001, burst = 3 }
            """))
        let cara = try await SandboxHTTP.token(limited, "rate-cara")
        for _ in 1...3 { #expect(try await SandboxHTTP.call(limited, "GET", "/company", cara).status == 200) }
        let over = try await SandboxHTTP.call(limited, "GET", "/company", cara)
        #expect(over.status == 429 && over.body.contains("limits.requests_per_second") && Int(over.headers["retry-after"] ?? "") ?? 0 >= 1,
                "\(over.body) \(over.headers)")
        let dan = try await SandboxHTTP.token(limited, "rate-dan")
        #expect(try await SandboxHTTP.call(limited, "GET", "/company", dan).status == 200, "the rate is per end user")
        await server.stop()
        await limited.stop()
    }

    /// Sign-in is limited by company key and by identifier once the JWT's signature is
    /// checked: a 429 with Retry-After, like the other quotas.
    @Test func signInIsRateLimitedByCompanyAndByIdentifier() async throws {
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        let sandbox = try Sandbox(configuration: try await LuaConfigurations.configuration(Self.help + """
            , limits = { sign_ins_per_minute = 2, company_sign_ins_per_second = 1, company_sign_in_burst = 6 }
            """), clock: clock)
        let server = try sandbox.serve()
        func signIn(_ identifier: String, secret: String = "dev-secret") async throws -> Curl.Reply {
            let jwt = try JWTSigner(algorithm: .hs384, secret: secret)
                .sign(["identifier": .string(identifier)], issuedAt: clock.now(), lifetime: 600)
            return try await Curl.request("POST", "\(server.baseURL)/auth/end_user",
                                          body: Data(#"{"company_key":"dev-key","jwt":"\#(jwt)"}"#.utf8))
        }
        #expect(try await signIn("sign-in-ana").status == 200)
        #expect(try await signIn("sign-in-ana").status == 200)
        let third = try await signIn("sign-in-ana")
        #expect(third.status == 429 && third.body.contains("limits.sign_ins_per_minute") && third.headers["retry-after"] == "30",
                "\(third.body) \(third.headers)")
        #expect(try await signIn("sign-in-bob").status == 200, "the limit is per identifier")
        #expect(try await signIn("sign-in-cara", secret: "forged").status == 401, "a forged JWT is refused, not counted")
        #expect(try await signIn("sign-in-dan").status == 200)
        #expect(try await signIn("sign-in-eve", secret: "forged").status == 401)
        #expect(try await signIn("sign-in-eve").status == 200, "the sixth verified sign-in is the burst's last")
        let company = try await signIn("sign-in-fay")
        #expect(company.status == 429 && company.body.contains("limits.company_sign_ins_per_second")
                && company.headers["retry-after"] == "1", "\(company.body) \(company.headers)")
        clock.advance(by: 60)
        #expect(try await signIn("sign-in-ana").status == 200, "the buckets fill again")
        await server.stop()
    }

    /// A flood of bad JWTs from one address (the review sent 37,000 a second) spends
    /// neither the company's sign-in budget nor other addresses' chances: the signature is
    /// checked first, a failure is charged to the sending address, and past
    /// `limits.sign_in_failure_burst` that address gets a 429 before its JWT is looked at.
    @Test func badJWTsAreChargedToTheirAddressNotToTheCompany() async throws {
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        let sandbox = try Sandbox(configuration: try await LuaConfigurations.configuration(Self.help + """
            , limits = { company_sign_ins_per_second = 1, company_sign_in_burst = 5 }
            """), clock: clock)
        let router = sandbox.router
        func signIn(_ jwt: String, from address: String) async -> HTTPResponse {
            var request = HTTPRequest(method: "POST", path: "/auth/end_user",
                                      body: Data(#"{"company_key":"dev-key","jwt":"\#(jwt)"}"#.utf8))
            request.clientAddress = address
            return await router.respond(to: request)
        }
        func signed(_ identifier: String, secret: String = "dev-secret") throws -> String {
            try JWTSigner(algorithm: .hs384, secret: secret).sign(["identifier": .string(identifier)], issuedAt: clock.now(), lifetime: 600)
        }
        var refused: [Int: Int] = [:]
        for attempt in 0..<300 {
            let jwt = attempt.isMultiple(of: 2) ? "not.a-jwt.\(attempt)" : try signed("flood-\(attempt)", secret: "forged")
            refused[await signIn(jwt, from: "198.51.100.7").status, default: 0] += 1
        }
        #expect(refused == [401: 100, 429: 200], "the address's failures, then 429s: \(refused)")
        let limited = await signIn(try signed("flood-ana"), from: "198.51.100.7")
        let message = String(decoding: limited.body, as: UTF8.self)
        #expect(limited.status == 429 && message.contains("limits.sign_in_failures_per_second")
                && limited.headers["Retry-After"] == "1", "the flooding address waits, even with a good JWT: \(message)")
        for user in 0..<5 {
            let reply = await signIn(try signed("real-\(user)"), from: "203.0.113.9")
            #expect(reply.status == 200, "the company's burst is intact: \(String(decoding: reply.body, as: UTF8.self))")
        }
        let sixth = await signIn(try signed("real-5"), from: "203.0.113.10")
        #expect(sixth.status == 429 && String(decoding: sixth.body, as: UTF8.self).contains("limits.company_sign_ins_per_second"),
                "verified sign-ins still spend the company's budget")
        clock.advance(by: 1)
        #expect(await signIn(try signed("flood-bob"), from: "198.51.100.7").status == 200, "the address's bucket fills again")
    }

    @Test(.timeLimit(.minutes(1))) func oldEventsAndFilesArePruned() async throws {
        let clock = ManualClock(QueueMenuTests.mondayMorning)
        let sandbox = try Sandbox(configuration: try await LuaConfigurations.configuration(Self.help + """
            , limits = { event_retention_seconds = 3600, media_retention_seconds = 7200 }
            """), clock: clock)
        let server = try sandbox.serve()
        let ana = try await SandboxHTTP.token(server, "prune-ana", at: clock.now())
        let chat = try await chat(server, ana)
        let uploaded = try await Curl.request("POST", "\(server.baseURL)/chats/\(chat.id)/media?kind=image", body: Data(count: 10),
                                              headers: ["Authorization": "Bearer \(ana)", "Content-Type": "image/png"])
        let media = try #require(try SandboxHTTP.decode(uploaded, as: ChatMessage.self).media)
        let event = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/chat_events", ana, #"{"name": "clicked"}"#)
        #expect(event.status == 201, "\(event.body)")
        _ = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/end", ana)
        let endUserID = try #require(try SandboxHTTP.decode(try await SandboxHTTP.call(server, "GET", "/end_user", ana),
                                                            as: EndUser.self).id)
        #expect(try await !sandbox.store.events(endUserID: endUserID, after: 0).isEmpty)
        // The sandbox's own chore prunes every 60 seconds of its clock (each step waits for
        // it to be asleep): the first run past the hour is at 3,660 seconds.
        await clock.advance(by: 3_660, stepWhenAsleep: 1)
        #expect(try await sandbox.store.events(endUserID: endUserID, after: 0).isEmpty, "events go after an hour")
        #expect(try await sandbox.store.database.query("SELECT count(*) FROM chat_events").first?.first?.integerValue == 0,
                "chat events go with them")
        #expect(try await SandboxHTTP.call(server, "GET", "/media/\(media.id)", ana).status == 200, "files stay")
        await clock.advance(by: 3_600, stepWhenAsleep: 1)
        #expect(try await SandboxHTTP.call(server, "GET", "/media/\(media.id)", ana).status == 404, "files go after two")
        let left = try await sandbox.pruneOldData()
        #expect(left.events == 0 && left.media == 0, "nothing is left to prune")
        await server.stop()
    }

    /// What held up in the review, kept: SQL metacharacters are data, deep or broken JSON is
    /// a 400, oversized headers and URLs are refused by the HTTP layer, lowercase or `none`
    /// algorithms are refused.
    @Test func whatHeldUpStaysSo() async throws {
        let (_, server) = try SandboxHTTP.serveOverTheWire(configuration: try await LuaConfigurations.configuration(Self.help))
        let injection = "x'); DROP TABLE end_users; --"
        let ana = try await SandboxHTTP.token(server, injection)
        let me = try await SandboxHTTP.call(server, "GET", "/end_user", ana)
        #expect(me.status == 200 && me.body.contains("DROP TABLE"), "the identifier is stored as it is")
        let chat = try await chat(server, ana)
        let text = try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana,
                                              #"{"client_message_id": "' OR 1=1 --", "text": "'; DELETE FROM chats; --"}"#)
        #expect(text.status == 201)
        #expect(try await SandboxHTTP.call(server, "GET", "/chats/\(chat.id)", ana).status == 200, "the chat is still there")

        let nested = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(try await SandboxHTTP.call(server, "POST", "/chats/\(chat.id)/messages", ana, nested).status == 400)
        let invalidUTF8 = try await Curl.request("POST", "\(server.baseURL)/chats/\(chat.id)/messages",
                                                 body: Data([0x7B, 0x22, 0x74, 0x65, 0x78, 0x74, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D]),
                                                 headers: ["Authorization": "Bearer \(ana)"])
        #expect(invalidUTF8.status == 400)
        let bigHeader = try await Curl.request("GET", "\(server.baseURL)/company",
                                               headers: ["Authorization": "Bearer \(ana)", "X-Padding": String(repeating: "a", count: 64 << 10)])
        #expect([413, 431].contains(bigHeader.status), "\(bigHeader.status)")
        let bigURL = try await Curl.request("GET", "\(server.baseURL)/company?x=\(String(repeating: "a", count: 64 << 10))",
                                            headers: ["Authorization": "Bearer \(ana)"])
        #expect([414, 431].contains(bigURL.status), "\(bigURL.status)")
        let lowercase = try JWTSigner(algorithm: .hs256, secret: "dev-secret").sign(["identifier": "x"], issuedAt: QueueMenuTests.mondayMorning, lifetime: 600)
        let parts = lowercase.split(separator: ".")
        let header = Data(#"{"alg":"hs256","typ":"JWT"}"#.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let forged = header + "." + parts[1] + "." + (try JWTSigner.signature(of: header + "." + parts[1], algorithm: .hs256, secret: "dev-secret"))
        let refused = try await Curl.request("POST", "\(server.baseURL)/auth/end_user",
                                             body: Data(#"{"company_key":"dev-key","jwt":"\#(forged)"}"#.utf8))
        #expect(refused.status == 401 && refused.body.contains("unsupported signing algorithm 'hs256'"), "\(refused.body)")
        #expect(try await SandboxHTTP.call(server, "GET", "/company", ana).status == 200, "still serving")
        await server.stop()
    }
}
