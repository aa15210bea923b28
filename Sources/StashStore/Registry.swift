import Foundation
import GRDB
import Logging
import StashCore

/// The persistence manager: the only code that touches SQLite. It keeps every download and
/// the daemon's config in one WAL database, and commits each write durably before the caller
/// goes on, so a state a client was told about survives a crash or a power loss.
package final class Registry: Sendable {
    /// What `loadAll` found: the readable downloads, oldest first, and a note per row it
    /// skipped or had to repair.
    package struct LoadResult: Sendable {
        package var downloads: [Download]
        package var problems: [String]

        package init(downloads: [Download], problems: [String]) {
            self.downloads = downloads
            self.problems = problems
        }
    }

    /// The database file.
    package let path: String
    private let pool: DatabasePool
    private let committer: GroupCommitter
    private let logger: Logger

    /// Opens or creates the registry at `path` (a DatabasePool in WAL mode), runs migrations.
    package init(path: String, logger: Logger) throws {
        self.path = path
        self.logger = logger
        var configuration = Configuration()
        configuration.label = "stash.registry"
        // A second process (`sqlite3`, a backup) may briefly hold the lock; wait rather than fail.
        configuration.busyMode = .timeout(5)
        let pool = try Self.guarding(path, "open") {
            try DatabasePool(path: path, configuration: configuration)
        }
        try Self.guarding(path, "set synchronous=FULL") { try Self.syncEveryCommit(pool) }
        try Self.guarding(path, "migrate") { try RegistrySchema.migrator.migrate(pool) }
        self.pool = pool
        self.committer = GroupCommitter(pool: pool) { db, write in try Registry.apply(db, write) }
    }

    /// WAL's NORMAL may lose the last commits on power loss; FULL syncs the log on every
    /// commit, which group commit keeps affordable. Set on the writer after the pool is open:
    /// GRDB's WAL set-up runs after `prepareDatabase` and sets NORMAL, so a pragma there was
    /// overridden (288 commits, 8 log syncs in a bench run of 2,000 downloads).
    private static func syncEveryCommit(_ pool: DatabasePool) throws {
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let level = try synchronousLevel(pool)
        guard level == 2 else {
            throw StashError(.internal, "SQLite kept synchronous=\(level) where 2 (FULL) was set")
        }
    }

    /// The writer's `PRAGMA synchronous` (2 is FULL): what a commit waits for on disk.
    package func synchronousLevel() throws -> Int {
        try Self.synchronousLevel(pool)
    }

    private static func synchronousLevel(_ pool: DatabasePool) throws -> Int {
        try pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// Every download, oldest first. A row with a missing required field is skipped and
    /// described in `problems`; a row with an unknown state name is read as PAUSED (with a
    /// problem note). Never crashes on a bad row.
    package func loadAll() throws -> LoadResult {
        readAhead()
        var result = try Self.guarding(path, "load downloads") {
            try pool.read { db in
                var result = LoadResult(downloads: [], problems: [])
                var position: [String: Int] = [:]
                let rows = try Row.fetchCursor(db.makeStatement(sql: DownloadRow.selectAllSQL))
                while let row = try rows.next() {
                    guard let download = DownloadRow.decode(row, problems: &result.problems) else { continue }
                    position[download.id] = result.downloads.count
                    result.downloads.append(download)
                }
                // File rows come in the table's own order (download id, then index): a plain
                // scan, where joining them to the downloads' order made SQLite look up each
                // download and sort its files (0.5 s against 0.1 s for 100,000 rows).
                let fileRows = try Row.fetchCursor(db.makeStatement(sql: FileRow.selectAllSQL))
                while let row = try fileRows.next() {
                    guard case (let owner, var file)? = FileRow.decode(row, problems: &result.problems),
                          let index = position[owner] else { continue }
                    // A single file's URL is its download's: held once, not once each (and
                    // freed at once, so the next row's takes its place in the heap).
                    if file.url == result.downloads[index].uri { file.url = result.downloads[index].uri }
                    result.downloads[index].files.append(file)
                }
                return result
            }
        }
        Self.repair(&result)
        return result
    }

    /// What the rows alone cannot say: a bundle without files is dropped, a single file's own
    /// file comes first, a text track's lost file row is rebuilt.
    private static func repair(_ result: inout LoadResult) {
        var skipped: [String] = []
        result.downloads.removeAll { download in
            guard download.isBundle, download.hls == nil, download.contentFiles.isEmpty else { return false }
            skipped.append("download row '\(download.id)' skipped: a bundle with no files")
            return true
        }
        result.problems += skipped
        for index in result.downloads.indices {
            if result.downloads[index].hls == nil, !result.downloads[index].isBundle {
                Self.placeSingleFile(&result.downloads[index], problems: &result.problems)
            }
            // A track's file row lost: it is fetched again rather than the track dropped.
            // An HLS download without its segment list gets them when its playlists are read.
            if !result.downloads[index].textTracks.isEmpty, result.downloads[index].hls == nil || !result.downloads[index].files.isEmpty {
                let missing = result.downloads[index].missingTextTrackFiles
                if !missing.isEmpty {
                    result.downloads[index].files += missing
                    result.problems.append("download row '\(result.downloads[index].id)': file rows of text tracks \(missing.map(\.path).joined(separator: ", ")) missing, rebuilt from the tracks")
                }
            }
            let count = result.downloads[index].files.count
            if result.downloads[index].filesTotal != count { result.downloads[index].filesTotal = count }
        }
    }

    /// A single-file download's own file comes first, before its text tracks' (the engine
    /// reads it there); a lost file row is rebuilt from the record.
    private static func placeSingleFile(_ download: inout Download, problems: inout [String]) {
        // Without text tracks its one file is its own, first.
        if download.textTracks.isEmpty, !download.files.isEmpty { return }
        guard let own = download.files.firstIndex(where: { !download.isTextTrackFile($0) }) else {
            let name = (download.assetPath as NSString).lastPathComponent
            download.files.insert(
                DownloadFile(url: download.uri, path: name.isEmpty ? "download" : name, size: download.totalBytes, sha256: download.sha256), at: 0)
            problems.append("download row '\(download.id)': file row missing, rebuilt from the record")
            return
        }
        if own != 0 {
            download.files.insert(download.files.remove(at: own), at: 0)
            problems.append("download row '\(download.id)': its own file came after its text tracks' files; put first")
        }
    }

    /// Loading touches every page of the database, in index order rather than file order. On a
    /// cold page cache that is one small read per page, and on a virtual disk each costs a
    /// round trip to the host (100,000 records: 7,500 pages, 0.6 s more than warm). Reading
    /// the files through first, in large sequential reads, puts every page in the page cache
    /// for a fraction of that. (`posix_fadvise(WILLNEED)` saved only half as much here.) Only
    /// a warm-up: a file that cannot be read is left to SQLite to report.
    private func readAhead() {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 4096)
        defer { buffer.deallocate() }
        for file in [path, path + "-wal"] {
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            while read(fd, buffer, chunk) > 0 {}
            SystemCallError.close(fd)
        }
    }

    /// Commits downloads with their files (insert or replace) durably before returning. Concurrent callers
    /// are grouped into one transaction (group commit) so thousands of state changes per
    /// second stay cheap even with synchronous=FULL; callers each wait for the transaction that
    /// holds their write. A replaced download keeps its place in the "oldest first" order.
    package func save(_ downloads: [Download]) async throws {
        try await commit(RegistryBatch(saves: downloads))
    }

    /// Commits a batch of download writes in one transaction (group-committed with others).
    package func commit(_ batch: RegistryBatch) async throws {
        if batch.isEmpty { return }
        try await submit(.batch(batch))
    }

    /// Commits a batch as `commit(_:)` does and calls `done` on the commit thread once it is
    /// durable, with the error if it failed: a caller with more to do right after (the engine's
    /// journal, which announces each commit) goes on there, without a hop back to a task.
    package func commit(_ batch: RegistryBatch, done: @escaping @Sendable (StashError?) -> Void) {
        if batch.isEmpty { return done(nil) }
        let (path, write) = (self.path, RegistryWrite.batch(batch))
        committer.submit(write) { error in done(error.map { Self.registryError(path, write.summary, $0) }) }
    }

    /// Removes downloads by id, group-committed in order with saves. Unknown ids are ignored.
    package func delete(ids: [String]) async throws {
        try await commit(RegistryBatch(deletes: ids))
    }

    /// The saved config, nil when never saved. A stored key that is unknown or out of range
    /// is ignored with a warning, so a config written by a newer daemon still loads.
    package func loadConfig() throws -> DaemonConfig? {
        let rows = try Self.guarding(path, "load config") {
            try pool.read { db in
                try Row.fetchAll(db, sql: "SELECT key, value FROM config ORDER BY key").map {
                    (key: try $0.decode(String.self, atIndex: 0), value: try $0.decode(String.self, atIndex: 1))
                }
            }
        }
        if rows.isEmpty { return nil }
        var config = DaemonConfig()
        for row in rows {
            do {
                try config.set(row.key, to: row.value)
            } catch {
                logger.warning(
                    "ignoring a stored config value",
                    metadata: ["registry": "\(path)", "key": "\(row.key)", "value": "\(row.value)", "reason": "\(error)"])
            }
        }
        return config
    }

    /// The licence releases still waiting for the server's acknowledgement, oldest first. An
    /// unreadable entry is a problem reported, not a crash, and stays in the table.
    package func loadReleases() throws -> (releases: [LicenseRelease], problems: [String]) {
        let rows = try Self.guarding(path, "load the licence release outbox") {
            try pool.read { db in
                try Row.fetchAll(db, sql: ReleaseRow.selectAllSQL).map {
                    (id: try $0.decode(String.self, atIndex: 0), body: try $0.decode(String.self, atIndex: 1))
                }
            }
        }
        var releases: [LicenseRelease] = []
        var problems: [String] = []
        for row in rows {
            if let release = ReleaseRow.decode(row.body) {
                releases.append(release)
            } else {
                problems.append("licence release '\(row.id)' skipped: its entry '\(row.body.prefix(200))' is unreadable")
            }
        }
        return (releases.sorted { $0.requestedAt < $1.requestedAt }, problems)
    }

    /// Saves every config key, group-committed with download writes.
    package func saveConfig(_ config: DaemonConfig) async throws {
        try await submit(.config(config))
    }

    private func submit(_ write: RegistryWrite) async throws {
        do {
            try await committer.submit(write)
        } catch {
            throw Self.registryError(path, write.summary, error)
        }
    }

    private static func apply(_ db: Database, _ write: RegistryWrite) throws {
        switch write {
        case .batch(let batch):
            var upsert = try RowStatement(db, sql: DownloadRow.upsertSQL)
            if !batch.saves.isEmpty {
                var clearFiles = try RowStatement(db, sql: FileRow.deleteAllSQL)
                var upsertFile = try RowStatement(db, sql: FileRow.upsertSQL)
                for download in batch.saves {
                    try DownloadRow.write(download, with: &upsert)
                    clearFiles.add(download.id)
                    try clearFiles.run()
                    for (index, file) in download.files.enumerated() {
                        try FileRow.write(downloadID: download.id, index: index, file: file, with: &upsertFile)
                    }
                }
            }
            for download in batch.updates {
                try DownloadRow.write(download, with: &upsert)
            }
            if !batch.progressUpdates.isEmpty {
                var update = try RowStatement(db, sql: DownloadRow.progressSQL)
                for download in batch.progressUpdates { try DownloadRow.writeProgress(download, with: &update) }
            }
            if !batch.fileUpdates.isEmpty {
                var upsertFile = try RowStatement(db, sql: FileRow.upsertSQL)
                for update in batch.fileUpdates {
                    try FileRow.write(downloadID: update.downloadID, index: update.index, file: update.file, with: &upsertFile)
                }
            }
            if !batch.deletes.isEmpty {
                let clearFiles = try db.cachedStatement(sql: FileRow.deleteAllSQL)
                let delete = try db.cachedStatement(sql: DownloadRow.deleteSQL)
                for id in batch.deletes {
                    try clearFiles.execute(arguments: [id])
                    try delete.execute(arguments: [id])
                }
            }
            if !batch.releases.isEmpty {
                let statement = try db.cachedStatement(sql: ReleaseRow.upsertSQL)
                for release in batch.releases { try statement.execute(arguments: ReleaseRow.arguments(for: release)) }
            }
            if !batch.releasesDone.isEmpty {
                let statement = try db.cachedStatement(sql: ReleaseRow.deleteSQL)
                for id in batch.releasesDone { try statement.execute(arguments: [id]) }
            }
        case .config(let config):
            let statement = try db.cachedStatement(sql: """
                INSERT INTO config (key, value) VALUES (?, ?)
                ON CONFLICT(key) DO UPDATE SET value = excluded.value
                """)
            for name in DaemonConfig.keyNames {
                try statement.execute(arguments: [name, try config.text(forKey: name)])
            }
        }
    }

    /// The one place GRDB and SQLite errors become stash errors.
    private static func guarding<T>(_ path: String, _ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw registryError(path, what, error)
        }
    }

    private static func registryError(_ path: String, _ what: String, _ error: Error) -> StashError {
        if let stashError = error as? StashError { return stashError }
        let detail: String
        if let databaseError = error as? DatabaseError {
            detail = "SQLite error \(databaseError.extendedResultCode.rawValue): \(databaseError.message ?? "\(databaseError.resultCode)")"
            if databaseError.resultCode == .SQLITE_FULL {
                return StashError(
                    .resourceExhausted,
                    "registry \(path): \(what) failed: the disk is full (\(detail)); free space, e.g. cancel or purge downloads")
            }
        } else {
            detail = "\(error)"
        }
        return StashError(.internal, "registry \(path): \(what) failed: \(detail)")
    }
}
