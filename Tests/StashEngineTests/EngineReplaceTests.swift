import Foundation
import StashCore
import XCTest

@testable import StashEngine

/// Add with replace (`EngineState+Replace`): the new copy is fetched beside the old one, which
/// stays at its path and COMPLETED until the new one is renamed over it.
final class EngineReplaceTests: XCTestCase {
    private func completed(_ harness: EngineHarness, _ id: String, bytes: Int64 = 1000) async throws -> String {
        try await harness.add(id)
        try await harness.complete(EngineHarness.url(id), bytes: bytes)
        let state = try await harness.stateOf(id)
        XCTAssertEqual(state, .completed)
        return harness.dataDir + "/assets/\(id)/\(id).bin"
    }

    private func replace(_ harness: EngineHarness, _ id: String, url: String? = nil) async throws -> Download {
        let added = try await harness.engine.add(AddRequest(
            id: url == nil ? id : "", uri: url ?? EngineHarness.url(id), replace: true))
        try await harness.settle()
        XCTAssertFalse(added.created)
        return added.download
    }

    private func size(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }

    func testReplaceFetchesBesideTheOldCopyAndSwapsWhenComplete() async throws {
        let harness = try await EngineHarness()
        let path = try await completed(harness, "a")
        let answer = try await replace(harness, "a")
        XCTAssertEqual(answer.state, .completed)
        XCTAssertEqual(answer.stateReason, EngineState.replacingReason)
        let transfer = try XCTUnwrap(harness.fetch.transfer(EngineHarness.url("a")))
        XCTAssertEqual(transfer.request.finalPath, path + Replacement.suffix, "the new copy is written beside the old one")
        XCTAssertEqual(size(path), 1000, "the old copy stays until the new one is complete")

        // Its progress shows in the reason, in steps of 10 %.
        harness.fetch.respond(EngineHarness.url("a"), total: 2500)
        harness.fetch.progress(EngineHarness.url("a"), bytes: 1000)
        try await harness.settle()
        let during = try await harness.record("a")
        XCTAssertEqual(during.stateReason, EngineState.replacingReason + " (40% of 2500 bytes)")
        XCTAssertEqual(during.totalBytes, 1000, "the record is the old copy's")
        harness.fetch.progress(EngineHarness.url("a"), bytes: 1100)
        try await harness.settle()
        let later = try await harness.record("a")
        XCTAssertEqual(later.stateReason, EngineState.replacingReason + " (40% of 2500 bytes)", "under a step more: not committed again")

        try await harness.complete(EngineHarness.url("a"), bytes: 2500)
        try await harness.eventually("the new copy swapped in") { try await harness.record("a").stateReason == "replaced by a new copy" }
        let record = try await harness.record("a")
        XCTAssertEqual(record.state, .completed)
        XCTAssertEqual(record.downloadedBytes, 2500)
        XCTAssertEqual(record.stateReason, "replaced by a new copy")
        XCTAssertEqual(size(path), 2500)
        XCTAssertNil(size(path + Replacement.suffix), "the temporary name is gone")

        // The registry holds the new copy: a restart finds it whole.
        try await harness.restart()
        let reloaded = try await harness.record("a")
        XCTAssertEqual(reloaded.state, .completed)
        XCTAssertEqual(reloaded.totalBytes, 2500)
    }

    func testReplaceByContentRenewsTheDownloadHoldingIt() async throws {
        let harness = try await EngineHarness()
        _ = try await completed(harness, "a")
        let answer = try await replace(harness, "a", url: EngineHarness.url("a"))
        XCTAssertEqual(answer.id, "a")
        XCTAssertEqual(answer.stateReason, EngineState.replacingReason)
    }

    func testAFailedReplaceKeepsTheOldCopyCompletedAndSaysWhy() async throws {
        let harness = try await EngineHarness()
        let path = try await completed(harness, "a")
        _ = try await replace(harness, "a")
        harness.fetch.fail(EngineHarness.url("a"), "HTTP 500 from the fake")
        try await harness.settle()
        let record = try await harness.record("a")
        XCTAssertEqual(record.state, .completed)
        XCTAssertEqual(record.totalBytes, 1000)
        XCTAssertTrue(record.stateReason.contains("the replace failed and the old copy is kept: HTTP 500 from the fake"), record.stateReason)
        XCTAssertEqual(size(path), 1000)
        // Another replace may follow.
        _ = try await replace(harness, "a")
        XCTAssertNotNil(harness.fetch.transfer(EngineHarness.url("a")))
    }

