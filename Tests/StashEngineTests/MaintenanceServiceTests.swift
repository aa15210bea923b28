import Foundation
import StashCore
import Synchronization
import XCTest

@testable import StashEngine

/// The maintenance services on a real engine, registry and disk, with the fetch service faked
/// (`EngineHarness`): a repair fetches only what verify found damaged, the disk watch fails a
/// download whose file goes, and forget's move runs on the file pool while the engine answers.
final class MaintenanceServiceTests: XCTestCase {
    private func filePath(_ harness: EngineHarness, _ id: String, _ name: String) -> String {
        harness.dataDir + "/assets/" + id + "/" + name
    }

    func testVerifyRepairDeletesTheDamagedFileAndFetchesOnlyIt() async throws {
        let harness = try await EngineHarness()
        let urls = (0..<3).map { EngineHarness.url("p\($0)") }
        try await harness.addBundle("b", urls: urls)
        for url in urls { try await harness.complete(url, bytes: 1000) }
        try await harness.eventually("the bundle completes") { try await harness.stateOf("b") == .completed }
        // One byte short: the disk watch may fail the download first; the repair is the same.
        try Data(count: 999).write(to: URL(fileURLWithPath: filePath(harness, "b", "f1.bin")))

        let report = try await harness.engine.maintenance.verify(deep: false, repair: true)
        XCTAssertEqual(report.findings.map(\.kind), [.wrongSize])
        XCTAssertEqual(report.findings.map(\.repaired), [true])
        XCTAssertEqual(report.requeued, 1)
        XCTAssertEqual(report.filesDeleted, 1)
        XCTAssertEqual(report.bytesFreed, 999)
        try await harness.settle()
        XCTAssertEqual(harness.fetch.runningURLs, [urls[1]], "only the damaged file is fetched again")
        XCTAssertFalse(FileManager.default.fileExists(atPath: filePath(harness, "b", "f1.bin")), "deleted before it is fetched again")
        try await harness.complete(urls[1], bytes: 1000)
        try await harness.eventually("the bundle completes again") { try await harness.stateOf("b") == .completed }
        await harness.stop()
    }

    func testAFileDeletedOutsideStashFailsItsCompleteDownloadNamingIt() async throws {
        let harness = try await EngineHarness()
        try await harness.add("a")
        try await harness.complete(EngineHarness.url("a"))
        let completed = try await harness.stateOf("a")
        XCTAssertEqual(completed, .completed)
        try FileManager.default.removeItem(atPath: filePath(harness, "a", "a.bin"))
        try await harness.eventually("the disk watch fails it") { try await harness.stateOf("a") == .failed }
        let failed = try await harness.record("a")
        XCTAssertEqual(failed.error?.message, "file missing on disk: \(filePath(harness, "a", "a.bin"))")
        await harness.stop()
    }

    /// The move of forget waits for a thread of the file pool, not for the engine: with every
    /// thread busy the engine still answers, and the download stays held (a change of its
    /// files refused) until the move is done.
    func testForgetMovesTheFilesOnTheFilePoolWhileTheEngineAnswers() async throws {
        let harness = try await EngineHarness()
        try await harness.add("a")
        try await harness.complete(EngineHarness.url("a"))
        let target = harness.dataDir + "-out"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: target) }

        let gate = DispatchSemaphore(value: 0)
        let busy = Busy()
        let pool = await harness.engine.files
        let blockers = (0..<FilePool.threads).map { _ in
            Task {
                try await pool.run {
                    busy.count.withLock { $0 += 1 }
                    gate.wait()
                }
            }
        }
        try await harness.eventually("every thread of the pool is busy") { busy.count.withLock { $0 } == FilePool.threads }
        let engine = harness.engine!
        let forget = Task { try await engine.maintenance.forget(id: "a", moveTo: target) }
        try await harness.eventually("the forget holds its download") { await engine.hold("a") != nil }

        let answer = try await engine.get(id: "a")
        XCTAssertEqual(answer.state, .completed, "the engine answers while the move waits")
        XCTAssertTrue(FileManager.default.fileExists(atPath: filePath(harness, "a", "a.bin")), "nothing moved yet")
        do {
            _ = try await engine.maintenance.addSubtitles(id: "a", languages: [], textTracks: [TextTrack(uri: "http://h.test/es.vtt", language: "es")])
            XCTFail("a held download took new files")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .failedPrecondition)
            XCTAssertTrue(error.message.contains("moved out by a forget"), error.message)
        }

        for _ in blockers { gate.signal() }
        for blocker in blockers { try await blocker.value }
        let moved = try await forget.value
        XCTAssertEqual(moved.assetPath, target + "/a.bin")
        XCTAssertTrue(FileManager.default.fileExists(atPath: target + "/a.bin"))
        let hold = await engine.hold("a")
        XCTAssertNil(hold)
        do {
            _ = try await engine.get(id: "a")
            XCTFail("a forgotten download is still listed")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .notFound)
        }
        await harness.stop()
    }
}

