import Foundation
import StashClient
import StashTestSupport
import XCTest

/// Bundles (an asset of many files) through a real daemon and a real HTTP server.
final class BundleTests: DaemonTestCase {
    private func assetFolder(_ id: String) -> String { daemon.dataDir + "/assets/" + id }

    /// Serves `count` files under `/<prefix>/NNN.jpg` and returns the bundle's specs.
    private func serveBundle(_ prefix: String, count: Int, size: Int = 20_000, withDigests: Bool = false, bytesPerSecond: Int? = nil) -> [BundleFileSpec] {
        (0..<count).map { index in
            let path = "/\(prefix)/\(String(format: "%03d", index)).jpg"
            http.serve(path: path, size: size + index, seed: UInt64(index + 1), etag: "\"\(prefix)\(index)\"")
            if let bytesPerSecond { http.update(path: path) { $0.bytesPerSecond = bytesPerSecond } }
            let digest = withDigests ? http.route(path)!.body.sha256Hex : ""
            return BundleFileSpec(url: http.url(path), path: "pages/\(String(format: "%03d", index)).jpg", sha256: digest)
        }
    }

    private func addBundle(_ id: String, _ files: [BundleFileSpec]) async throws -> Download {
        try await client.addDownload(AddDownloadRequest(id: id, uri: "", title: "chapter \(id)", files: files)).download
    }

    func testFiftyFileBundleCompletesWithEveryFileSHA256Exact() async throws {
        let files = serveBundle("c1", count: 50, withDigests: true)
        let added = try await addBundle("chapter-1", files)
        XCTAssertTrue(added.isBundle)
        XCTAssertEqual(added.filesTotal, 50)
        XCTAssertEqual(added.assetPath, assetFolder("chapter-1"))
        let done = try await waitFor("chapter-1", .completed)
        XCTAssertEqual(done.filesDone, 50)
        XCTAssertEqual(done.files.count, 50)
        let expectedTotal = (0..<50).reduce(Int64(0)) { $0 + Int64(20_000 + $1) }
        XCTAssertEqual(done.totalBytes, expectedTotal)
        XCTAssertEqual(done.downloadedBytes, expectedTotal)
        XCTAssertEqual(done.progressPercent, 100)
        for (index, file) in done.files.enumerated() {
            XCTAssertTrue(file.done)
            let path = assetFolder("chapter-1") + "/" + file.path
            XCTAssertEqual(try sha256Hex(ofFile: path), files[index].sha256, file.path)
            XCTAssertFalse(exists(path + ".part"))
        }
        let listed = try await client.listDownloads().downloads.first { $0.id == "chapter-1" }
        XCTAssertEqual(listed?.files, [], "a list leaves the files out")
        XCTAssertEqual(listed?.filesDone, 50)
        XCTAssertEqual(listed?.filesTotal, 50)
        let again = try await client.addDownload(AddDownloadRequest(id: "chapter-1", uri: "", files: files))
        XCTAssertFalse(again.created, "the same id and files is the same bundle")
        await assertFails(.alreadyExists) { try await self.addBundle("chapter-1", Array(files.prefix(3))) }
    }

    func testFortyBundlesOfFiftyFilesAllCompleteUnderTheDefaultCaps() async throws {
        for bundle in 0..<40 {
            let files = (0..<50).map { index -> BundleFileSpec in
                let path = "/many/\(bundle)/\(index).bin"
                http.serve(path: path, size: 4096, seed: UInt64(bundle * 50 + index))
                return BundleFileSpec(url: http.url(path), path: "\(index).bin")
            }
            _ = try await addBundle("many\(bundle)", files)
        }
        for bundle in 0..<40 { try await waitFor("many\(bundle)", .completed) }
        XCTAssertLessThanOrEqual(http.peakInFlightRequests, 15, "3 downloads x 5 files")
    }

