import GRDB

/// The registry's versioned schema. Migrations are only ever appended: a released data dir
/// must open with every later daemon, and GRDB records which ones already ran.
enum RegistrySchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // States are stored by name, not raw value, so the file reads without the source
            // and a reordered enum cannot silently change a stored state. `sequence` keeps
            // "oldest first" stable across upserts, which update the row in place.
            try db.execute(sql: """
                CREATE TABLE download (
                    id TEXT NOT NULL PRIMARY KEY,
                    uri TEXT NOT NULL,
                    title TEXT NOT NULL DEFAULT '',
                    state TEXT NOT NULL,
                    downloaded_bytes INTEGER NOT NULL DEFAULT 0,
                    total_bytes INTEGER,
                    quality TEXT NOT NULL DEFAULT '',
                    has_subtitles INTEGER NOT NULL DEFAULT 0,
                    has_drm INTEGER NOT NULL DEFAULT 0,
                    asset_path TEXT NOT NULL DEFAULT '',
                    error_kind INTEGER,
                    error_message TEXT,
                    error_http_status INTEGER,
                    state_reason TEXT NOT NULL DEFAULT '',
                    created_at INTEGER NOT NULL,
                    completed_at INTEGER,
                    sha256 TEXT NOT NULL DEFAULT '',
                    headers TEXT NOT NULL DEFAULT '[]',
                    etag TEXT,
                    last_modified TEXT,
                    sequence INTEGER NOT NULL
                );
                CREATE INDEX download_sequence ON download(sequence);
                CREATE TABLE config (
                    key TEXT NOT NULL PRIMARY KEY,
                    value TEXT NOT NULL
                );
                """)
        }
        return migrator
    }
}