/// Threads of the file pool a test holds.
private final class Busy: Sendable {
    let count = Mutex(0)
}

extension MaintenanceServiceTests {
    /// An adopt does its file work off the engine, after it looked at the id: an add of the
    /// same id served meanwhile wins, and the adopt puts the file back where it was.
    func testAnAddOfTheSameIDWhileAnAdoptMovesItsFileWins() async throws {
        let harness = try await EngineHarness()
        let source = harness.dataDir + "-in"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: source) }
        try Data(count: 500).write(to: URL(fileURLWithPath: source + "/kept.bin"))

        let gate = DispatchSemaphore(value: 0)
        let busy = Busy()
        let pool = await harness.engine.files
        let blockers = (0..<FilePool.threads).map { _ in
            Task {
                try await pool.run {
                    busy.count.withLock { $0 += 1 }
                    gate.wait()
                }
            }
        }
        try await harness.eventually("every thread of the pool is busy") { busy.count.withLock { $0 } == FilePool.threads }
        let engine = harness.engine!
        let adopt = Task { try await engine.maintenance.adopt(path: source + "/kept.bin", id: "x", url: "", sha256: "", link: false) }
        // The adopt has looked at the id and waits for the pool; an add of "x" comes first.
        try await harness.eventually("the adopt waits for the pool") { pool.jobs == FilePool.threads + 1 }
        try await harness.add("x")
        for _ in blockers { gate.signal() }
        for blocker in blockers { try await blocker.value }
        do {
            _ = try await adopt.value
            XCTFail("the adopt replaced the download added meanwhile")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .alreadyExists)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: source + "/kept.bin"), "the file is back where it was")
        let added = try await harness.record("x")
        XCTAssertEqual(added.uri, EngineHarness.url("x"))
        XCTAssertEqual(added.state, .preparing)
        await harness.stop()
    }
}

extension MaintenanceServiceTests {
    /// A cancel goes through a forget's hold and wins: the files it deleted cannot be moved,
    /// and the forget fails with nothing left behind.
    func testACancelWhileAForgetWaitsForThePoolWins() async throws {
        let harness = try await EngineHarness()
        try await harness.add("a")
        try await harness.complete(EngineHarness.url("a"))
        let target = harness.dataDir + "-out"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: target) }
        let gate = DispatchSemaphore(value: 0)
        let busy = Busy()
        let pool = await harness.engine.files
        let blockers = (0..<FilePool.threads).map { _ in
            Task {
                try await pool.run {
                    busy.count.withLock { $0 += 1 }
                    gate.wait()
                }
            }
        }
        try await harness.eventually("every thread of the pool is busy") { busy.count.withLock { $0 } == FilePool.threads }
        let engine = harness.engine!
        let forget = Task { try await engine.maintenance.forget(id: "a", moveTo: target) }
        try await harness.eventually("the forget waits for the pool") { pool.jobs == FilePool.threads + 1 }

        try await engine.cancel(id: "a")
        for _ in blockers { gate.signal() }
        for blocker in blockers { try await blocker.value }
        do {
            _ = try await forget.value
            XCTFail("a forget of a cancelled download moved something")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .failedPrecondition, error.message)
            XCTAssertEqual(error.message, "download 'a' was cancelled while forget moved its files; nothing was moved")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: harness.dataDir + "/assets/a"))
        await harness.stop()
    }
}

extension Engine {
    /// What a maintenance service holds `id` for, if anything.
    func hold(_ id: String) -> String? {
        state.holds[id]
    }
}
