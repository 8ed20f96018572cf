/// The store's core tables, said once: the statements that make them, and the columns
/// added to them since, which an older data folder gets when it is opened. The other table
/// families (smart actions, media, forms, calls...) make their own, in their files.
enum StoreSchema {
    /// End users, their event feed, chats and their messages, chat events, tokens and the
    /// store's settings.
    static let coreTables = """
            CREATE TABLE IF NOT EXISTS end_users (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              identifier TEXT NOT NULL UNIQUE,
              name TEXT, email TEXT, phone TEXT,
              created_at REAL NOT NULL
            );
            CREATE TABLE IF NOT EXISTS events (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              end_user_id INTEGER NOT NULL REFERENCES end_users(id),
              name TEXT NOT NULL,
              data TEXT NOT NULL,
              created_at REAL NOT NULL
            );
            CREATE INDEX IF NOT EXISTS events_by_user ON events (end_user_id, id);
            CREATE TABLE IF NOT EXISTS chats (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              end_user_id INTEGER NOT NULL REFERENCES end_users(id),
              menu_id INTEGER NOT NULL,
              lang TEXT NOT NULL,
              status TEXT NOT NULL,
              redaction INTEGER NOT NULL,
              custom_data TEXT NOT NULL,
              created_at REAL NOT NULL,
              ended_at REAL,
              ended_by TEXT,
              agent_name TEXT,
              preview_text TEXT,
              preview_at REAL,
              typing INTEGER NOT NULL DEFAULT 0,
              virtual_agent_name TEXT,
              escalated INTEGER NOT NULL DEFAULT 0,
              escalation_id INTEGER,
              escalation_channel TEXT
            );
            CREATE TABLE IF NOT EXISTS messages (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              chat_id INTEGER NOT NULL REFERENCES chats(id),
              sequence INTEGER NOT NULL,
              client_message_id TEXT,
              sender_type TEXT NOT NULL,
              sender_name TEXT,
              type TEXT NOT NULL,
              text TEXT,
              event TEXT,
              created_at REAL NOT NULL,
              UNIQUE (chat_id, sequence),
              UNIQUE (chat_id, client_message_id)
            );
            CREATE TABLE IF NOT EXISTS chat_events (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              chat_id INTEGER NOT NULL REFERENCES chats(id),
              name TEXT NOT NULL,
              payload TEXT NOT NULL,
              created_at REAL NOT NULL
            );
            CREATE INDEX IF NOT EXISTS chat_events_by_time ON chat_events (created_at);
            CREATE INDEX IF NOT EXISTS chats_by_user ON chats (end_user_id, status);
            CREATE INDEX IF NOT EXISTS chats_by_status ON chats (status, menu_id);
            DROP TABLE IF EXISTS auth_tokens;
            CREATE TABLE IF NOT EXISTS end_user_tokens (
              token_digest TEXT PRIMARY KEY,
              company_key TEXT NOT NULL,
              end_user_id INTEGER NOT NULL REFERENCES end_users(id),
              expires_at REAL NOT NULL,
              custom_data TEXT NOT NULL
            );
            CREATE TABLE IF NOT EXISTS sandbox_settings (
              name TEXT PRIMARY KEY,
              value TEXT NOT NULL
            );
            """

    /// Columns added to the core tables after they were first made, by table.
    static let addedColumns: [(table: String, columns: [(name: String, type: String)])] = [
        ("chats", [
            ("virtual_agent_name", "TEXT"), ("escalated", "INTEGER NOT NULL DEFAULT 0"), ("escalation_id", "INTEGER"),
            ("escalation_channel", "TEXT"), ("screen_shareable", "INTEGER NOT NULL DEFAULT 0"),
            ("post_session", "TEXT"), ("post_session_status", "TEXT"),
            ("post_session_required", "INTEGER NOT NULL DEFAULT 0"), ("post_session_opt_in", "INTEGER NOT NULL DEFAULT 0"),
            ("is_verifiable", "INTEGER NOT NULL DEFAULT 0"), ("display_order", "TEXT"), ("assigned_at", "REAL"),
        ]),
        ("messages", [
            ("media_id", "INTEGER"), ("smart_action_id", "INTEGER"), ("form", "TEXT"), ("web_form", "TEXT"),
            ("screen_share", "TEXT"),
        ]),
    ]
}
