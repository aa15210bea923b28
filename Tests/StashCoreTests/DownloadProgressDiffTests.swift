import Foundation
import StashCore
import XCTest

/// `Download.differsOnlyInProgress` decides whether the registry writes a record's progress
/// columns alone: a change it missed would never reach the disk.
final class DownloadProgressDiffTests: XCTestCase {
    private let base = Download(id: "d1", uri: "http://h/a.bin", title: "t", assetPath: "assets/d1", createdAt: Date(timeIntervalSince1970: 1_000))

    func testWhatAChangeOfStateOrProgressMovesIsProgress() {
        var moved = base
        moved.state = .completed
        moved.downloadedBytes = 10
        moved.totalBytes = 10
        moved.speed = 5
        moved.stateReason = "done"
        moved.error = DownloadError(.network, "reset")
        moved.completedAt = Date(timeIntervalSince1970: 2_000)
        XCTAssertTrue(moved.differsOnlyInProgress(from: base))
        XCTAssertTrue(base.differsOnlyInProgress(from: base))
    }

    func testEveryOtherFieldIsADifference() {
        let changes: [(String, (inout Download) -> Void)] = [
            ("uri", { $0.uri = "http://h/b.bin" }),
            ("title", { $0.title = "other" }),
            ("assetPath", { $0.assetPath = "assets/x" }),
            ("sha256", { $0.sha256 = String(repeating: "a", count: 64) }),
            ("group", { $0.group = "g" }),
            ("queuePosition", { $0.queuePosition = 7 }),
            ("createdAt", { $0.createdAt = Date(timeIntervalSince1970: 3_000) }),
            ("headers (a rare field)", { $0.headers = [HTTPHeader(name: "A", value: "b")] }),
            ("priority", { $0.priority = .high }),
            ("hasSubtitles", { $0.hasSubtitles = true }),
            ("hasDRM", { $0.hasDRM = true }),
            ("isBundle", { $0.isBundle = true }),
        ]
        for (name, change) in changes {
            var changed = base
            change(&changed)
            XCTAssertFalse(changed.differsOnlyInProgress(from: base), name)
            XCTAssertFalse(base.differsOnlyInProgress(from: changed), name)
        }
        let other = Download(id: "d2", uri: base.uri, title: base.title, assetPath: base.assetPath, createdAt: base.createdAt)
        XCTAssertFalse(other.differsOnlyInProgress(from: base), "id")
    }
}
