import CCAIWire
import Foundation

/// The sandbox's state, written through to SQLite before any change is acknowledged.
/// An actor: one connection, one writer.
actor SandboxStore {
    /// The connection; extensions (smart actions, media, forms) keep their own tables in it.
    let database: SQLiteDatabase
    /// The company whose tokens this store issues and accepts: a token issued for another
    /// company's key (an earlier configuration on the same data) is unknown.
    let companyKey: String
    /// The valid tokens' digests, for checks that cannot wait for the actor.
    nonisolated let tokens = TokenRegistry()

    /// Chats created since the store opened: a chore that found no chat in progress need
    /// not look again until this changes (``Sandbox/endIdleChats()``).
    nonisolated let chatsCreated = LockedState(0)
    /// Woken on every booking of a scheduled call (the chore that places them waits long
    /// while there is none).
    nonisolated let bookings = ChoreWake()

    /// The folder of its files; nil in memory.
    nonisolated let directory: String?

    /// A store in `directory` (created if needed, mode 0700, files 0600), or in memory for nil.
    /// `onStatement` is told how long each SQL statement took (``SQLiteDatabase/onStatement``).
    init(directory: String?, companyKey: String, now: Date = Date(), onStatement: (@Sendable (Double) -> Void)? = nil) throws {
        self.directory = directory
        self.companyKey = companyKey
        database = try Self.open(directory)
        database.onStatement = onStatement
        try database.execute(StoreSchema.coreTables)
        try Self.bind(database, toCompany: companyKey, folder: directory)
        try database.run("DELETE FROM end_user_tokens WHERE expires_at <= ?", [.real(now.timeIntervalSince1970)])
        for row in try database.query("""
            SELECT t.token_digest, t.expires_at, t.custom_data, u.id, u.name, u.identifier, u.email, u.phone
            FROM end_user_tokens t JOIN end_users u ON u.id = t.end_user_id WHERE t.company_key = ?
            """, [.text(companyKey)]) {
            if let digest = row[0].textValue, case .real(let expiry) = row[1], let user = row[3].integerValue {
                let endUser = EndUser(id: Int(user), name: row[4].textValue, identifier: row[5].textValue,
                                      email: row[6].textValue, phone: row[7].textValue)
                tokens.insert(digest: digest, endUser: endUser, expiresAt: expiry, customDataText: row[2].textValue ?? "{}")
            }
        }
        for (table, columns) in StoreSchema.addedColumns { try Self.addMissingColumns(in: database, to: table, columns) }
        try Self.addRedactedTexts(in: database)
        try Self.createSmartActionTables(in: database)
        try Self.createMediaTables(in: database)
        try Self.createFormTables(in: database)
        try Self.createScreenShareTables(in: database)
        try Self.createCallTables(in: database)
        try Self.createPostSessionTables(in: database)
        try Self.createQuotaTables(in: database)
        try Self.createPushTables(in: database)
        try Self.createAppsTables(in: database)
    }

    /// The database in `directory` (made if needed, mode 0700, its files 0600), or in memory.
    private static func open(_ directory: String?) throws -> SQLiteDatabase {
        guard let directory else { return try SQLiteDatabase(path: nil) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
        let path = URL(fileURLWithPath: directory).appendingPathComponent("sandbox.sqlite").path
        let mask = umask(0o077)
        defer { umask(mask) }
        let database = try SQLiteDatabase(path: path)
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }
        return database
    }

    /// Records the company a store belongs to the first time it is opened, and refuses it
    /// to any other company key afterwards: its chats and end users are that company's. A
    /// store written before the company was recorded belongs to the key of its tokens.
    private static func bind(_ database: SQLiteDatabase, toCompany companyKey: String, folder: String?) throws {
        let recorded = try database.query("SELECT value FROM sandbox_settings WHERE name = 'company_key'").first?.first?.textValue
            ?? database.query("SELECT company_key FROM end_user_tokens WHERE company_key != ? LIMIT 1", [.text(companyKey)])
            .first?.first?.textValue
        if let recorded, recorded != companyKey {
            throw ConfigurationError(message: "the data in '\(folder ?? "memory")' belongs to the company with key '\(recorded)', "
                                     + "not to '\(companyKey)': use another data folder (--data) for this company")
        }
        try database.run("INSERT OR IGNORE INTO sandbox_settings (name, value) VALUES ('company_key', ?)", [.text(companyKey)])
    }

    /// Brings a table written by an earlier version up to date (`--data` folders outlive
    /// upgrades).
    static func addMissingColumns(in database: SQLiteDatabase, to table: String, _ columns: [(name: String, type: String)])
        throws
    {
        let existing = Set(try database.query("PRAGMA table_info(\(table))").compactMap { $0[1].textValue })
        for column in columns where !existing.contains(column.name) {
            try database.execute("ALTER TABLE \(table) ADD COLUMN \(column.name) \(column.type)")
        }
    }

    /// The end user with `identifier`, created if new; the JWT's profile fields update it.
    func endUser(identifier: String, name: String?, email: String?, phone: String?, now: Date) throws -> EndUser {
        let user = try database.transaction {
            try database.run("""
                INSERT INTO end_users (identifier, name, email, phone, created_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(identifier) DO UPDATE SET
                  name = coalesce(excluded.name, name), email = coalesce(excluded.email, email),
                  phone = coalesce(excluded.phone, phone)
                """, [.text(identifier), text(name), text(email), text(phone), .real(now.timeIntervalSince1970)])
            guard let user = try endUser(where: "identifier = ?", .text(identifier)) else {
                throw SQLiteError(code: 0, message: "the end user vanished")
            }
            return user
        }
        tokens.update(user)
        return user
    }

    func endUser(id: Int) throws -> EndUser? {
        try endUser(where: "id = ?", .integer(Int64(id)))
    }

    /// The end user with the company's identifier, if any.
    func endUser(identifier: String) throws -> EndUser? {
        try endUser(where: "identifier = ?", .text(identifier))
    }

    private func endUser(where condition: String, _ value: SQLiteValue) throws -> EndUser? {
        guard let row = try database.query("SELECT id, name, identifier, email, phone FROM end_users WHERE \(condition)",
                                           [value]).first
        else { return nil }
        return EndUser(id: row[0].integerValue.map(Int.init), name: row[1].textValue, identifier: row[2].textValue,
                       email: row[3].textValue, phone: row[4].textValue)
    }

    /// Changes the profile fields that are given (the identifier never changes).
    func updateEndUser(id: Int, name: String?, email: String?, phone: String?) throws -> EndUser? {
        try database.run("UPDATE end_users SET name = coalesce(?, name), email = coalesce(?, email), phone = coalesce(?, phone) WHERE id = ?",
                         [text(name), text(email), text(phone), .integer(Int64(id))])
        let user = try endUser(id: id)
        if let user { tokens.update(user) }
        return user
    }

    /// A new auth token for `endUserID`, carrying the signed custom data of its JWT. Only
    /// its digest is stored.
    func issueToken(endUserID: Int, customData: JSONValue, expiresAt: Date) throws -> String {
        // Read in the same turn of the actor as the token is recorded: the registry gets the
        // profile as stored now, whatever another sign-in of the same user wrote before.
        guard let endUser = try endUser(id: endUserID) else { throw SQLiteError(code: 0, message: "the end user vanished") }
        let token = Digest.randomHex(bytes: 32)
        let digest = Digest.sha256Hex(token)
        let customDataText = try customData.jsonText()
        try database.run("""
            INSERT INTO end_user_tokens (token_digest, company_key, end_user_id, expires_at, custom_data)
            VALUES (?, ?, ?, ?, ?)
            """, [.text(digest), .text(companyKey), .integer(Int64(endUserID)), .real(expiresAt.timeIntervalSince1970),
                  .text(customDataText)])
        tokens.insert(digest: digest, endUser: endUser, expiresAt: expiresAt.timeIntervalSince1970, customDataText: customDataText)
        return token
    }

    /// Revokes a token (signing out); true when it was valid.
    @discardableResult
    func revokeToken(_ token: String) throws -> Bool {
        let digest = Digest.sha256Hex(token)
        tokens.remove(digest: digest)
        return try database.run("DELETE FROM end_user_tokens WHERE token_digest = ? AND company_key = ?",
                                [.text(digest), .text(companyKey)]) > 0
    }

    /// The caller of a token of this company that exists and has not expired, as stored
    /// (``TokenRegistry/caller(token:now:)`` has most callers in memory).
    func caller(token: String, now: Date) throws -> Caller? {
        guard let row = try database.query("""
            SELECT end_user_id, expires_at, custom_data FROM end_user_tokens WHERE token_digest = ? AND company_key = ?
            """, [.text(Digest.sha256Hex(token)), .text(companyKey)]).first,
            let userID = row[0].integerValue, case .real(let expiresAt) = row[1],
            expiresAt > now.timeIntervalSince1970,
            let user = try endUser(id: Int(userID))
        else { return nil }
        let customData = (try? JSONValue(jsonText: row[2].textValue ?? "{}")) ?? [:]
        return Caller(token: token, endUser: user, signedCustomData: customData)
    }

    private func text(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
}

/// One stored event of an end user's real-time stream.
struct SandboxEvent: Sendable, Equatable {
    var id: Int64
    var name: String
    /// JSON text.
    var data: String
}

/// Who is calling: the end user behind a valid auth token.
struct Caller: Sendable {
    var token: String
    var endUser: EndUser
    /// The `custom_data` claim of the JWT the token came from (signed, so trusted).
    var signedCustomData: JSONValue
}
