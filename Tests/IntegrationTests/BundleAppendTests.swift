import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// Files appended to an existing bundle (AddDownload with `append`), through a real daemon,
/// socket, registry and HTTP server.
final class BundleAppendTests: DaemonTestCase {
    private func assetFolder(_ id: String) -> String { daemon.dataDir + "/assets/" + id }

    /// Serves `/<prefix>/<name>` and returns its spec at `pages/<name>`.
    private func page(_ prefix: String, _ name: String, size: Int = 3000) -> BundleFileSpec {
        let path = "/\(prefix)/\(name)"
        http.serve(path: path, size: size, seed: UInt64(size))
        return BundleFileSpec(url: http.url(path), path: "pages/\(name)")
    }

    private func append(_ id: String, _ files: [BundleFileSpec]) async throws -> Download {
        try await client.addDownload(AddDownloadRequest(id: id, uri: "", files: files, append: true)).download
    }

    private func requestCount(_ prefix: String, _ name: String) -> Int { http.requests(for: "/\(prefix)/\(name)").count }

    func testAppendingToACompletedBundleFetchesOnlyTheNewFiles() async throws {
        let first = [page("c", "001.jpg"), page("c", "002.jpg")]
        _ = try await client.addDownload(AddDownloadRequest(id: "ch", uri: "", files: first))
        try await waitFor("ch", .completed)

        let third = page("c", "003.jpg", size: 5000)
        // One entry is already held (the same URL at the same path) and is skipped.
        let appended = try await append("ch", [first[1], third])
        XCTAssertEqual(appended.state, .queued, "a COMPLETED bundle goes back to the queue for its new file")
        XCTAssertEqual(appended.filesTotal, 3)
        XCTAssertEqual(appended.files.map(\.path), ["pages/001.jpg", "pages/002.jpg", "pages/003.jpg"])
        let done = try await waitFor("ch", .completed)
        XCTAssertEqual(done.filesDone, 3)
        XCTAssertEqual(done.totalBytes, 3000 + 3000 + 5000)
        XCTAssertEqual(requestCount("c", "001.jpg"), 1, "files on disk are not fetched again")
        XCTAssertEqual(requestCount("c", "002.jpg"), 1)
        XCTAssertEqual(requestCount("c", "003.jpg"), 1)
        XCTAssertEqual(try sha256Hex(ofFile: assetFolder("ch") + "/pages/003.jpg"), http.route("/c/003.jpg")?.body.sha256Hex)
        let report = try await client.verify()
        XCTAssertTrue(report.findings.isEmpty, "\(report.findings)")

        // Dedupe's index sees the new list: the whole list added again is this bundle.
        let whole = try await client.addDownload(AddDownloadRequest(uri: "", files: first + [third]))
        XCTAssertFalse(whole.created)
        XCTAssertEqual(whole.download.id, "ch")
        let old = try await client.addDownload(AddDownloadRequest(uri: "", files: first))
        XCTAssertTrue(old.created, "the old list is no longer what 'ch' holds")
    }

    func testAppendingTheSameFilesTwiceAddsNothing() async throws {
        let pages = [page("t", "1.jpg"), page("t", "2.jpg")]
        _ = try await client.addDownload(AddDownloadRequest(id: "twice", uri: "", files: [pages[0]]))
        try await waitFor("twice", .completed)
        let once = try await append("twice", [pages[1]])
        XCTAssertEqual(once.filesTotal, 2)
        try await waitFor("twice", .completed)
        let requests = http.requests.count

        let again = try await append("twice", [pages[1]])
        XCTAssertEqual(again.state, .completed, "nothing new: nothing to fetch")
        XCTAssertEqual(again.filesTotal, 2)
        XCTAssertEqual(http.requests.count, requests, "nothing is fetched")

        // The command line, with the list format a bundle uses.
        let list = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-append") + "/pages.txt"
        try "\(pages[1].url)\tpages/2.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
        let cli = try daemon.runCLI(["add", "--bundle", "--id", "twice", "--append", "--from-file", list])
        XCTAssertEqual(cli.status, 0, cli.stderr)
        XCTAssertTrue(cli.stdout.contains("nothing new"), cli.stdout)
        let after = try await client.getDownload(id: "twice")
        XCTAssertEqual(after.filesTotal, 2)
        XCTAssertEqual(after.state, .completed)
    }

