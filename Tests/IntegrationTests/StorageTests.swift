import Foundation
import StashClient
import StashTestSupport
import XCTest

/// A real small file system under `assets/` (a 2 MiB tmpfs, so root only): a download that
/// cannot fit waits in the queue, and a disk that fills up mid-transfer pauses the download,
/// which completes byte-exact once space is freed.
final class StorageTests: SmallDiskTestCase {
    override var smallDisk: (relativePath: String, bytes: Int) { ("assets", 2 << 20) }

    func testADownloadLargerThanTheDiskWaitsQueuedUntilSpaceFrees() async throws {
        http.serve(path: "/fits", size: 700_000)
        http.serve(path: "/toobig", size: 1_500_000)
        _ = try await client.addDownload(AddDownloadRequest(id: "fits", uri: http.url("/fits")))
        try await waitFor("fits", .completed)
        let info = try await client.systemInfo()
        XCTAssertLessThanOrEqual(info.diskTotal, 2 << 20, "the disk of assets/ is the small one")
        XCTAssertEqual(info.bytesHeld, 700_000)
        XCTAssertEqual(info.bytesByState[.completed], 700_000)

        _ = try await client.addDownload(AddDownloadRequest(id: "toobig", uri: http.url("/toobig")))
        let held = try await waitUntil("toobig") { $0.stateReason.contains("insufficient storage") }
        XCTAssertEqual(held.state, .queued)
        // That a recheck with no more space keeps it held is EngineTests' (on a clock it moves).

        try await client.cancel(id: "fits")
        let done = try await waitFor("toobig", .completed, timeout: 20)
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/toobig")!.body.sha256Hex)
    }

    /// Larger than the whole disk, by its declared size or by its Content-Length: it could
    /// never fit, so it fails naming its size and the disk's instead of waiting forever.
    func testADownloadLargerThanTheWholeDiskFailsInsteadOfWaiting() async throws {
        let disk = try await client.systemInfo().diskTotal
        http.serve(path: "/huge", size: 3 << 20)
        _ = try await client.addDownload(AddDownloadRequest(id: "huge", uri: http.url("/huge")))
        _ = try await client.addDownload(AddDownloadRequest(id: "declared", uri: "", files: [
            BundleFileSpec(url: http.url("/huge"), path: "a", size: 1 << 20), BundleFileSpec(url: http.url("/huge"), path: "b", size: 2 << 20),
        ]))
        for (id, size) in [("huge", "its size is 3145728 bytes"), ("declared", "its files' sizes add up to 3145728 bytes")] {
            let failed = try await waitFor(id, .failed, timeout: 10)
            XCTAssertEqual(failed.error?.kind, .validation, id)
            let message = failed.error?.message ?? ""
            XCTAssertTrue(message.contains(size) && message.contains("the \(disk) bytes of the whole disk"), message)
        }
    }

    func testADiskThatFillsMidTransferPausesAndAResumeCompletesByteExact() async throws {
        http.serve(path: "/movie", size: 1_200_000, etag: "\"m\"")
        http.update(path: "/movie") { $0.bytesPerSecond = 1_000_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "movie", uri: http.url("/movie")))
        _ = try await waitUntil("movie") { $0.downloadedBytes > 200_000 }
        // Someone else takes the rest of the disk.
        let filler = dataDir + "/assets/filler"
        let free = try await client.systemInfo().diskFree
        // The write may fall short of the last blocks (metadata takes some): what matters is
        // that the disk is full, which the pause below shows.
        _ = FileManager.default.createFile(atPath: filler, contents: Data(count: Int(free)))

        let paused = try await waitFor("movie", .paused)
        XCTAssertTrue(paused.stateReason.contains("insufficient storage"), paused.stateReason)
        XCTAssertEqual(paused.error?.kind, .storage)
        XCTAssertTrue(exists(paused.assetPath + ".part"), "the part file is kept")
        XCTAssertGreaterThan(paused.downloadedBytes, 200_000)

        try FileManager.default.removeItem(atPath: filler)
        _ = try await client.resume(id: "movie")
        let done = try await waitFor("movie", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/movie")!.body.sha256Hex)
        XCTAssertNotNil(http.requests(for: "/movie").last?.header("Range"), "resumed from the part file")
    }
}
