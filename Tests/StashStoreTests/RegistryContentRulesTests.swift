import Foundation
import GRDB
import Logging
import StashCore
import StashStore
import XCTest

/// A download's content rules (`expect`, `min_size`) and each file's are kept; rows of older
/// daemons have none, and a value no daemon writes reads as none, named.
final class RegistryContentRulesTests: XCTestCase {
    private var path: String!

    override func setUpWithError() throws {
        path = NSTemporaryDirectory() + "stash-content-rules-\(UUID().uuidString).sqlite"
    }

    override func tearDownWithError() throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    private func open() throws -> Registry { try Registry(path: path, logger: Logger(label: "test.registry")) }

    func testRulesRoundTripForTheDownloadAndEachFile() async throws {
        var bundle = Download(
            id: "chapter", uri: "", assetPath: "assets/chapter", createdAt: Date(timeIntervalSince1970: 1), isBundle: true,
            files: [
                DownloadFile(url: "http://h/1.jpg", path: "1.jpg", expect: "image", minSize: 1000),
                DownloadFile(url: "http://h/notes.txt", path: "notes.txt", expect: "text/plain", minSize: 0),
                DownloadFile(url: "http://h/seg.ts", path: "v/seg00000.ts", expect: "segment:ts"),
            ])
        bundle.expect = "image"
        bundle.minSize = 1000
        try await open().save([bundle])
        let loaded = try open().loadAll()
        XCTAssertEqual(loaded.problems, [])
        XCTAssertEqual(loaded.downloads, [bundle])
        XCTAssertEqual(loaded.downloads.first?.files.map(\.expect), ["image", "text/plain", "segment:ts"])
        XCTAssertEqual(loaded.downloads.first?.minSize, 1000)
    }

    /// The schema and a row as the first release wrote them: no rules, and nothing to complain of.
    func testAnOlderRegistryLoadsWithNoRules() async throws {
        let queue = try rawDatabase(path)
        try await queue.write { db in
            try db.execute(sql: """
                CREATE TABLE download (
                    id TEXT NOT NULL PRIMARY KEY, uri TEXT NOT NULL, title TEXT NOT NULL DEFAULT '',
                    state TEXT NOT NULL, downloaded_bytes INTEGER NOT NULL DEFAULT 0, total_bytes INTEGER,
                    quality TEXT NOT NULL DEFAULT '', has_subtitles INTEGER NOT NULL DEFAULT 0,
                    has_drm INTEGER NOT NULL DEFAULT 0, asset_path TEXT NOT NULL DEFAULT '', error_kind INTEGER,
                    error_message TEXT, error_http_status INTEGER, state_reason TEXT NOT NULL DEFAULT '',
                    created_at INTEGER NOT NULL, completed_at INTEGER, sha256 TEXT NOT NULL DEFAULT '',
                    headers TEXT NOT NULL DEFAULT '[]', etag TEXT, last_modified TEXT, sequence INTEGER NOT NULL);
                CREATE TABLE config (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1');
                INSERT INTO download (id, uri, state, total_bytes, asset_path, created_at, sequence)
                VALUES ('old', 'http://h/page.jpg', 'QUEUED', 100, 'assets/old/page.jpg', 1, 1);
                """)
        }
        let loaded = try open().loadAll()
        XCTAssertEqual(loaded.problems, [])
        let download = try XCTUnwrap(loaded.downloads.first)
        XCTAssertEqual(download.expect, "")
        XCTAssertEqual(download.minSize, 0)
        XCTAssertEqual(download.files.map(\.expect), [""])
        XCTAssertEqual(download.files.map(\.minSize), [0])
    }

    func testAValueNoDaemonWritesReadsAsNoneAndIsNamed() async throws {
        try await open().save([Download(
            id: "d", uri: "http://h/a.jpg", assetPath: "assets/d/a.jpg", createdAt: Date(timeIntervalSince1970: 1),
            files: [DownloadFile(url: "http://h/a.jpg", path: "a.jpg", expect: "image")])])
        let queue = try rawDatabase(path)
        try await queue.write { db in
            try db.execute(sql: "UPDATE download SET expect = 'picture', min_size = -5")
            try db.execute(sql: "UPDATE download_file SET min_size = 9223372036854775807")
        }
        let loaded = try open().loadAll()
        XCTAssertEqual(loaded.problems.sorted(), [
            "download row 'd': expect 'picture' is not a content rule; read as none",
            "download row 'd': min_size -5 is not within 0...\(ContentRules.maxMinSize); read as none",
            "file 0 of download 'd': min_size 9223372036854775807 is not within 0...\(ContentRules.maxMinSize); read as none",
        ])
        XCTAssertEqual(loaded.downloads.first?.expect, "")
        XCTAssertEqual(loaded.downloads.first?.files.first?.expect, "image")
        XCTAssertEqual(loaded.downloads.first?.files.first?.minSize, 0)
    }
}