    func testTheCommandLineAppendsAndWaits() async throws {
        let first = page("cli", "a.jpg")
        _ = try await client.addDownload(AddDownloadRequest(id: "cb", uri: "", files: [first]))
        try await waitFor("cb", .completed)
        http.serve(path: "/cli/b.jpg", size: 700)
        let add = try daemon.runCLI(["add", "--bundle", "--id", "cb", "--append", http.url("/cli/b.jpg"), "--wait"])
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertTrue(add.stdout.contains("appended 1 new file(s) to cb"), add.stdout)
        let done = try await client.getDownload(id: "cb")
        XCTAssertEqual(done.state, .completed)
        XCTAssertEqual(done.files.map(\.path), ["pages/a.jpg", "b.jpg"], "without a path the file is named after the URL")
        let usage = try daemon.runCLI(["add", "--bundle", "--append", http.url("/cli/b.jpg")])
        XCTAssertEqual(usage.status, 2, "--append needs --id")
        XCTAssertTrue(usage.stderr.contains("--id"), usage.stderr)
    }

    func testBadAppendsAreRefusedWithNothingChanged() async throws {
        let held = page("bad", "1.jpg")
        _ = try await client.addDownload(AddDownloadRequest(id: "bad", uri: "", files: [held]))
        try await waitFor("bad", .completed)
        let before = try await client.getDownload(id: "bad")
        http.serve(path: "/single.bin", size: 100)
        _ = try await client.addDownload(AddDownloadRequest(id: "single", uri: http.url("/single.bin")))
        let fresh = page("bad", "2.jpg")

        let unknown = await assertFails(.notFound) { try await self.append("nobody", [fresh]) }
        XCTAssertTrue(unknown?.message.contains("nobody") ?? false, "\(String(describing: unknown))")
        let single = await assertFails(.failedPrecondition) { try await self.append("single", [fresh]) }
        XCTAssertTrue(single?.message.contains("not a bundle") ?? false, "\(String(describing: single))")

        var clash = fresh
        clash.path = held.path
        let taken = await assertFails(.invalidArgument) { try await self.append("bad", [fresh, clash]) }
        XCTAssertTrue(taken?.message.contains("files[1]") ?? false, "\(String(describing: taken))")
        XCTAssertTrue(taken?.message.contains("'pages/1.jpg'") ?? false, "names the path: \(String(describing: taken))")

        var escape = fresh
        escape.path = "../outside.jpg"
        let outside = await assertFails(.invalidArgument) { try await self.append("bad", [escape]) }
        XCTAssertTrue(outside?.message.contains("'..'") ?? false, "\(String(describing: outside))")

        var folder = fresh
        folder.path = "pages/1.jpg/inner.jpg"
        let underFile = await assertFails(.invalidArgument) { try await self.append("bad", [folder]) }
        XCTAssertTrue(underFile?.message.contains("'pages/1.jpg'") ?? false, "\(String(describing: underFile))")

        let withTitle = await assertFails(.invalidArgument) {
            try await self.client.addDownload(AddDownloadRequest(id: "bad", uri: "", title: "new", files: [fresh], append: true))
        }
        XCTAssertTrue(withTitle?.message.contains("title") ?? false, "\(String(describing: withTitle))")
        let noID = await assertFails(.invalidArgument) {
            try await self.client.addDownload(AddDownloadRequest(uri: "", files: [fresh], append: true))
        }
        XCTAssertTrue(noID?.message.contains("id") ?? false, "\(String(describing: noID))")
        await assertFails(.invalidArgument) { try await self.append("bad", []) }

        let after = try await client.getDownload(id: "bad")
        XCTAssertEqual(after.files.map(\.path), before.files.map(\.path), "nothing changed")
        XCTAssertEqual(after.state, .completed)
        XCTAssertEqual(requestCount("bad", "2.jpg"), 0)
    }

    /// The limits apply to the bundle as it will be: here its declared sizes together. The
    /// bundle declares more than any disk holds, so it waits in QUEUED and fetches nothing.
    func testTheSizeLimitAppliesToTheWholeBundle() async throws {
        let huge = (0..<4).map { index -> BundleFileSpec in
            BundleFileSpec(url: http.url("/huge/\(index)"), path: "h\(index)", size: BundleRules.maxFileSize)
        }
        let added = try await client.addDownload(AddDownloadRequest(id: "huge", uri: "", files: huge))
        XCTAssertEqual(added.download.filesTotal, 4)
        let more = BundleFileSpec(url: http.url("/huge/4"), path: "h4", size: BundleRules.maxFileSize)
        let refused = await assertFails(.invalidArgument) { try await self.append("huge", [more]) }
        XCTAssertTrue(refused?.message.contains("\(5 * BundleRules.maxFileSize)") ?? false, "names the value: \(String(describing: refused))")
        XCTAssertTrue(refused?.message.contains("\(BundleRules.maxTotalSize)") ?? false, "names the limit: \(String(describing: refused))")
        let after = try await client.getDownload(id: "huge")
        XCTAssertEqual(after.filesTotal, 4)
        try await client.cancel(id: "huge")
    }