    func testCancelDuringAReplaceStopsTheReplaceOnly() async throws {
        let harness = try await EngineHarness()
        let path = try await completed(harness, "a")
        _ = try await replace(harness, "a")
        XCTAssertTrue(FileManager.default.createFile(atPath: path + Replacement.suffix + ".part", contents: Data(count: 10)))
        try await harness.engine.cancel(id: "a")
        try await harness.eventually("the replacement's part file deleted") { self.size(path + Replacement.suffix + ".part") == nil }
        let record = try await harness.record("a")
        XCTAssertEqual(record.state, .completed)
        XCTAssertEqual(record.stateReason, "the replace was cancelled by a client; the old copy is kept")
        XCTAssertNil(harness.fetch.transfer(EngineHarness.url("a")))
        XCTAssertEqual(size(path), 1000)
        // A second cancel removes the download.
        try await harness.engine.cancel(id: "a")
        try await harness.settle()
        do {
            _ = try await harness.record("a")
            XCTFail("the second cancel kept the download")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .notFound)
        }
    }

    func testARestartDuringAReplaceDiscardsItAndKeepsTheOldCopy() async throws {
        let harness = try await EngineHarness()
        let path = try await completed(harness, "a")
        _ = try await replace(harness, "a")
        XCTAssertTrue(FileManager.default.createFile(atPath: path + Replacement.suffix + ".part", contents: Data(count: 10)))
        try await harness.restart()
        try await harness.eventually("the replacement's part file deleted") { self.size(path + Replacement.suffix + ".part") == nil }
        let record = try await harness.record("a")
        XCTAssertEqual(record.state, .completed)
        XCTAssertEqual(record.totalBytes, 1000)
        XCTAssertTrue(record.stateReason.hasPrefix("a replace was under way when stashd stopped"), record.stateReason)
        XCTAssertEqual(size(path), 1000)
    }

    /// stashd stopped after the new copy's record was committed: before the rename (the copy
    /// still under its temporary name), and after it.
    func testAStopBetweenTheCommitAndTheRenameIsFinishedAtStart() async throws {
        for renamed in [false, true] {
            let harness = try await EngineHarness { dataDir, registry in
                let url = EngineHarness.url("a")
                var download = Download(
                    id: "a", uri: url, state: .completed, assetPath: "assets/a/a.bin", createdAt: Date(timeIntervalSince1970: 1),
                    files: [DownloadFile(url: url, path: "a.bin", size: 2500, downloadedBytes: 2500, done: true)])
                download.stateReason = EngineState.swappingReason
                download.downloadedBytes = 2500
                download.totalBytes = 2500
                try await registry.save([download])
                let folder = dataDir + "/assets/a"
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/a.bin", contents: Data(count: renamed ? 2500 : 1000)))
                if !renamed {
                    XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/a.bin" + Replacement.suffix, contents: Data(count: 2500)))
                }
            }
            let record = try await harness.record("a")
            XCTAssertEqual(record.state, .completed, "renamed: \(renamed)")
            XCTAssertEqual(record.stateReason, "replaced by a new copy")
            XCTAssertEqual(size(harness.dataDir + "/assets/a/a.bin"), 2500)
            XCTAssertNil(size(harness.dataDir + "/assets/a/a.bin" + Replacement.suffix))
            await harness.stop()
        }
    }

    func testVerifyAndPurgeLeaveAReplacementInFlightAlone() async throws {
        let harness = try await EngineHarness()
        let path = try await completed(harness, "a")
        _ = try await replace(harness, "a")
        let part = path + Replacement.suffix + ".part"
        XCTAssertTrue(FileManager.default.createFile(atPath: part, contents: Data(count: 10)))
        let report = try await harness.engine.maintenance.verify(deep: false, repair: true)
        XCTAssertEqual(report.findings.map(\.path), [], "the new copy's part file is no orphan")
        _ = try await harness.engine.maintenance.purge()
        XCTAssertEqual(size(part), 10, "neither verify --repair nor purge deleted it")
        // Once the replace ends, what it left is an orphan again.
        harness.fetch.fail(EngineHarness.url("a"))
        try await harness.settle()
        XCTAssertTrue(FileManager.default.createFile(atPath: part, contents: Data(count: 10)))
        let after = try await harness.engine.maintenance.verify(deep: false, repair: false)
        XCTAssertEqual(after.findings.map(\.kind), [.orphanFile])
    }

    func testReplaceIsRefusedForWhatItDoesNotSupport() async throws {
        let harness = try await EngineHarness()
        try await harness.add("q")
        do {
            _ = try await replace(harness, "q")
            XCTFail("a download not complete was replaced")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .failedPrecondition)
            XCTAssertTrue(error.message.contains("not COMPLETED"), error.message)
        }
        do {
            _ = try await harness.engine.add(AddRequest(id: "q", uri: "http://h.test/other.bin", replace: true))
            XCTFail("a replace with another uri")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .alreadyExists)
        }
    }
}
