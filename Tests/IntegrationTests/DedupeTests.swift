import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// Adding what a download already holds returns that download instead of fetching it twice.
final class DedupeTests: DaemonTestCase {
    func testTheSameURLWithoutAnIdIsTheDownloadThatHoldsIt() async throws {
        http.serve(path: "/same.bin", size: 20_000)
        let first = try await client.addDownload(AddDownloadRequest(uri: http.url("/same.bin")))
        XCTAssertTrue(first.created)
        let again = try await client.addDownload(AddDownloadRequest(uri: http.url("/same.bin")))
        XCTAssertFalse(again.created)
        XCTAssertEqual(again.download.id, first.download.id)
        let forced = try await client.addDownload(AddDownloadRequest(uri: http.url("/same.bin"), force: true))
        XCTAssertTrue(forced.created)
        XCTAssertNotEqual(forced.download.id, first.download.id)
        try await waitFor(first.download.id, .completed)
        try await waitFor(forced.download.id, .completed)
        let all = try await client.listDownloads()
        XCTAssertEqual(all.downloads.count, 2)
    }

    func testAnotherIdForHeldContentIsAlreadyExistsNamingTheHolder() async throws {
        http.serve(path: "/held.bin", size: 5000)
        _ = try await client.addDownload(AddDownloadRequest(id: "holder", uri: http.url("/held.bin")))
        let error = await assertFails(.alreadyExists) {
            try await self.client.addDownload(AddDownloadRequest(id: "other", uri: self.http.url("/held.bin")))
        }
        XCTAssertTrue(error?.message.contains("'holder'") ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("force") ?? false, error?.message ?? "")
        // The holder's own id is the idempotent add it always was.
        let same = try await client.addDownload(AddDownloadRequest(id: "holder", uri: http.url("/held.bin")))
        XCTAssertFalse(same.created)
        // Once the holder is cancelled, the content is free again.
        try await client.cancel(id: "holder")
        let freed = try await client.addDownload(AddDownloadRequest(id: "other", uri: http.url("/held.bin")))
        XCTAssertTrue(freed.created)
    }

    func testTheSameBundleFilesAreTheSameBundle() async throws {
        let files = (0..<3).map { index -> BundleFileSpec in
            http.serve(path: "/b/\(index).jpg", size: 1000 + index)
            return BundleFileSpec(url: http.url("/b/\(index).jpg"), path: "p/\(index).jpg")
        }
        let first = try await client.addDownload(AddDownloadRequest(uri: "", files: files))
        let again = try await client.addDownload(AddDownloadRequest(uri: "", files: files))
        XCTAssertEqual(again.download.id, first.download.id)
        XCTAssertFalse(again.created)
        // Other paths for the same URLs are other content.
        var moved = files
        moved[0].path = "q/0.jpg"
        let other = try await client.addDownload(AddDownloadRequest(uri: "", files: moved))
        XCTAssertTrue(other.created)
    }

    func testAListAddedTwiceAddsNothingTheSecondTime() throws {
        http.serve(path: "/l1", size: 1000)
        http.serve(path: "/l2", size: 2000)
        let list = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-list") + "/urls.txt"
        // The same URL twice in one list is one download too.
        try "\(http.url("/l1"))\n\(http.url("/l2"))\n\(http.url("/l1"))\n".write(toFile: list, atomically: true, encoding: .utf8)
        let first = try daemon.runCLI(["add", "--from-file", list, "--wait"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let second = try daemon.runCLI(["add", "--from-file", list])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(second.stdout.split(separator: "\n").filter { $0.hasPrefix("already there:") }.count, 3, second.stdout)
        let ls = try daemon.runCLI(["ls", "--json"])
        XCTAssertEqual(ls.stdout.split(separator: "\n").count, 2, ls.stdout)
        let assets = try FileManager.default.contentsOfDirectory(atPath: daemon.dataDir + "/assets")
        XCTAssertEqual(assets.count, 2, "every file once on disk: \(assets)")
    }
}
