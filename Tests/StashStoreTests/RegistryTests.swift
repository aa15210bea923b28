import Foundation
import GRDB
import Logging
import StashCore
import StashStore
import XCTest

final class RegistryTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("stash-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The registry's connections close on its commit thread a moment after the last commit
    /// answered (the commit thread waits out the group-commit spacing first), and the last
    /// close deletes the -wal and -shm files: a removal under way may find one gone, and the
    /// next finds the folder as it is.
    override func tearDownWithError() throws {
        for attempt in 1...5 {
            do {
                try FileManager.default.removeItem(at: directory)
                return
            } catch where attempt < 5 && (error as NSError).code == NSFileNoSuchFileError {
                continue
            }
        }
    }

    private var databasePath: String { directory.appendingPathComponent("stash.sqlite").path }

    private func openRegistry() throws -> Registry {
        try Registry(path: databasePath, logger: Logger(label: "test.registry"))
    }

    /// Raw SQL on the same file, as another process or an older daemon would have written it.
    private func rawSQL(_ sql: String) throws {
        let queue = try rawDatabase(databasePath)
        try queue.write { try $0.execute(sql: sql) }
    }

    /// Dates with whole milliseconds, the registry's resolution.
    private static func date(ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }

    private static func sample(_ id: String, createdMs: Int64 = 1_700_000_000_000) -> Download {
        Download(
            id: id, uri: "https://example.com/\(id).mp4", assetPath: "assets/\(id)/\(id).mp4", createdAt: Self.date(ms: createdMs),
            files: [DownloadFile(url: "https://example.com/\(id).mp4", path: "\(id).mp4")])
    }

    /// A commit is on disk when `commit` returns: the log is synced at every commit (FULL), not
    /// only at checkpoints (NORMAL, what GRDB's WAL set-up chooses).
    func testEveryCommitSyncsTheLog() throws {
        XCTAssertEqual(try openRegistry().synchronousLevel(), 2)
    }

    func testEveryFieldRoundTripsWithNilAndNonNilValues() async throws {
        let registry = try openRegistry()
        let full = Download(
            id: "vidéo-🎬", uri: "https://example.com/ストリーム/master.m3u8?token=a%20b", title: "Épisode 1 — «pilot» 🎞",
            state: .failed, downloadedBytes: 1 << 40, totalBytes: (1 << 40) + 17, speed: 0,
            quality: "high", hasSubtitles: true, hasDRM: true, assetPath: "assets/vidéo-🎬/index.m3u8",
            error: DownloadError(.http, "server said 503: try later", httpStatus: 503),
            stateReason: "failed after 5 attempts", createdAt: Self.date(ms: 1_700_000_000_123),
            completedAt: Self.date(ms: 1_700_000_999_999), sha256: String(repeating: "ab", count: 32),
            headers: [HTTPHeader(name: "Authorization", value: "Bearer x/y+z=="), HTTPHeader(name: "X-Ünïcode", value: "値 \"quoted\"")],
            files: [DownloadFile(
                url: "https://example.com/ストリーム/master.m3u8?token=a%20b", path: "index.m3u8", size: (1 << 40) + 17,
                sha256: String(repeating: "ab", count: 32), etag: "\"abc-123\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")])
        let minimal = Download(id: "m", uri: "http://h/m", assetPath: "", createdAt: Self.date(ms: 0), files: [DownloadFile(url: "http://h/m", path: "m")])
        let noneError = Download(
            id: "e", uri: "http://h/e", state: .waitingForNetwork, assetPath: "assets/e",
            error: DownloadError(.none, ""), createdAt: Self.date(ms: -1), files: [DownloadFile(url: "http://h/e", path: "e")])
        try await registry.save([full, minimal, noneError])

        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.problems, [])
        XCTAssertEqual(loaded.downloads, [full, minimal, noneError])
    }

    /// Values are bound through SQLite's C API (`RowStatement`): an empty text is still text
    /// (SQLite reads a null text pointer as NULL), a missing value NULL, a flag an integer, app
    /// data a blob and none of it NULL, in the download row and the file row alike.
    func testEachValueIsStoredWithItsSQLType() async throws {
        let registry = try openRegistry()
        var withData = Self.sample("d")
        withData.appData = [0, 1, 2]
        withData.files[0].etag = ""
        try await registry.save([Self.sample("e"), withData])
        let types = try await rawDatabase(databasePath).read { db in
            try Row.fetchAll(db, sql: """
                SELECT d.id, typeof(d.title), typeof(d.total_bytes), typeof(d.has_drm), typeof(d.app_data), typeof(d.error_kind),
                    typeof(d.created_at), typeof(f.etag), typeof(f.size), typeof(f.new_url), typeof(f.idx)
                FROM download d JOIN download_file f ON f.download_id = d.id ORDER BY d.id
                """).map { row in (0..<row.count).map { row[$0] as String } }
        }
        XCTAssertEqual(types, [
            ["d", "text", "null", "integer", "blob", "null", "integer", "text", "null", "integer", "integer"],
            ["e", "text", "null", "integer", "null", "null", "integer", "null", "null", "integer", "integer"],
        ])
        XCTAssertEqual(try registry.loadAll().downloads.first { $0.id == "d" }?.appData, [0, 1, 2])
    }

    /// Numbers bound through SQLite's C API keep their whole range: a hostile server's sizes and
    /// a client's limits at the ends of Int64, 0 and -1, written and read back as they were.
    func testInt64ExtremesRoundTrip() async throws {
        let registry = try openRegistry()
        var saved: [Download] = []
        for (index, value) in [Int64.max, Int64.min, 0, -1].enumerated() {
            var download = Self.sample("n\(index)")
            download.downloadedBytes = value
            download.totalBytes = value
            download.rateLimit = value
            download.minSize = value
            download.files[0].size = value
            download.files[0].rangeOffset = value
            download.files[0].minSize = value
            saved.append(download)
        }
        try await registry.save(saved)
        let loaded = try registry.loadAll()
        for download in saved {
            let back = try XCTUnwrap(loaded.downloads.first { $0.id == download.id })
            XCTAssertEqual(back.downloadedBytes, download.downloadedBytes)
            XCTAssertEqual(back.totalBytes, download.totalBytes)
            // A negative limit is no limit, read back as none and named (below).
            XCTAssertEqual(back.rateLimit, max(0, download.rateLimit))
            XCTAssertEqual(back.files[0].size, download.files[0].size)
            XCTAssertEqual(back.files[0].rangeOffset, download.files[0].rangeOffset)
        }
        XCTAssertEqual(loaded.problems.filter { $0.contains("rate_limit") && $0.contains("negative") }.count, 2, "\(loaded.problems)")
    }

    /// A server's header value can hold a NUL (clients' strings cannot: the wire refuses them).
    /// It is bound with its length, and the row still loads.
    func testATextWithANULIsWrittenAndTheRowLoads() async throws {
        let registry = try openRegistry()
        var download = Self.sample("nul")
        download.files[0].etag = "\"a\u{0}b\""
        download.files[0].lastModified = "\u{0}"
        try await registry.save([download])
        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.problems, [])
        let back = try XCTUnwrap(loaded.downloads.first { $0.id == "nul" })
        XCTAssertTrue(back.files[0].etag?.hasPrefix("\"a") == true, "\(String(describing: back.files[0].etag))")
    }

    func testEveryStateRoundTripsByName() async throws {
        let registry = try openRegistry()
        let downloads = DownloadState.allCases.map { state -> Download in
            var download = Self.sample("s\(state.rawValue)")
            download.state = state
            return download
        }
        try await registry.save(downloads)
        XCTAssertEqual(try registry.loadAll().downloads.map(\.state), DownloadState.allCases)

        let queue = try rawDatabase(databasePath)
        let names = try await queue.read { try String.fetchAll($0, sql: "SELECT state FROM download ORDER BY sequence") }
        XCTAssertEqual(names, DownloadState.allCases.map(\.name))
    }

    func testSpeedIsNotStored() async throws {
        let registry = try openRegistry()
        var download = Self.sample("a")
        download.speed = 123_456
        try await registry.save([download])
        XCTAssertEqual(try registry.loadAll().downloads.first?.speed, 0)
    }

    func testReplacingADownloadKeepsItsPlaceInTheOrder() async throws {
        let registry = try openRegistry()
        // Created times run backwards so the order can only come from insertion.
        try await registry.save([Self.sample("a", createdMs: 3000), Self.sample("b", createdMs: 2000)])
        try await registry.save([Self.sample("c", createdMs: 1000)])
        var replaced = Self.sample("a", createdMs: 3000)
        replaced.state = .completed
        replaced.downloadedBytes = 99
        replaced.title = "now complete"
        try await registry.save([replaced])

        let loaded = try registry.loadAll().downloads
        XCTAssertEqual(loaded.map(\.id), ["a", "b", "c"])
        XCTAssertEqual(loaded.first, replaced)
        try await registry.save([Self.sample("d")])
        XCTAssertEqual(try registry.loadAll().downloads.map(\.id), ["a", "b", "c", "d"])
    }

    func testDeleteRemovesOnlyTheNamedDownloads() async throws {
        let registry = try openRegistry()
        try await registry.save(["a", "b", "c", "d"].map { Self.sample($0) })
        try await registry.delete(ids: ["b", "d", "not-there"])
        XCTAssertEqual(try registry.loadAll().downloads.map(\.id), ["a", "c"])
        try await registry.save([Self.sample("b")])
        XCTAssertEqual(try registry.loadAll().downloads.map(\.id), ["a", "c", "b"])
    }

    func testWritesFromOneCallerApplyInOrder() async throws {
        let registry = try openRegistry()
        var download = Self.sample("x")
        for step in 0..<5 {
            download.downloadedBytes = Int64(step)
            try await registry.save([download])
            if step == 2 { try await registry.delete(ids: ["x"]) }
        }
        XCTAssertEqual(try registry.loadAll().downloads.map(\.downloadedBytes), [4])
    }

    func testReopeningGivesTheSameDataAndMigrationsRunOnce() async throws {
        var downloads = (0..<20).map { Self.sample("d\($0)", createdMs: 1_700_000_000_000 + Int64($0)) }
        downloads[3].headers = [HTTPHeader(name: "Cookie", value: "a=b")]
        downloads[7].error = DownloadError(.storage, "disk full")
        do {
            let registry = try openRegistry()
            try await registry.save(downloads)
            var config = DaemonConfig()
            config.maxParallel = 9
            try await registry.saveConfig(config)
        }
        for _ in 0..<3 {
            let reopened = try openRegistry()
            XCTAssertEqual(try reopened.loadAll().downloads, downloads)
            XCTAssertEqual(try reopened.loadConfig()?.maxParallel, 9)
        }
        let queue = try rawDatabase(databasePath)
        let migrations = try await queue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }
        XCTAssertEqual(migrations, ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v13"])
    }

    func testARateLimitIsKeptAndARegistryFromBeforeItLoadsAsNone() async throws {
        var limited = [Self.sample("one"), Self.sample("max"), Self.sample("none")]
        limited[0].rateLimit = 1
        limited[1].rateLimit = .max
        do {
            let registry = try openRegistry()
            try await registry.save(limited)
            var config = DaemonConfig()
            try config.set("rate-schedule", to: "Mon-Fri 09:00-18:00 1M")
            try await registry.saveConfig(config)
        }
        XCTAssertEqual(try openRegistry().loadAll().downloads.map(\.rateLimit), [1, .max, 0])
        XCTAssertEqual(try openRegistry().loadConfig()?.rateSchedule, "Mon,Tue,Wed,Thu,Fri 09:00-18:00 1M")
        // A registry from before this column: no rate_limit, and no v7 among its migrations.
        try rawSQL("ALTER TABLE download DROP COLUMN rate_limit; DELETE FROM grdb_migrations WHERE identifier = 'v7'; DELETE FROM config WHERE key = 'rate-schedule'")
        let old = try openRegistry()
        let loaded = try old.loadAll()
        XCTAssertEqual(loaded.problems, [])
        XCTAssertEqual(loaded.downloads.map(\.rateLimit), [0, 0, 0], "an older registry's downloads have no limit")
        XCTAssertEqual(try old.loadConfig()?.rateSchedule, "", "nor a schedule")
        try rawSQL("UPDATE download SET rate_limit = -5 WHERE id = 'one'")
        let negative = try openRegistry().loadAll()
        XCTAssertEqual(negative.downloads.first?.rateLimit, 0)
        XCTAssertEqual(negative.problems, ["download row 'one': rate_limit -5 is negative; read as none"])
    }

    func testAVersion1RegistryMigratesItsDownloadsToFiles() async throws {
        // The schema and a row as the first release wrote them.
        try rawSQL("""
            CREATE TABLE download (
                id TEXT NOT NULL PRIMARY KEY, uri TEXT NOT NULL, title TEXT NOT NULL DEFAULT '',
                state TEXT NOT NULL, downloaded_bytes INTEGER NOT NULL DEFAULT 0, total_bytes INTEGER,
                quality TEXT NOT NULL DEFAULT '', has_subtitles INTEGER NOT NULL DEFAULT 0,
                has_drm INTEGER NOT NULL DEFAULT 0, asset_path TEXT NOT NULL DEFAULT '', error_kind INTEGER,
                error_message TEXT, error_http_status INTEGER, state_reason TEXT NOT NULL DEFAULT '',
                created_at INTEGER NOT NULL, completed_at INTEGER, sha256 TEXT NOT NULL DEFAULT '',
                headers TEXT NOT NULL DEFAULT '[]', etag TEXT, last_modified TEXT, sequence INTEGER NOT NULL);
            CREATE INDEX download_sequence ON download(sequence);
            CREATE TABLE config (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('v1');
            INSERT INTO download (id, uri, state, downloaded_bytes, total_bytes, asset_path, created_at, sha256, etag, last_modified, sequence)
            VALUES ('old', 'http://h/movie.mp4', 'PAUSED', 10, 100, 'assets/old/movie.mp4', 1, '', '"e1"', 'Mon, 01 Jan 2024 00:00:00 GMT', 1);
            """)
        let loaded = try openRegistry().loadAll()
        XCTAssertEqual(loaded.problems, [])
        let download = try XCTUnwrap(loaded.downloads.first)
        XCTAssertFalse(download.isBundle)
        XCTAssertEqual(download.files, [DownloadFile(
            url: "http://h/movie.mp4", path: "movie.mp4", size: 100, etag: "\"e1\"", lastModified: "Mon, 01 Jan 2024 00:00:00 GMT")])
        XCTAssertEqual(download.filesTotal, 1)
        XCTAssertEqual(download.priority, .normal, "a registry from before priorities reads as normal")
        XCTAssertEqual(download.queuePosition, 0, "and with no position: the engine orders ties by creation")
    }

    func testPriorityAndQueuePositionAreKeptAndAnUnknownPriorityReadsAsNormal() async throws {
        let registry = try openRegistry()
        var high = Self.sample("high")
        high.priority = .high
        high.queuePosition = -65_536
        var low = Self.sample("low")
        low.priority = .low
        low.queuePosition = Int64.max
        try await registry.save([high, low])
        try rawSQL("UPDATE download SET priority = 7 WHERE id = 'low'")
        let loaded = try openRegistry().loadAll()
        XCTAssertEqual(loaded.downloads.map(\.priority), [.high, .normal])
        XCTAssertEqual(loaded.downloads.map(\.queuePosition), [-65_536, Int64.max])
        XCTAssertEqual(loaded.problems, ["download row 'low': unknown priority 7 read as normal"])
    }

    func testABundleKeepsItsFilesInOrderAndFileUpdatesLand() async throws {
        let registry = try openRegistry()
        let files = (0..<50).map { DownloadFile(url: "https://h/p/\($0).jpg", path: "pages/\($0).jpg", size: $0 == 7 ? nil : Int64(1000 + $0)) }
        var bundle = Download(id: "b", uri: "", assetPath: "assets/b", createdAt: Self.date(ms: 5), isBundle: true, files: files)
        try await registry.save([Self.sample("before"), bundle, Self.sample("after")])
        var learned = files[7]
        learned.size = 4242
        learned.etag = "\"x\""
        bundle.state = .downloading
        try await registry.commit(RegistryBatch(updates: [bundle], fileUpdates: [FileUpdate(downloadID: "b", index: 7, file: learned)]))
        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.problems, [])
        XCTAssertEqual(loaded.downloads.map(\.id), ["before", "b", "after"])
        var expected = files
        expected[7] = learned
        XCTAssertEqual(loaded.downloads[1].files, expected)
        XCTAssertEqual(loaded.downloads[1].state, .downloading)
        XCTAssertTrue(loaded.downloads[1].isBundle)
        try await registry.delete(ids: ["b"])
        let queue = try rawDatabase(databasePath)
        let left = try await queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM download_file WHERE download_id = 'b'") }
        XCTAssertEqual(left, 0, "a deleted download's files go with it")
    }

    func testAnHLSDownloadKeepsItsChoiceKeysPlaylistsAndRanges() async throws {
        let registry = try openRegistry()
        let options = HLSOptions(quality: .medium, maxHeight: 720, bandwidth: 2_000_000, subtitles: ["en", "es"], audio: ["fr"], segmentConcurrency: 4,
                                 start: 60.25, end: 120)
        // Before its playlists are read an HLS download has no files, and must stay so.
        let planning = Download(id: "p", uri: "https://h/master.m3u8", assetPath: "assets/p", createdAt: Self.date(ms: 5), hls: options)
        var planned = Download(
            id: "h", uri: "https://h/master.m3u8", assetPath: "assets/h", createdAt: Self.date(ms: 6),
            files: [
                DownloadFile(url: "https://h/all.ts", path: "video/seg00000.ts", size: 1000, rangeOffset: 0),
                DownloadFile(url: "https://h/all.ts", path: "video/seg00001.ts", size: 900, rangeOffset: 1000),
                DownloadFile(url: "https://h/sub.vtt", path: "subtitles/0-en/seg00000.vtt"),
            ],
            hls: HLSOptions())
        planned.hlsKeys = ["video/key0.key"]
        planned.hlsPlaylists = ["master.m3u8", "video/index.m3u8", "subtitles/0-en/index.m3u8"]
        try await registry.save([planning, planned])
        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.problems, [])
        XCTAssertEqual(loaded.downloads, [planning, planned])
        XCTAssertEqual(loaded.downloads[0].files, [], "no file is made up for an HLS download that has none yet")
        XCTAssertEqual(loaded.downloads[1].files.map(\.rangeOffset), [0, 1000, nil])
    }

    func testADownloadWithDRMKeepsItsParametersLicenceAndKeyIDs() async throws {
        let registry = try openRegistry()
        var download = Download(id: "drm", uri: "https://h/master.m3u8", assetPath: "assets/drm", createdAt: Self.date(ms: 7), hls: HLSOptions())
        download.drm = DRMParams(
            licenseServer: "https://l/clearkey", headers: [HTTPHeader(name: "Authorization", value: "Bearer t")],
            contentID: "c-1", certificateURL: "https://l/cert")
        var terms = LicenseTerms(acquiredAt: Self.date(ms: 1_700_000_000_123), expiresIn: 600, playbackDuration: 90, kids: ["EBESExQVFhcYGRobHB0eHw"])
        terms.startPlayback(at: Self.date(ms: 1_700_000_001_000))
        download.license = terms
        download.hasDRM = true
        download.hlsKeys = ["video/key0.key"]
        download.licenseKeyIDs = ["video/key0.key": "EBESExQVFhcYGRobHB0eHw"]
        try await registry.save([download])
        let loaded = try openRegistry().loadAll()
        XCTAssertEqual(loaded.problems, [])
        XCTAssertEqual(loaded.downloads, [download])
        XCTAssertEqual(loaded.downloads[0].keyStoreID(forKeyPath: "video/key0.key"), "kid:EBESExQVFhcYGRobHB0eHw")
    }

    func testTheReleaseOutboxSurvivesAReopenUntilDone() async throws {
        let drm = DRMParams(licenseServer: "https://l/clearkey")
        let first = LicenseRelease(id: "r1", downloadID: "a", drm: drm, kids: ["AAAAAAAAAAAAAAAAAAAAAA"], requestedAt: Self.date(ms: 10))
        var second = LicenseRelease(id: "r2", downloadID: "b", drm: drm, kids: ["AQEBAQEBAQEBAQEBAQEBAQ"], requestedAt: Self.date(ms: 20))
        do {
            let registry = try openRegistry()
            try await registry.commit(RegistryBatch(releases: [second, first]))
            second.attempts = 3
            try await registry.commit(RegistryBatch(releases: [second]))
        }
        let reopened = try openRegistry()
        XCTAssertEqual(try reopened.loadReleases().releases, [first, second], "oldest first, with the attempts counted")
        try await reopened.commit(RegistryBatch(releasesDone: ["r1"]))
        XCTAssertEqual(try openRegistry().loadReleases().releases.map(\.id), ["r2"])
        try rawSQL("INSERT INTO license_release (id, body) VALUES ('junk', 'not json')")
        let withJunk = try openRegistry().loadReleases()
        XCTAssertEqual(withJunk.releases.map(\.id), ["r2"])
        XCTAssertEqual(withJunk.problems.count, 1)
        XCTAssertTrue(withJunk.problems[0].contains("junk"), withJunk.problems[0])
    }

    func testAnHLSChoiceStoredBeforeTimeRangesReadsAsTheWholeStream() async throws {
        let registry = try openRegistry()
        // What a daemon before time ranges wrote (JSONEncoder, sorted keys).
        try rawSQL("""
            INSERT INTO download (id, uri, state, created_at, sequence, hls)
            VALUES ('old', 'http://h/x.m3u8', 'COMPLETED', 5, 1,
                    '{"keys":["video/key0.key"],"options":{"audio":[],"quality":"medium","segmentConcurrency":8,"subtitles":["en"]},"playlists":["master.m3u8","video/index.m3u8"]}');
            """)
        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.problems, [])
        XCTAssertEqual(loaded.downloads.map(\.state), [.completed])
        XCTAssertEqual(loaded.downloads.first?.hls, HLSOptions(quality: .medium, subtitles: ["en"]))
        XCTAssertNil(loaded.downloads.first?.hls?.start)
        XCTAssertNil(loaded.downloads.first?.hls?.end)
        XCTAssertEqual(loaded.downloads.first?.hlsPlaylists, ["master.m3u8", "video/index.m3u8"])
    }

    func testUnreadableHLSChoiceReadsAsPausedWithAProblem() async throws {
        let registry = try openRegistry()
        try rawSQL("""
            INSERT INTO download (id, uri, state, created_at, sequence, hls)
            VALUES ('bad', 'http://h/x.m3u8', 'COMPLETED', 5, 1, '{"options": 7}');
            """)
        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.downloads.map(\.id), ["bad"])
        XCTAssertEqual(loaded.downloads[0].state, .paused)
        XCTAssertNotNil(loaded.downloads[0].hls)
        XCTAssertEqual(loaded.problems.count, 1)
        XCTAssertTrue(loaded.problems[0].contains("HLS choice"), loaded.problems[0])
    }

    func testOverlongAppDataAndABadGroupReadBackAsNoneWithProblems() async throws {
        let registry = try openRegistry()
        var good = Self.sample("good")
        good.appData = [0, 1, 2, 255]
        good.group = "one-piece/chapter-12"
        try await registry.save([good])
        try rawSQL("""
            INSERT INTO download (id, uri, state, created_at, sequence, app_data, group_path)
            VALUES ('odd', 'http://h/odd', 'COMPLETED', 5, 100, zeroblob(70000), '../etc');
            INSERT INTO download_file (download_id, idx, url, path) VALUES ('odd', 0, 'http://h/odd', 'odd');
            """)
        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.downloads.map(\.id), ["good", "odd"])
        XCTAssertEqual(loaded.downloads[0].appData, [0, 1, 2, 255])
        XCTAssertEqual(loaded.downloads[0].group, "one-piece/chapter-12")
        XCTAssertEqual(loaded.downloads[1].appData, [])
        XCTAssertEqual(loaded.downloads[1].group, "")
        XCTAssertEqual(loaded.problems.count, 2, "\(loaded.problems)")
        XCTAssertTrue(loaded.problems.contains { $0.contains("app_data of 70000 bytes") }, "\(loaded.problems)")
        XCTAssertTrue(loaded.problems.contains { $0.contains("group '../etc'") }, "\(loaded.problems)")
    }

    func testTextTracksRoundTripWithTheirFiles() async throws {
        let registry = try openRegistry()
        var movie = Self.sample("movie")
        movie.textTracks = [
            TextTrack(uri: "https://example.com/es.vtt", language: "es", title: "Español, forzados", type: "vtt", path: "subtitles/es.vtt"),
            TextTrack(uri: "https://example.com/es.srt", language: "es", type: "srt", path: "subtitles/es-2.srt"),
        ]
        movie.files += movie.textTracks.map(\.file)
        movie.filesTotal = movie.files.count
        try await registry.save([movie, Self.sample("plain")])
        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.problems, [])
        XCTAssertEqual(loaded.downloads, [movie, Self.sample("plain")])
    }

    /// Rows are outside input: a bad track is skipped alone, with a problem naming it, and the
    /// files the tracks need are there whatever rows were lost.
    func testHostileTextTrackRowsAreSkippedWithProblems() async throws {
        let registry = try openRegistry()
        func track(_ lang: String, _ path: String, uri: String = "https://h/s.vtt", type: String = "vtt") -> String {
            #"{"lang":"\#(lang)","path":"\#(path)","title":"","type":"\#(type)","uri":"\#(uri)"}"#
        }
        let mixed = "[" + [
            track("es", "subtitles/es.vtt"),
            track("fr", "subtitles/fr.vtt", uri: "ftp://h/fr.vtt"),
            track("de", "../de.vtt"),
            track("e s", "subtitles/e s.vtt"),
            track("it", "subtitles/it.ass", type: "ass"),
            track("ES", "subtitles/ES.vtt"),
            #"{"lang":"pt"}"#,
        ].joined(separator: ",") + "]"
        let many = "[" + (0..<(TextTrackRules.maxTracks + 1)).map { track("l\(String(UnicodeScalar(97 + $0 % 26)!))", "subtitles/l\(String(UnicodeScalar(97 + $0 % 26)!))\($0 >= 26 ? "-\($0)" : "").vtt") }.joined(separator: ",") + "]"
        try rawSQL("""
            INSERT INTO download (id, uri, state, created_at, sequence, text_tracks)
            VALUES ('mixed', 'http://h/m.mp4', 'COMPLETED', 5, 1, '\(mixed)');
            INSERT INTO download_file (download_id, idx, url, path) VALUES ('mixed', 0, 'http://h/m.mp4', 'm.mp4');
            INSERT INTO download (id, uri, state, created_at, sequence, text_tracks)
            VALUES ('junk', 'http://h/j.mp4', 'COMPLETED', 5, 2, '{"tracks":1}');
            INSERT INTO download_file (download_id, idx, url, path) VALUES ('junk', 0, 'http://h/j.mp4', 'j.mp4');
            INSERT INTO download (id, uri, state, created_at, sequence, asset_path, text_tracks)
            VALUES ('lost', 'http://h/lost.mp4', 'COMPLETED', 5, 3, 'assets/lost/lost.mp4', '\(many)');
            INSERT INTO download_file (download_id, idx, url, path) VALUES ('lost', 5, 'https://h/s.vtt', 'subtitles/la.vtt');
            INSERT INTO download (id, uri, state, created_at, sequence, text_tracks)
            VALUES ('flood', 'http://h/f.mp4', 'COMPLETED', 5, 4, '[\(Array(repeating: #"{"lang":"pt"}"#, count: 10_000).joined(separator: ","))]');
            INSERT INTO download_file (download_id, idx, url, path) VALUES ('flood', 0, 'http://h/f.mp4', 'f.mp4');
            """)
        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.downloads.map(\.id), ["mixed", "junk", "lost", "flood"])
        let mixedTracks = loaded.downloads[0].textTracks
        XCTAssertEqual(mixedTracks.map(\.path), ["subtitles/es.vtt"], "\(loaded.problems)")
        XCTAssertEqual(loaded.downloads[0].files.map(\.path), ["m.mp4", "subtitles/es.vtt"], "the track's lost file row is rebuilt")
        for part in ["ftp", "'../de.vtt'", "'e s'", "'ass'", "'ES' is another track's", "uri is empty"] {
            XCTAssertTrue(loaded.problems.contains { $0.contains("'mixed'") && $0.contains(part) }, "\(part): \(loaded.problems)")
        }
        XCTAssertEqual(loaded.downloads[1].textTracks, [])
        XCTAssertTrue(loaded.problems.contains { $0.contains("'junk'") && $0.contains("not a JSON array") }, "\(loaded.problems)")
        let lost = loaded.downloads[2]
        XCTAssertEqual(lost.textTracks.count, TextTrackRules.maxTracks)
        XCTAssertTrue(loaded.problems.contains { $0.contains("'lost'") && $0.contains("limit of \(TextTrackRules.maxTracks)") }, "\(loaded.problems)")
        XCTAssertEqual(lost.files.first?.path, "lost.mp4", "the download's own file is rebuilt, first")
        XCTAssertEqual(lost.files.count, 1 + TextTrackRules.maxTracks)
        XCTAssertEqual(lost.filesTotal, lost.files.count)
        let flood = loaded.problems.filter { $0.contains("'flood'") }
        XCTAssertEqual(flood.count, TextTrackRules.maxTracks + 1, "ten thousand bad entries are reported in a bounded number of problems")
        XCTAssertTrue(flood.last?.contains("\(10_000 - TextTrackRules.maxTracks) more bad text tracks") ?? false, "\(flood.last ?? "")")
    }

    /// A progress update writes the columns a change of state or progress moves and leaves
    /// every other as it is on disk (a title changed behind it stays); an update writes them all.
    func testAProgressUpdateWritesItsColumnsAlone() async throws {
        let registry = try openRegistry()
        var download = Self.sample("p")
        try await registry.save([download])
        try rawSQL("UPDATE download SET title = 'on disk' WHERE id = 'p'")
        download.state = .failed
        download.downloadedBytes = 10
        download.totalBytes = 100
        download.error = DownloadError(.http, "server said 503", httpStatus: 503)
        download.stateReason = "failed after 5 attempts"
        download.completedAt = Self.date(ms: 1_700_000_000_500)
        download.title = "in memory"
        try await registry.commit(RegistryBatch(progressUpdates: [download]))
        var stored = try XCTUnwrap(registry.loadAll().downloads.first)
        XCTAssertEqual(stored.title, "on disk")
        var expected = download
        expected.title = "on disk"
        XCTAssertEqual(stored, expected)

        download.state = .queued
        download.error = nil
        download.completedAt = nil
        try await registry.commit(RegistryBatch(updates: [download]))
        stored = try XCTUnwrap(registry.loadAll().downloads.first)
        XCTAssertEqual(stored, download)
    }

    func testUnknownStateNameReadsAsPausedWithAProblem() async throws {
        let registry = try openRegistry()
        try await registry.save([Self.sample("good")])
        try rawSQL("""
            INSERT INTO download (id, uri, state, created_at, sequence)
            VALUES ('odd', 'http://h/odd', 'EXPLODED', 5, 100);
            INSERT INTO download_file (download_id, idx, url, path) VALUES ('odd', 0, 'http://h/odd', 'odd');
            """)
        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.downloads.map(\.id), ["good", "odd"])
        XCTAssertEqual(loaded.downloads.last?.state, .paused)
        XCTAssertEqual(loaded.problems.count, 1)
        XCTAssertTrue(loaded.problems[0].contains("'odd'") && loaded.problems[0].contains("EXPLODED"), loaded.problems[0])
    }

    func testFileRowsFindTheirDownloadWhateverTheOrderOfIDs() async throws {
        // Files load in id order and downloads in list order; each file must still land in
        // its own download, by index, and gaps must be told, not filled silently.
        let registry = try openRegistry()
        let pages = (0..<12).map { DownloadFile(url: "https://h/\($0).jpg", path: "p/\($0).jpg") }
        let bundle = Download(id: "a-bundle", uri: "", assetPath: "assets/a-bundle", createdAt: Self.date(ms: 2), isBundle: true, files: pages)
        try await registry.save([Self.sample("zz-first"), bundle, Self.sample("mm-last")])
        try rawSQL("""
            INSERT INTO download (id, uri, state, created_at, is_bundle, sequence) VALUES ('empty-bundle', '', 'QUEUED', 1, 1, 20);
            INSERT INTO download (id, uri, state, asset_path, total_bytes, created_at, sequence)
                VALUES ('no-file-row', 'http://h/x.bin', 'QUEUED', 'assets/no-file-row/x.bin', 9, 1, 21);
            """)
        // The sqlite3 shell leaves foreign keys off: a file row can outlive its download.
        try await rawDatabase(databasePath, foreignKeys: false).write {
            try $0.execute(sql: "INSERT INTO download_file (download_id, idx, url, path) VALUES ('nobody', 0, 'http://h/o', 'o')")
        }

        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.downloads.map(\.id), ["zz-first", "a-bundle", "mm-last", "no-file-row"])
        XCTAssertEqual(loaded.downloads[0].files.map(\.path), ["zz-first.mp4"])
        XCTAssertEqual(loaded.downloads[1].files, pages)
        XCTAssertEqual(loaded.downloads[1].filesTotal, 12)
        XCTAssertEqual(loaded.downloads[2].files.map(\.path), ["mm-last.mp4"])
        XCTAssertEqual(loaded.downloads[3].files, [DownloadFile(url: "http://h/x.bin", path: "x.bin", size: 9)])
        XCTAssertEqual(loaded.problems.count, 2, "\(loaded.problems)")
        XCTAssertTrue(loaded.problems.contains { $0.contains("'empty-bundle' skipped") && $0.contains("no files") }, "\(loaded.problems)")
        XCTAssertTrue(loaded.problems.contains { $0.contains("'no-file-row'") && $0.contains("rebuilt") }, "\(loaded.problems)")
    }

    func testRowsMissingARequiredFieldAreSkippedWithAProblem() async throws {
        // NOT NULL keeps SQL NULLs out of the required columns, so "missing" is an empty value.
        let registry = try openRegistry()
        try await registry.save([Self.sample("first")])
        try rawSQL("""
            INSERT INTO download (id, uri, state, created_at, sequence) VALUES
                ('no-uri', '', 'QUEUED', 1, 10),
                ('', 'http://h/no-id', 'QUEUED', 1, 11),
                ('bad-headers', 'http://h/bh', 'QUEUED', 1, 12);
            UPDATE download SET headers = '{not json' WHERE id = 'bad-headers';
            INSERT INTO download_file (download_id, idx, url, path) VALUES ('bad-headers', 0, 'http://h/bh', 'bh');
            """)
        try await registry.save([Self.sample("last")])

        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.downloads.map(\.id), ["first", "bad-headers", "last"])
        XCTAssertEqual(loaded.downloads[1].headers, [])
        XCTAssertEqual(loaded.problems.count, 3, "\(loaded.problems)")
        XCTAssertTrue(loaded.problems.contains { $0.contains("'no-uri' skipped") && $0.contains("'uri'") }, "\(loaded.problems)")
        XCTAssertTrue(loaded.problems.contains { $0.contains("skipped") && $0.contains("'id'") }, "\(loaded.problems)")
        XCTAssertTrue(loaded.problems.contains { $0.contains("'bad-headers'") && $0.contains("headers") }, "\(loaded.problems)")
    }

    /// A batch's rows share one buffer for their texts and blobs (`RowStatement`): a long row
    /// before shorter and empty ones, multi-byte text and blobs must each read back as written,
    /// with nothing of the row before it, and an empty text stays empty, not NULL.
    func testRowsOfOneBatchKeepTheirOwnTextsAndBlobs() async throws {
        let registry = try openRegistry()
        var long = Self.sample("long")
        long.title = String(repeating: "long title ", count: 400)
        long.stateReason = "ünïcödé 字 🎞"
        long.appData = Array(repeating: 0xAB, count: 5000)
        long.group = "g-long"
        var short = Self.sample("s")
        short.title = "t"
        short.appData = [1]
        var empty = Self.sample("e")
        empty.title = ""
        empty.stateReason = ""
        empty.group = ""
        try await registry.save([long, short, empty])
        let loaded = try registry.loadAll()
        XCTAssertEqual(loaded.problems, [])
        let byID = Dictionary(uniqueKeysWithValues: loaded.downloads.map { ($0.id, $0) })
        for written in [long, short, empty] {
            let back = try XCTUnwrap(byID[written.id])
            XCTAssertEqual(back.title, written.title, written.id)
            XCTAssertEqual(back.stateReason, written.stateReason, written.id)
            XCTAssertEqual(back.appData, written.appData, written.id)
            XCTAssertEqual(back.group, written.group, written.id)
            XCTAssertEqual(back.uri, written.uri, written.id)
            XCTAssertEqual(back.files.map(\.path), written.files.map(\.path), written.id)
        }
        let titles = try await rawDatabase(databasePath).read { try String?.fetchAll($0, sql: "SELECT title FROM download ORDER BY id") }
        XCTAssertEqual(titles, ["", long.title, "t"])
    }

    func testAThousandConcurrentSavesAllLand() async throws {
        let registry = try openRegistry()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<1000 {
                group.addTask {
                    var download = Self.sample("c\(index)")
                    download.downloadedBytes = Int64(index)
                    try await registry.save([download])
                }
            }
            try await group.waitForAll()
        }
        let loaded = try registry.loadAll().downloads
        XCTAssertEqual(loaded.count, 1000)
        XCTAssertEqual(Set(loaded.map(\.id)), Set((0..<1000).map { "c\($0)" }))
        XCTAssertTrue(loaded.allSatisfy { $0.id == "c\($0.downloadedBytes)" })
        // Each caller returned only after its commit, so a fresh connection sees them all.
        XCTAssertEqual(try openRegistry().loadAll().downloads.count, 1000)
    }

    func testConcurrentSavesAndDeletesFromManyTasks() async throws {
        let registry = try openRegistry()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await registry.save([Self.sample("k\(index)")])
                    if index % 2 == 0 { try await registry.delete(ids: ["k\(index)"]) }
                }
            }
            try await group.waitForAll()
        }
        XCTAssertEqual(Set(try registry.loadAll().downloads.map(\.id)), Set((0..<200).filter { $0 % 2 == 1 }.map { "k\($0)" }))
    }

    func testAFailingWriteFailsAloneWithTheRegistryPathInItsError() async throws {
        let registry = try openRegistry()
        // A trigger stands in for a write SQLite refuses (a full disk, a corrupt page).
        try rawSQL("""
            CREATE TRIGGER refuse_poison BEFORE INSERT ON download WHEN NEW.id = 'poison'
            BEGIN SELECT RAISE(ABORT, 'poison refused'); END;
            """)
        let outcomes = await withTaskGroup(of: (String, Error?).self) { group in
            for id in ["poison"] + (0..<50).map({ "ok\($0)" }) {
                group.addTask {
                    do {
                        try await registry.save([Self.sample(id)])
                        return (id, nil)
                    } catch {
                        return (id, error)
                    }
                }
            }
            return await group.reduce(into: [String: Error?]()) { $0[$1.0] = $1.1 }
        }
        let failed = outcomes.filter { $0.value != nil }
        XCTAssertEqual(Array(failed.keys), ["poison"])
        let error = try XCTUnwrap(failed["poison"] as? StashError)
        XCTAssertEqual(error.code, .internal)
        XCTAssertTrue(error.message.hasPrefix("registry \(databasePath): save of 1 download(s) failed"), error.message)
        XCTAssertTrue(error.message.contains("poison refused"), error.message)
        XCTAssertEqual(Set(try registry.loadAll().downloads.map(\.id)), Set((0..<50).map { "ok\($0)" }))
    }

    func testConfigRoundTripAndBadStoredKeysAreIgnored() async throws {
        let registry = try openRegistry()
        XCTAssertNil(try registry.loadConfig())
        var config = DaemonConfig()
        config.maxParallel = 16
        config.retryMaxAttempts = 7
        config.retryBaseDelayMs = 250
        config.retryMaxDelayMs = 60_000
        config.rateLimit = 1 << 33
        config.lowSpeedLimit = 10
        config.lowSpeedTime = 120
        try await registry.saveConfig(config)
        XCTAssertEqual(try registry.loadConfig(), config)

        try rawSQL("""
            INSERT INTO config (key, value) VALUES ('from-the-future', '1');
            UPDATE config SET value = '1000' WHERE key = 'max-parallel';
            UPDATE config SET value = 'lots' WHERE key = 'low-speed-time';
            """)
        var expected = config
        expected.maxParallel = DaemonConfig().maxParallel
        expected.lowSpeedTime = DaemonConfig().lowSpeedTime
        XCTAssertEqual(try registry.loadConfig(), expected)
    }

    func testDatabaseIsInWALMode() throws {
        _ = try openRegistry()
        let queue = try rawDatabase(databasePath)
        let mode = try queue.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        XCTAssertEqual(mode, "wal")
    }

    func testOpenFailureNamesThePath() throws {
        let path = directory.appendingPathComponent("missing-dir/stash.sqlite").path
        XCTAssertThrowsError(try Registry(path: path, logger: Logger(label: "test"))) { error in
            guard let stashError = error as? StashError else { return XCTFail("not a StashError: \(error)") }
            XCTAssertEqual(stashError.code, .internal)
            XCTAssertTrue(stashError.message.hasPrefix("registry \(path): open failed"), stashError.message)
        }
    }

    func testAHundredThousandRowsLoad() async throws {
        let registry = try openRegistry()
        let downloads = (0..<100_000).map { index -> Download in
            var download = Self.sample("bulk-\(index)", createdMs: Int64(index))
            download.totalBytes = 65_536
            download.downloadedBytes = 65_536
            download.state = .completed
            download.completedAt = Self.date(ms: Int64(index) + 1)
            return download
        }
        try await registry.save(downloads)
        let start = ContinuousClock.now
        let loaded = try openRegistry().loadAll()
        print("loaded \(loaded.downloads.count) rows in \(ContinuousClock.now - start)")
        XCTAssertEqual(loaded.problems, [])
        XCTAssertEqual(loaded.downloads.count, 100_000)
        XCTAssertEqual(loaded.downloads.first, downloads.first)
        XCTAssertEqual(loaded.downloads.last, downloads.last)
    }
}
