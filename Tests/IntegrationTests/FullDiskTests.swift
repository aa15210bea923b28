import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// The registry and the assets on one small file system that fills up: stashd still starts
/// with an interrupted download, says so, and the ways to free space work.
final class FullDiskTests: SmallDiskTestCase {
    /// Writes zeros into a file until the file system is full.
    private func fill(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        // The last bytes of a page that a whole chunk no longer fits.
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, 1) }) > 0 {}
    }

    func testStashdStartsOnAFullDiskAndCancelFreesSpace() async throws {
        http.serve(path: "/big.bin", size: 3_000_000, seed: 8, etag: "\"b\"")
        http.update(path: "/big.bin") { $0.bytesPerSecond = 500_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "big", uri: http.url("/big.bin")))
        _ = try await waitUntil("big") { $0.state == .downloading && $0.downloadedBytes > 200_000 }
        daemon.kill(signal: SIGKILL)
        daemon.waitForExit()
        fill(dataDir + "/filler")

        try await daemon.restart()
        try await reconnect()
        let info = try await client.systemInfo()
        XCTAssertTrue(info.warnings.contains { $0.contains("registry") && $0.contains("full") }, "\(info.warnings)")
        XCTAssertTrue(daemon.log().contains("registry writes fail at start"), "the start met the full disk")
        XCTAssertTrue(daemon.log().contains("disk is full"), "the log says why")

        _ = try await client.cancel(id: "big")
        await assertFails(.notFound) { try await self.client.getDownload(id: "big") }
        XCTAssertFalse(exists(dataDir + "/assets/big"))
    }

    func testAddWhileTheDiskIsFullLeavesNothingBehind() async throws {
        fill(dataDir + "/filler")
        http.serve(path: "/f.bin", size: 100_000)
        let error = await assertFails(.resourceExhausted) {
            try await self.client.addDownload(AddDownloadRequest(id: "late", uri: self.http.url("/f.bin")))
        }
        XCTAssertTrue(error?.message.contains("full") == true, "\(error?.message ?? "")")
        // A refused add is taken back before the error is answered and never queued
        // (EngineStateTests): no transfer can make a folder for it later.
        XCTAssertFalse(exists(dataDir + "/assets/late"), "no orphan folder")
        XCTAssertTrue(http.requests(for: "/f.bin").isEmpty, "no transfer for a download that was not added")
        try FileManager.default.removeItem(atPath: dataDir + "/filler")
        _ = try await client.addDownload(AddDownloadRequest(id: "late", uri: http.url("/f.bin")))
        _ = try await waitFor("late", .completed)
    }
}