    func testProgressEventsCountFilesAndBytes() async throws {
        let events = try await client.events(ids: ["ev"])
        _ = try await addBundle("ev", serveBundle("ev", count: 8, size: 100_000, bytesPerSecond: 2_000_000))
        var sawPartial = false
        var lastBytes: Int64 = -1
        for try await event in events {
            if case .progress(let update) = event.kind {
                XCTAssertEqual(update.filesTotal, 8)
                XCTAssertGreaterThanOrEqual(update.downloadedBytes, lastBytes, "bytes over the bundle never go back")
                lastBytes = update.downloadedBytes
                if update.filesDone > 0 && update.filesDone < 8 { sawPartial = true }
            }
            if case .stateChanged(let download, _) = event.kind, download.state == .completed {
                XCTAssertEqual(download.filesDone, 8)
                break
            }
        }
        XCTAssertTrue(sawPartial, "progress reported files done while the bundle ran")
    }

    func testCapsOnDownloadsFilesConnectionsAndHostsAreNeverExceeded() async throws {
        // One download at a time, at most 3 of its files at once.
        _ = try await client.setConfig([
            (key: "max-parallel", value: "1"), (key: "files-per-download", value: "3"),
            (key: "max-connections", value: "64"), (key: "max-connections-per-host", value: "64"),
        ])
        _ = try await addBundle("a", serveBundle("a", count: 8, size: 60_000, bytesPerSecond: 300_000))
        _ = try await addBundle("b", serveBundle("b", count: 8, size: 60_000, bytesPerSecond: 300_000))
        try await waitFor("b", .completed)
        XCTAssertEqual(http.peakInFlightRequests, 3, "files-per-download 3 with one download at a time")

        // Three downloads of five files, but 4 connections in all.
        http.resetPeaks()
        _ = try await client.setConfig([
            (key: "max-parallel", value: "3"), (key: "files-per-download", value: "5"), (key: "max-connections", value: "4"),
        ])
        for id in ["c", "d", "e"] { _ = try await addBundle(id, serveBundle(id, count: 6, size: 60_000, bytesPerSecond: 300_000)) }
        for id in ["c", "d", "e"] { try await waitFor(id, .completed) }
        XCTAssertEqual(http.peakInFlightRequests, 4, "max-connections 4")

        // Two names of the same server are two hosts: at most 2 transfers to each.
        http.resetPeaks()
        _ = try await client.setConfig([(key: "max-connections", value: "64"), (key: "max-connections-per-host", value: "2")])
        var mixed = serveBundle("f", count: 8, size: 60_000, bytesPerSecond: 300_000)
        for index in stride(from: 0, to: mixed.count, by: 2) {
            mixed[index].url = mixed[index].url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        }
        _ = try await addBundle("f", mixed)
        try await waitFor("f", .completed)
        XCTAssertEqual(http.peakInFlightRequests(host: http.hostHeader), 2)
        XCTAssertEqual(http.peakInFlightRequests(host: http.localhostHeader), 2)
        XCTAssertEqual(http.peakInFlightRequests, 4, "two hosts of two transfers each, within files-per-download 5")
    }

    func testCancelMidwayLeavesNoFileAndNoFolder() async throws {
        _ = try await addBundle("gone", serveBundle("gone", count: 12, size: 200_000, bytesPerSecond: 400_000))
        _ = try await waitUntil("gone") { $0.filesDone >= 1 && $0.downloadedBytes > Int64($0.filesDone) * 200_000 }
        XCTAssertTrue(exists(assetFolder("gone") + "/pages/000.jpg"))
        try await client.cancel(id: "gone")
        XCTAssertFalse(exists(assetFolder("gone")), "cancel removes complete files, part files and the folder")
        await assertFails(.notFound) { try await self.client.getDownload(id: "gone") }
        let stats = try await client.stats()
        XCTAssertEqual(stats.activeTransfers, 0)
    }