    func testFilesAppendedWhileTransferringAreFetchedBeforeItCompletes() async throws {
        let slow = (0..<3).map { index -> BundleFileSpec in
            let spec = page("slow", "\(index).jpg", size: 400_000)
            http.update(path: "/slow/\(index).jpg") { $0.bytesPerSecond = 1_000_000 }
            return spec
        }
        _ = try await client.addDownload(AddDownloadRequest(id: "live", uri: "", files: slow))
        _ = try await waitUntil("live") { $0.state == .downloading }
        let late = page("slow", "late.jpg", size: 9000)
        let appended = try await append("live", [late])
        XCTAssertTrue(appended.state.isActive, "\(appended.state.name)")
        XCTAssertEqual(appended.filesTotal, 4)
        let done = try await waitFor("live", .completed)
        XCTAssertEqual(done.filesDone, 4)
        XCTAssertTrue(exists(assetFolder("live") + "/pages/late.jpg"))
        XCTAssertEqual(requestCount("slow", "late.jpg"), 1)
    }

    func testAppendedFilesSurviveARestart() async throws {
        let first = page("r", "1.jpg")
        _ = try await client.addDownload(AddDownloadRequest(id: "kept", uri: "", files: [first]))
        try await waitFor("kept", .completed)
        _ = try await client.addDownload(AddDownloadRequest(id: "paused", uri: "", files: [page("r", "p1.jpg")]))
        try await waitFor("paused", .completed)
        let second = page("r", "2.jpg")
        _ = try await append("kept", [second])
        try await waitFor("kept", .completed)
        // Appended to a bundle paused before it could fetch them: kept across the restart, then fetched.
        let pausedFile = page("r", "p2.jpg")
        http.update(path: "/r/p2.jpg") { $0.bytesPerSecond = 1000 }
        _ = try await append("paused", [pausedFile])
        _ = try await client.pause(id: "paused")

        try await daemon.restart()
        try await reconnect()
        let kept = try await client.getDownload(id: "kept")
        XCTAssertEqual(kept.state, .completed)
        XCTAssertEqual(kept.files.map(\.path), ["pages/1.jpg", "pages/2.jpg"])
        XCTAssertEqual(kept.files.map(\.done), [true, true])
        let paused = try await client.getDownload(id: "paused")
        XCTAssertEqual(paused.state, .paused)
        XCTAssertEqual(paused.filesTotal, 2)
        http.update(path: "/r/p2.jpg") { $0.bytesPerSecond = nil }
        _ = try await client.resume(id: "paused")
        try await waitFor("paused", .completed)
        XCTAssertEqual(requestCount("r", "p1.jpg"), 1, "only the appended file is fetched on resume")
        let report = try await client.verify()
        XCTAssertTrue(report.findings.isEmpty, "\(report.findings)")
    }

    /// Appended paths are relative to the bundle's folder and opened from its descriptor (the
    /// one rule for paths): a folder of the bundle replaced by a symlink into the data dir's
    /// keys fails the transfer, and nothing is written there.
    func testAnAppendWritesNothingThroughASymlinkInTheBundle() async throws {
        _ = try await client.addDownload(AddDownloadRequest(id: "sl", uri: "", files: [page("s", "1.jpg")]))
        try await waitFor("sl", .completed)
        let keys = daemon.dataDir + "/keys"
        let before = try FileManager.default.contentsOfDirectory(atPath: keys)
        try FileManager.default.removeItem(atPath: assetFolder("sl") + "/pages")
        try FileManager.default.createSymbolicLink(atPath: assetFolder("sl") + "/pages", withDestinationPath: keys)
        _ = try await waitUntil("sl", timeout: 10) { $0.state == .failed }
        _ = try await append("sl", [page("s", "2.jpg")])
        _ = try await client.resume(id: "sl")
        let failed = try await waitUntil("sl", timeout: 10) { $0.state == .failed && $0.error?.kind == .storage && $0.error?.message.contains("no symlink is followed") == true }
        XCTAssertEqual(failed.filesDone, 0, failed.error?.message ?? "")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: keys), before, "nothing was written through the link")
    }
}
