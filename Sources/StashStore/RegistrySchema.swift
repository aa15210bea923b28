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
        migrator.registerMigration("v2") { db in
            // A download's bytes live in its files: one for a single-file download, many for a
            // bundle. The resume validators move to the file they describe. A file's progress
            // and completion are not stored: on start they are read from the disk, which is
            // the truth (a file reaches its final path only once complete).
            try db.execute(sql: """
                CREATE TABLE download_file (
                    download_id TEXT NOT NULL REFERENCES download(id) ON DELETE CASCADE,
                    idx INTEGER NOT NULL,
                    url TEXT NOT NULL,
                    path TEXT NOT NULL,
                    size INTEGER,
                    sha256 TEXT NOT NULL DEFAULT '',
                    etag TEXT,
                    last_modified TEXT,
                    PRIMARY KEY (download_id, idx)
                ) WITHOUT ROWID;
                ALTER TABLE download ADD COLUMN is_bundle INTEGER NOT NULL DEFAULT 0;
                INSERT INTO download_file (download_id, idx, url, path, size, sha256, etag, last_modified)
                    SELECT id, 0, uri, substr(asset_path, length('assets/' || id || '/') + 1),
                        total_bytes, sha256, etag, last_modified
                    FROM download
                    WHERE substr(asset_path, 1, length('assets/' || id || '/')) = 'assets/' || id || '/';
                ALTER TABLE download DROP COLUMN etag;
                ALTER TABLE download DROP COLUMN last_modified;
                """)
        }
        migrator.registerMigration("v3") { db in
            // hls: the options and key paths of an HLS download as JSON, NULL for others.
            try db.execute(sql: """
                ALTER TABLE download ADD COLUMN hls TEXT;
                ALTER TABLE download_file ADD COLUMN range_offset INTEGER;
                """)
        }
        migrator.registerMigration("v4") { db in
            // drm: the licence server, the licence granted and which keys it covers, as JSON,
            // NULL for downloads without DRM. license_release: the outbox of releases the
            // licence server has not acknowledged yet, kept until it does.
            try db.execute(sql: """
                ALTER TABLE download ADD COLUMN drm TEXT;
                CREATE TABLE license_release (
                    id TEXT NOT NULL PRIMARY KEY,
                    body TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v5") { db in
            // app_data: the app's own bytes for the download (NULL for none); group_path: its
            // group ("" for none). "group" is an SQL keyword, hence the column's name.
            try db.execute(sql: """
                ALTER TABLE download ADD COLUMN app_data BLOB;
                ALTER TABLE download ADD COLUMN group_path TEXT NOT NULL DEFAULT '';
                """)
        }
        migrator.registerMigration("v6") { db in
            // text_tracks: a download's side-loaded subtitle files as a JSON array of
            // {uri, lang, title, type, path}, NULL for none; their files are file rows as any.
            try db.execute(sql: "ALTER TABLE download ADD COLUMN text_tracks TEXT;")
        }
        // rate_limit: bytes per second over the download's transfers; 0 (every older row) is none.
        migrator.registerMigration("v7") { db in
            try db.execute(sql: "ALTER TABLE download ADD COLUMN rate_limit INTEGER NOT NULL DEFAULT 0;")
        }
        migrator.registerMigration("v8") { db in
            // expect and min_size: what a download's (and each file's) content must be and
            // its fewest bytes; '' and 0 for none, which is what rows of older daemons read as.
            try db.execute(sql: """
                ALTER TABLE download ADD COLUMN expect TEXT NOT NULL DEFAULT '';
                ALTER TABLE download ADD COLUMN min_size INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE download_file ADD COLUMN expect TEXT NOT NULL DEFAULT '';
                ALTER TABLE download_file ADD COLUMN min_size INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("v9") { db in
            // priority: 0 low, 1 normal, 2 high; queue_position: the order among queued
            // downloads of one priority. A registry from before them reads as normal priority
            // with every position 0, which the engine orders by creation (the sequence).
            try db.execute(sql: """
                ALTER TABLE download ADD COLUMN priority INTEGER NOT NULL DEFAULT 1;
                ALTER TABLE download ADD COLUMN queue_position INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("v10") { db in
            // new_url: 1 while a file's URL changed by SetDownload has not been answered yet
            // (its server's answer tells whether the bytes held are the new URL's); 0 in rows
            // of older daemons, which kept that in memory only.
            try db.execute(sql: "ALTER TABLE download_file ADD COLUMN new_url INTEGER NOT NULL DEFAULT 0;")
        }
        migrator.registerMigration("v13") { db in
            // network ('any', 'unmetered') and on_battery ('continue', 'pause'): a download's
            // own answer to the desktop's facts; '' (every older row) follows the config.
            try db.execute(sql: """
                ALTER TABLE download ADD COLUMN network TEXT NOT NULL DEFAULT '';
                ALTER TABLE download ADD COLUMN on_battery TEXT NOT NULL DEFAULT '';
                """)
        }
        return migrator
    }
}
