import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// The disk is watched: a complete download whose file is deleted, truncated or replaced
/// outside stash stops saying COMPLETED within a second, and resume fetches only what is gone.
final class DiskWatchTests: DaemonTestCase {
    private func assetFolder(_ id: String) -> String { daemon.dataDir + "/assets/" + id }

    /// Waits for FAILED and returns it with the time since `since`.
    private func failedAfter(_ id: String, since: ContinuousClock.Instant) async throws -> (Download, Duration) {
        let failed = try await waitUntil(id, timeout: 10) { $0.state == .failed }
        return (failed, .now - since)
    }

    func testADeletedFileIsSeenWithinASecondAndResumeFetchesIt() async throws {
        http.serve(path: "/one.bin", size: 300_000, seed: 3)
        _ = try await client.addDownload(AddDownloadRequest(id: "one", uri: http.url("/one.bin")))
        try await waitFor("one", .completed)
        let events = try await client.events(ids: ["one"])
        let path = assetFolder("one") + "/one.bin"

        let removed = ContinuousClock.now
        try FileManager.default.removeItem(atPath: path)
        let (failed, elapsed) = try await failedAfter("one", since: removed)
        XCTAssertLessThan(elapsed, .seconds(1), "seen within a second of the rm")
        XCTAssertTrue(failed.stateReason.contains(path), failed.stateReason)
        XCTAssertEqual(failed.error?.kind, .storage)
        XCTAssertEqual(failed.downloadedBytes, 0)
        let has = try await client.hasDownload(id: "one")
        XCTAssertEqual(has.state, .failed)
        var told: DownloadState?
        for try await event in events {
            if case .stateChanged(let download, _) = event.kind, download.id == "one" {
                told = download.state
                break
            }
        }
        XCTAssertEqual(told, .failed, "subscribers are told")

        let before = http.requests(for: "/one.bin").count
        _ = try await client.resume(id: "one")
        try await waitFor("one", .completed)
        XCTAssertEqual(http.requests(for: "/one.bin").count, before + 1)
        XCTAssertEqual(try sha256Hex(ofFile: path), http.route("/one.bin")!.body.sha256Hex)
    }

    func testATruncatedBundleFileFailsTheBundleAndResumeFetchesOnlyThatFile() async throws {
        let specs = (0..<3).map { index -> BundleFileSpec in
            http.serve(path: "/t/\(index).jpg", size: 50_000 + index, seed: UInt64(index + 1))
            return BundleFileSpec(url: http.url("/t/\(index).jpg"), path: "pages/\(index).jpg")
        }
        _ = try await client.addDownload(AddDownloadRequest(id: "t", uri: "", files: specs))
        try await waitFor("t", .completed)
        let victim = assetFolder("t") + "/pages/1.jpg"

        let truncated = ContinuousClock.now
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: victim))
        try handle.truncate(atOffset: 10)
        try handle.close()
        let (failed, elapsed) = try await failedAfter("t", since: truncated)
        XCTAssertLessThan(elapsed, .seconds(1), "seen within a second of the truncation")
        XCTAssertTrue(failed.stateReason.contains(victim), failed.stateReason)
        XCTAssertEqual(failed.filesDone, 2)

        let requests = (0..<3).map { http.requests(for: "/t/\($0).jpg").count }
        _ = try await client.resume(id: "t")
        try await waitFor("t", .completed)
        XCTAssertEqual((0..<3).map { http.requests(for: "/t/\($0).jpg").count }, [requests[0], requests[1] + 1, requests[2]])
        XCTAssertEqual(try sha256Hex(ofFile: victim), http.route("/t/1.jpg")!.body.sha256Hex)
    }

    func testAFileReplacedByAnotherIsSeen() async throws {
        http.serve(path: "/r.bin", size: 80_000, seed: 5)
        _ = try await client.addDownload(AddDownloadRequest(id: "r", uri: http.url("/r.bin")))
        try await waitFor("r", .completed)
        let path = assetFolder("r") + "/r.bin"
        let other = daemon.dataDir + "/other.bin"
        XCTAssertTrue(FileManager.default.createFile(atPath: other, contents: Data(repeating: 7, count: 1000)))

        let replaced = ContinuousClock.now
        XCTAssertEqual(rename(other, path), 0)
        let (failed, elapsed) = try await failedAfter("r", since: replaced)
        XCTAssertLessThan(elapsed, .seconds(1), "seen within a second of the rename")
        XCTAssertTrue(failed.stateReason.contains("1000 bytes on disk"), failed.stateReason)
    }

    /// `adopt --link` leaves the user's path as a second name of the file: a truncation through
    /// it changes nothing in the asset's folder, but is seen all the same.
    func testAChangeThroughAnotherNameOfALinkedFileIsSeen() async throws {
        let mine = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-linked")
        try Data(repeating: 4, count: 50_000).write(to: URL(fileURLWithPath: mine + "/song.mp3"))
        try FileManager.default.createDirectory(atPath: mine + "/album", withIntermediateDirectories: false)
        try Data(repeating: 5, count: 20_000).write(to: URL(fileURLWithPath: mine + "/album/1.mp3"))
        _ = try await client.adopt(AdoptRequest(path: mine + "/song.mp3", id: "song", link: true))
        _ = try await client.adopt(AdoptRequest(path: mine + "/album", id: "album", link: true))

        for (id, path) in [("song", mine + "/song.mp3"), ("album", mine + "/album/1.mp3")] {
            let truncated = ContinuousClock.now
            XCTAssertEqual(truncate(path, 10), 0)
            let (failed, elapsed) = try await failedAfter(id, since: truncated)
            XCTAssertLessThan(elapsed, .seconds(1), "\(id): seen within a second of the truncation")
            XCTAssertTrue(failed.stateReason.contains("10 bytes on disk"), failed.stateReason)
        }
        let info = try await client.systemInfo()
        XCTAssertFalse(info.warnings.contains { $0.contains("inotify") }, "\(info.warnings)")
    }

    func testReadingAndListingTheFilesChangesNothing() async throws {
        for id in ["read", "later"] {
            http.serve(path: "/\(id).bin", size: 40_000, seed: 9)
            _ = try await client.addDownload(AddDownloadRequest(id: id, uri: http.url("/\(id).bin")))
            try await waitFor(id, .completed)
        }
        let path = assetFolder("read") + "/read.bin"
        _ = try Data(contentsOf: URL(fileURLWithPath: path))
        _ = try FileManager.default.contentsOfDirectory(atPath: assetFolder("read"))
        // A player reads the files: nothing it does may look like damage. The watch takes its
        // events in order, so once it has seen a later deletion it has seen the reads too.
        try FileManager.default.removeItem(atPath: assetFolder("later") + "/later.bin")
        _ = try await waitUntil("later") { $0.state == .failed }
        let after = try await client.getDownload(id: "read")
        XCTAssertEqual(after.state, .completed)
        let info = try await client.systemInfo()
        XCTAssertFalse(info.warnings.contains { $0.contains("inotify") }, "\(info.warnings)")
    }
}