    func testA404FailsTheBundleNamingTheFileAndResumeFetchesOnlyWhatIsMissing() async throws {
        // One file at a time: the first three are complete when the fourth fails.
        _ = try await client.setConfig([(key: "files-per-download", value: "1")])
        var files = serveBundle("m", count: 6)
        files[3].url = http.url("/m/missing.jpg")
        files[3].path = "pages/missing.jpg"
        _ = try await addBundle("m", files)
        let failed = try await waitFor("m", .failed)
        let message = failed.error?.message ?? ""
        XCTAssertTrue(message.contains(http.url("/m/missing.jpg")), message)
        XCTAssertTrue(message.contains("pages/missing.jpg"), message)
        XCTAssertEqual(failed.error?.httpStatus, 404)

        let before = Dictionary(grouping: http.requests, by: \.path).mapValues(\.count)
        http.serve(path: "/m/missing.jpg", size: 5000, seed: 99)
        _ = try await client.resume(id: "m")
        let done = try await waitFor("m", .completed)
        XCTAssertEqual(done.filesDone, 6)
        XCTAssertEqual(try sha256Hex(ofFile: assetFolder("m") + "/pages/missing.jpg"), http.route("/m/missing.jpg")!.body.sha256Hex)
        for file in files.prefix(3) {
            let path = URLComponents(string: file.url)!.path
            XCTAssertEqual(before[path], 1)
            XCTAssertEqual(http.requests(for: path).count, 1, "\(path) was complete and is not fetched again")
        }
        for file in files.suffix(2) {
            let path = URLComponents(string: file.url)!.path
            XCTAssertEqual(before[path] ?? 0, 0, "\(path) had not started when the bundle failed")
            XCTAssertEqual(http.requests(for: path).count, 1)
        }
    }

