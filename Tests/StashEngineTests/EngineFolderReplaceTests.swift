import Foundation
import StashCore
import XCTest

@testable import StashEngine

/// Replace of a download with a folder of files (`EngineState+FolderReplace`, `FolderSwap`):
/// every file is fetched into a sibling folder while the old copy stays COMPLETED, then the
/// folders are exchanged; a stop at any step leaves one whole copy and its record.
final class EngineFolderReplaceTests: XCTestCase {
    private let urls = ["http://h.test/b0", "http://h.test/b1", "http://h.test/b2"]

    private var specs: [BundleFileSpec] {
        urls.enumerated().map { BundleFileSpec(url: $0.element, path: "f\($0.offset).bin") }
    }

    /// A COMPLETED bundle "b" of three files of 1000 bytes each.
    private func completedBundle(_ harness: EngineHarness) async throws {
        try await harness.addBundle("b", urls: urls)
        for url in urls { try await harness.complete(url) }
        try await harness.eventually("the bundle complete") { try await harness.stateOf("b") == .completed }
    }

    private func replace(_ harness: EngineHarness) async throws -> Download {
        let added = try await harness.engine.add(AddRequest(id: "b", uri: "", files: specs, replace: true))
        try await harness.settle()
        XCTAssertFalse(added.created)
        return added.download
    }

