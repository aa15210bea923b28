@testable import stash
import StashClient
import XCTest

final class ProgressReporterTests: XCTestCase {
    func testABarShowsTheTitleAndSpeedOnlyWhileTransferring() {
        var download = Download(
            id: "ep1", uri: "https://example.org/a.mp4", title: "Episode 1", state: .downloading,
            downloadedBytes: 512, totalBytes: 1024, speed: 256, assetPath: "/a/ep1")
        let moving = ProgressReporter.bar(for: download)
        XCTAssertTrue(moving.hasPrefix("Episode 1 "), moving)
        XCTAssertTrue(moving.contains("256 B/s  ETA 0:02  DOWNLOADING"), moving)
        download.state = .paused
        download.speed = 0
        let paused = ProgressReporter.bar(for: download)
        XCTAssertTrue(paused.hasSuffix("512 B/1.0 KiB  PAUSED"), paused)
        XCTAssertFalse(paused.contains("ETA"), paused)
        download.title = ""
        XCTAssertTrue(ProgressReporter.bar(for: download).hasPrefix("ep1 "), "no title: the id")
    }
}