    func testAFileDeletedByHandIsReportedAndRepaired() async throws {
        let files = serveBundle("v", count: 5, withDigests: true)
        _ = try await addBundle("v", files)
        try await waitFor("v", .completed)
        let victim = assetFolder("v") + "/pages/002.jpg"
        try FileManager.default.removeItem(atPath: victim)

        let report = try await client.verify()
        XCTAssertEqual(report.findings.map(\.kind), [.missingFile])
        XCTAssertEqual(report.findings.first?.path, victim)
        XCTAssertEqual(report.findings.first?.id, "v")
        XCTAssertFalse(report.repaired)
        // Seen by the disk watch (or by that verify): no longer COMPLETED, naming the file.
        let failed = try await client.getDownload(id: "v")
        XCTAssertEqual(failed.state, .failed)
        XCTAssertTrue(failed.stateReason.contains(victim), failed.stateReason)
        let dry = try await client.verify(repair: true, dryRun: true)
        XCTAssertFalse(dry.repaired)
        let afterDryRun = try await client.getDownload(id: "v")
        XCTAssertEqual(afterDryRun.state, .failed, "a dry run changes nothing")

        let requestsBefore = http.requests(for: "/v/000.jpg").count
        let repaired = try await client.verify(repair: true)
        XCTAssertEqual(repaired.requeued, 1)
        XCTAssertEqual(repaired.findings.map(\.repaired), [true])
        try await waitFor("v", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: victim), files[2].sha256)
        XCTAssertEqual(http.requests(for: "/v/000.jpg").count, requestsBefore, "only the missing file is fetched")
        let clean = try await client.verify(deep: true)
        XCTAssertEqual(clean.findings, [])
        XCTAssertEqual(clean.filesChecked, 5)
    }

    func testTheVerifyAtStartFindsWhatChangedWhileTheDaemonWasDown() async throws {
        let files = serveBundle("down", count: 4, withDigests: true)
        _ = try await addBundle("down", files)
        try await waitFor("down", .completed)
        XCTAssertEqual(daemon.terminate(), 0)
        try FileManager.default.removeItem(atPath: assetFolder("down") + "/pages/000.jpg")
        try FileManager.default.createDirectory(atPath: assetFolder("left-behind"), withIntermediateDirectories: true)
        try await daemon.restart()
        try await reconnect()

        let failed = try await client.getDownload(id: "down")
        XCTAssertEqual(failed.state, .failed)
        XCTAssertEqual(failed.error?.kind, .storage)
        XCTAssertTrue(failed.error?.message.contains("1 of 4 files missing") ?? false, failed.error?.message ?? "")
        XCTAssertEqual(failed.filesDone, 3)
        let report = try await client.systemInfo().lastVerify
        XCTAssertNotNil(report.finishedAt)
        XCTAssertEqual(report.downloadsChecked, 1)
        XCTAssertEqual(report.filesChecked, 4)
        XCTAssertEqual(report.findings.map(\.kind), [.missingFile, .orphanFolder])
        XCTAssertEqual(report.findings.map(\.path), [assetFolder("down") + "/pages/000.jpg", assetFolder("left-behind")])

        let repaired = try await client.verify(repair: true)
        XCTAssertEqual(repaired.requeued, 1)
        try await waitFor("down", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: assetFolder("down") + "/pages/000.jpg"), files[0].sha256)
        XCTAssertFalse(exists(assetFolder("left-behind")))
    }

    func testDeepVerifyFindsADamagedFile() async throws {
        let files = serveBundle("dmg", count: 3, withDigests: true)
        _ = try await addBundle("dmg", files)
        try await waitFor("dmg", .completed)
        let path = assetFolder("dmg") + "/pages/001.jpg"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: Data([0xFF]))
        try handle.close()
        let fast = try await client.verify()
        XCTAssertEqual(fast.findings, [], "a fast verify only compares sizes")
        let deep = try await client.verify(deep: true, repair: true)
        XCTAssertEqual(deep.findings.map(\.kind), [.wrongDigest])
        try await waitFor("dmg", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: path), files[1].sha256)
    }

    func testAnOrphanFolderIsReportedAndPurged() async throws {
        let orphan = daemon.dataDir + "/assets/ghost"
        try FileManager.default.createDirectory(atPath: orphan + "/sub", withIntermediateDirectories: true)
        try Data(count: 1000).write(to: URL(fileURLWithPath: orphan + "/sub/a.bin"))
        try Data(count: 24).write(to: URL(fileURLWithPath: orphan + "/b.bin"))
        let report = try await client.verify()
        XCTAssertEqual(report.findings.map(\.kind), [.orphanFolder])
        XCTAssertEqual(report.findings.first?.path, orphan)
        let purged = try await client.purge()
        XCTAssertEqual(purged.filesDeleted, 2)
        XCTAssertEqual(purged.bytesFreed, 1024)
        XCTAssertEqual(purged.paths, [orphan])
        XCTAssertFalse(exists(orphan))
        let afterPurge = try await client.verify()
        XCTAssertEqual(afterPurge.findings, [])
    }

    func testPathsThatLeaveTheFolderAreRefused() async throws {
        http.serve(path: "/ok", size: 10)
        let url = http.url("/ok")
        let bad: [(String, String)] = [
            ("../escape", "'..'"), ("/etc/passwd", "absolute"), ("a/../../b", "'..'"), ("a\\b", "backslash"),
            ("a\0b", "NUL"), (String(repeating: "x", count: 300), "255"), ("a//b", "empty"), ("a/./b", "empty"),
            ("x.part", ".part"),
        ]
        for (path, mentions) in bad {
            let error = await assertFails(.invalidArgument) {
                try await self.addBundle("bad", [BundleFileSpec(url: url, path: "fine.bin"), BundleFileSpec(url: url, path: path)])
            }
            XCTAssertTrue(error?.message.contains("files[1]") ?? false, "\(path): \(error?.message ?? "")")
            XCTAssertTrue(error?.message.contains(mentions) ?? false, "\(path): \(error?.message ?? "")")
        }
        let duplicate = await assertFails(.invalidArgument) {
            try await self.addBundle("bad", [BundleFileSpec(url: url, path: "a.bin"), BundleFileSpec(url: url, path: "a.bin")])
        }
        XCTAssertTrue(duplicate?.message.contains("files[0]") ?? false, duplicate?.message ?? "")
        await assertFails(.invalidArgument) {
            try await self.addBundle("bad", [BundleFileSpec(url: url, path: "a"), BundleFileSpec(url: url, path: "a/b")])
        }
        await assertFails(.invalidArgument) {
            try await self.addBundle("bad", [BundleFileSpec(url: "file:///etc/passwd", path: "p")])
        }
        XCTAssertFalse(exists(assetFolder("bad")))
        let listedAfter = try await client.listDownloads()
        XCTAssertEqual(listedAfter.total, 0, "nothing was added")
    }

    func testASymlinkInTheAssetFolderIsNotFollowed() async throws {
        let outside = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-outside")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createDirectory(atPath: assetFolder("link"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: assetFolder("link") + "/pages", withDestinationPath: outside)
        _ = try await addBundle("link", serveBundle("link", count: 2))
        let failed = try await waitFor("link", .failed)
        XCTAssertEqual(failed.error?.kind, .storage, failed.error?.message ?? "")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [], "nothing was written through the link")
    }

    func testInsufficientStorageKeepsTheDownloadQueuedUntilSpaceFrees() async throws {
        // A reserve larger than any disk: nothing of a known size fits.
        _ = try await client.setConfig([(key: "storage-reserve", value: String(Int64(1) << 50))])
        var files = serveBundle("big", count: 3)
        for index in files.indices { files[index].size = Int64(20_000 + index) }
        _ = try await addBundle("big", files)
        let held = try await waitUntil("big") { $0.stateReason.contains("insufficient storage") }
        XCTAssertEqual(held.state, .queued)
        // A single file of unknown size is held once its first response tells the size.
        http.serve(path: "/unsized", size: 50_000)
        _ = try await client.addDownload(AddDownloadRequest(id: "unsized", uri: http.url("/unsized")))
        let learned = try await waitUntil("unsized") { $0.stateReason.contains("insufficient storage") }
        XCTAssertEqual(learned.state, .queued)
        XCTAssertEqual(learned.totalBytes, 50_000)
        // That a held download waits for space, across rechecks, is EngineSchedulingTests'.

        _ = try await client.setConfig([(key: "storage-reserve", value: "0")])
        try await waitFor("big", .completed)
        try await waitFor("unsized", .completed)
    }

    func testKilledMidBundleRestartsFetchingOnlyMissingFiles() async throws {
        _ = try await client.setConfig([(key: "files-per-download", value: "2")])
        let files = serveBundle("k", count: 10, size: 150_000, withDigests: true, bytesPerSecond: 600_000)
        _ = try await addBundle("k", files)
        _ = try await waitUntil("k") { $0.filesDone >= 3 }
        daemon.kill(signal: SIGKILL)
        _ = daemon.waitForExit()
        let requestsBefore = Dictionary(grouping: http.requests, by: \.path).mapValues(\.count)
        try await daemon.restart()
        try await reconnect()
        let done = try await waitFor("k", .completed)
        XCTAssertEqual(done.filesDone, 10)
        var fetchedAgain: [String] = []
        for file in files {
            XCTAssertEqual(try sha256Hex(ofFile: assetFolder("k") + "/" + file.path), file.sha256, file.path)
            let path = URLComponents(string: file.url)!.path
            let before = requestsBefore[path] ?? 0
            let requests = http.requests(for: path)
            guard before > 0, requests.count > before else { continue }
            // Started before the kill and fetched again: it was in flight (partial) then.
            fetchedAgain.append(path)
        }
        XCTAssertLessThanOrEqual(fetchedAgain.count, 2, "only the files in flight at the kill (files-per-download 2) are fetched again")

        // The sizes the first responses told are noted, not committed one by one, so those of
        // the files done before the kill died with the daemon; the restart took them from the
        // files themselves, and the registry holds every size for the verify to check.
        XCTAssertEqual(daemon.terminate(), 0)
        try await daemon.restart()
        try await reconnect()
        let reloaded = try await client.getDownload(id: "k")
        XCTAssertEqual(reloaded.state, .completed)
        XCTAssertEqual(reloaded.files.map(\.size), (0..<10).map { Int64(150_000 + $0) })
        try Data(count: 10).write(to: URL(fileURLWithPath: assetFolder("k") + "/" + files[1].path))
        let report = try await client.verify()
        XCTAssertEqual(report.findings.map(\.kind), [.wrongSize])
        XCTAssertEqual(report.findings.first?.detail, "10 bytes on disk, expected 150001")
    }
}