    private func size(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    func testABundleIsFetchedIntoASiblingFolderAndExchangedOnceEveryFileIsWhole() async throws {
        let harness = try await EngineHarness()
        try await completedBundle(harness)
        let folder = harness.dataDir + "/assets/b"
        let sibling = harness.dataDir + "/assets/.replacing-b"
        let answer = try await replace(harness)
        XCTAssertEqual(answer.state, .completed)
        XCTAssertEqual(answer.stateReason, EngineState.replacingReason)
        for (index, url) in urls.enumerated() {
            let transfer = try XCTUnwrap(harness.fetch.transfer(url), url)
            XCTAssertEqual(transfer.request.finalPath, sibling + "/f\(index).bin", "the new copy goes into the sibling folder")
        }
        try await harness.complete(urls[0], bytes: 2000)
        try await harness.complete(urls[1], bytes: 2000)
        let during = try await harness.record("b")
        XCTAssertEqual(during.stateReason, EngineState.replacingReason + " (2 of 3 files)")
        XCTAssertEqual(during.totalBytes, 3000, "the record is the old copy's until the exchange")
        XCTAssertEqual(size(folder + "/f0.bin"), 1000, "the old copy stays in place")

        try await harness.complete(urls[2], bytes: 2000)
        try await harness.eventually("the new copy swapped in") { try await harness.record("b").stateReason == EngineState.replacedReason }
        let record = try await harness.record("b")
        XCTAssertEqual(record.state, .completed)
        XCTAssertEqual(record.totalBytes, 6000)
        XCTAssertEqual(record.downloadedBytes, 6000)
        for index in 0..<3 { XCTAssertEqual(size(folder + "/f\(index).bin"), 2000) }
        XCTAssertFalse(exists(folder + "/" + FolderSwap.marker), "the marker left the new copy")
        try await harness.eventually("the old copy deleted") { !self.exists(sibling) }
        // The disk watch follows the new folder: a file deleted from it is noticed.
        try FileManager.default.removeItem(atPath: folder + "/f1.bin")
        try await harness.eventually("the deletion noticed") { try await harness.stateOf("b") == .failed }
        try FileManager.default.copyItem(atPath: folder + "/f0.bin", toPath: folder + "/f1.bin")

        try await harness.restart()
        let reloaded = try await harness.record("b")
        XCTAssertEqual(reloaded.totalBytes, 6000)
        XCTAssertEqual(reloaded.files.map(\.size), [2000, 2000, 2000])
    }

    func testAFileThatFailsEndsTheReplaceAndKeepsTheOldBundle() async throws {
        let harness = try await EngineHarness()
        try await completedBundle(harness)
        _ = try await replace(harness)
        try await harness.complete(urls[0], bytes: 2000)
        harness.fetch.fail(urls[1], "HTTP 404 from the fake")
        try await harness.settle()
        let record = try await harness.record("b")
        XCTAssertEqual(record.state, .completed)
        XCTAssertEqual(record.totalBytes, 3000)
        XCTAssertEqual(record.stateReason, "the replace failed and the old copy is kept: file 'f1.bin': HTTP 404 from the fake")
        XCTAssertNil(harness.fetch.transfer(urls[2]), "the other files' transfers are stopped")
        try await harness.eventually("the new copy deleted") { !self.exists(harness.dataDir + "/assets/.replacing-b") }
        for index in 0..<3 { XCTAssertEqual(size(harness.dataDir + "/assets/b/f\(index).bin"), 1000) }
        // Another replace may follow.
        _ = try await replace(harness)
        XCTAssertNotNil(harness.fetch.transfer(urls[0]))
    }

    func testCancelStopsTheReplaceOnly() async throws {
        let harness = try await EngineHarness()
        try await completedBundle(harness)
        _ = try await replace(harness)
        try await harness.complete(urls[0], bytes: 2000)
        try await harness.engine.cancel(id: "b")
        try await harness.eventually("the new copy deleted") { !self.exists(harness.dataDir + "/assets/.replacing-b") }
        let record = try await harness.record("b")
        XCTAssertEqual(record.state, .completed)
        XCTAssertEqual(record.stateReason, "the replace was cancelled by a client; the old copy is kept")
        XCTAssertNil(harness.fetch.transfer(urls[1]))
        XCTAssertEqual(size(harness.dataDir + "/assets/b/f0.bin"), 1000)
    }

    func testARestartWhileFetchingDiscardsTheNewCopy() async throws {
        let harness = try await EngineHarness()
        try await completedBundle(harness)
        _ = try await replace(harness)
        try await harness.complete(urls[0], bytes: 2000)
        try await harness.restart()
        try await harness.eventually("the new copy deleted") { !self.exists(harness.dataDir + "/assets/.replacing-b") }
        let record = try await harness.record("b")
        XCTAssertEqual(record.state, .completed)
        XCTAssertEqual(record.totalBytes, 3000)
        XCTAssertTrue(record.stateReason.hasPrefix("a replace was under way when stashd stopped"), record.stateReason)
        XCTAssertNil(harness.fetch.transfer(urls[1]))
    }

    func testVerifyAndPurgeLeaveTheNewCopyAlone() async throws {
        let harness = try await EngineHarness()
        try await completedBundle(harness)
        _ = try await replace(harness)
        try await harness.complete(urls[0], bytes: 2000)
        let report = try await harness.engine.maintenance.verify(deep: false, repair: true)
        XCTAssertEqual(report.findings.map(\.path), [], "the sibling folder is no orphan")
        _ = try await harness.engine.maintenance.purge()
        XCTAssertEqual(size(harness.dataDir + "/assets/.replacing-b/f0.bin"), 2000, "neither verify --repair nor purge deleted it")
    }

    /// Where stashd may stop once every file of the new copy is whole. `recordNew`: the record
    /// of the new copy was committed; `exchanged`: the folders were swapped; `marker`: where
    /// the marker is (`in`: the new copy, whichever name it has; nil: removed).
    private struct CrashPoint {
        var recordNew: Bool
        var exchanged: Bool
        var markerInNew: Bool
        var siblingLeft = true
        /// The copy the record must describe after the start (true: the new one).
        var endsNew: Bool { recordNew }
    }

    func testAStopAtEveryStepOfTheExchangeLeavesOneWholeCopyAndItsRecord() async throws {
        let points = [
            // Marked, the new record not committed: the new copy is discarded.
            CrashPoint(recordNew: false, exchanged: false, markerInNew: true),
            // Committed, not exchanged: the exchange is made at start.
            CrashPoint(recordNew: true, exchanged: false, markerInNew: true),
            // Exchanged, the marker still in the new copy: it goes, and the old copy.
            CrashPoint(recordNew: true, exchanged: true, markerInNew: true),
            // Exchanged, the marker gone, the old copy not yet deleted.
            CrashPoint(recordNew: true, exchanged: true, markerInNew: false),
            // Everything but the last commit.
            CrashPoint(recordNew: true, exchanged: true, markerInNew: false, siblingLeft: false),
        ]
        for point in points {
            let label = "\(point)"
            let harness = try await EngineHarness { dataDir, registry in
                let files = self.urls.enumerated().map {
                    DownloadFile(url: $0.element, path: "f\($0.offset).bin", size: point.recordNew ? 2000 : 1000, downloadedBytes: point.recordNew ? 2000 : 1000, done: true)
                }
                var download = Download(
                    id: "b", uri: "", state: .completed, assetPath: "assets/b", createdAt: Date(timeIntervalSince1970: 1), isBundle: true, files: files)
                download.stateReason = point.recordNew ? EngineState.swappingReason : EngineState.replacingReason
                download.downloadedBytes = point.recordNew ? 6000 : 3000
                download.totalBytes = download.downloadedBytes
                download.filesDone = 3
                try await registry.save([download])
                let (old, new) = point.exchanged ? ("/assets/.replacing-b", "/assets/b") : ("/assets/b", "/assets/.replacing-b")
                for (folder, bytes) in [(old, 1000), (new, 2000)] where folder != "/assets/.replacing-b" || point.siblingLeft {
                    try FileManager.default.createDirectory(atPath: dataDir + folder, withIntermediateDirectories: true)
                    for index in 0..<3 {
                        XCTAssertTrue(FileManager.default.createFile(atPath: dataDir + folder + "/f\(index).bin", contents: Data(count: bytes)))
                    }
                }
                if point.markerInNew {
                    XCTAssertTrue(FileManager.default.createFile(atPath: dataDir + new + "/" + FolderSwap.marker, contents: Data()))
                }
            }
            try await harness.eventually("the sibling gone, \(label)") { !self.exists(harness.dataDir + "/assets/.replacing-b") }
            let record = try await harness.record("b")
            XCTAssertEqual(record.state, .completed, label)
            let bytes: Int64 = point.endsNew ? 2000 : 1000
            XCTAssertEqual(record.files.map(\.size), [bytes, bytes, bytes], label)
            for index in 0..<3 { XCTAssertEqual(size(harness.dataDir + "/assets/b/f\(index).bin"), bytes, label) }
            XCTAssertFalse(exists(harness.dataDir + "/assets/b/" + FolderSwap.marker), label)
            XCTAssertEqual(
                record.stateReason.hasPrefix("a replace was under way") ? "discarded" : record.stateReason,
                point.endsNew ? EngineState.replacedReason : "discarded", label)
            await harness.stop()
        }
    }

    func testAFileWithATextTrackIsReplacedAsAFolder() async throws {
        let harness = try await EngineHarness()
        let url = EngineHarness.url("v")
        let track = TextTrack(uri: "http://h.test/fr.vtt", language: "fr")
        _ = try await harness.engine.add(AddRequest(id: "v", uri: url, textTracks: [track]))
        try await harness.settle()
        try await harness.complete(url)
        try await harness.complete("http://h.test/fr.vtt", bytes: 10)
        try await harness.eventually("COMPLETED") { try await harness.stateOf("v") == .completed }
        let added = try await harness.engine.add(AddRequest(id: "v", uri: url, textTracks: [track], replace: true))
        XCTAssertEqual(added.download.stateReason, EngineState.replacingReason)
        let sibling = harness.dataDir + "/assets/.replacing-v"
        XCTAssertTrue(try XCTUnwrap(harness.fetch.transfer(url)).request.folder == sibling)
        XCTAssertTrue(try XCTUnwrap(harness.fetch.transfer("http://h.test/fr.vtt")).request.folder == sibling)
        try await harness.complete(url, bytes: 1500)
        try await harness.complete("http://h.test/fr.vtt", bytes: 20)
        try await harness.eventually("the new copy swapped in") { try await harness.record("v").stateReason == EngineState.replacedReason }
        let record = try await harness.record("v")
        XCTAssertEqual(record.files.map(\.size), [1500, 20])
        XCTAssertEqual(size(record.assetPath), 1500)
    }
}
