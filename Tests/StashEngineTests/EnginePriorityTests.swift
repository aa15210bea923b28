import Foundation
import StashCore
import StashFetch
import XCTest

@testable import StashEngine

/// Priority, queue position and preemption on a real engine and registry with the fetch
/// service faked (`EngineHarness`).
final class EnginePriorityTests: XCTestCase {
    private func harness(maxParallel: Int = 1, preempt: Bool = true) async throws -> EngineHarness {
        var config = DaemonConfig()
        config.maxParallel = maxParallel
        config.preempt = preempt
        return try await EngineHarness(config: config)
    }

    private func add(_ harness: EngineHarness, _ id: String, _ priority: DownloadPriority = .normal) async throws {
        _ = try await harness.engine.add(AddRequest(id: id, uri: EngineHarness.url(id), priority: priority))
        try await harness.settle()
    }

    private func queueOrder(_ harness: EngineHarness) async throws -> [String] {
        try await harness.engine.list(states: [.queued], pageSize: 1000, pageToken: "").downloads.map(\.id)
    }

    private func assertQueue(
        _ harness: EngineHarness, _ expected: [String], _ message: String = "", file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let order = try await queueOrder(harness)
        XCTAssertEqual(order, expected, message, file: file, line: line)
    }

    private func running(_ harness: EngineHarness) -> [String] {
        harness.fetch.runningURLs.map { ($0 as NSString).lastPathComponent.replacingOccurrences(of: ".bin", with: "") }
    }

    func testHigherPriorityStartsFirstAndFIFOWithinAPriority() async throws {
        let harness = try await harness(preempt: false)
        try await add(harness, "first")
        for (id, priority) in [("low1", DownloadPriority.low), ("n1", .normal), ("high1", .high), ("n2", .normal), ("high2", .high)] {
            try await add(harness, id, priority)
        }
        try await assertQueue(harness, ["high1", "high2", "n1", "n2", "low1"], "ListDownloads of QUEUED lists the run order")
        var order: [String] = []
        while let url = harness.fetch.runningURLs.first {
            order += running(harness)
            try await harness.complete(url)
        }
        XCTAssertEqual(order, ["first", "high1", "high2", "n1", "n2", "low1"])
        await harness.stop()
    }

    func testAHigherDownloadTakesTheSlotOfALowerOneWhichKeepsItsBytes() async throws {
        let harness = try await harness()
        try await add(harness, "low", .low)
        let lowURL = EngineHarness.url("low")
        let part = try XCTUnwrap(harness.fetch.transfer(lowURL)).request.finalPath + ".part"
        try FileManager.default.createDirectory(atPath: (part as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: part, contents: Data(count: 700)))
        try await add(harness, "high", .high)
        XCTAssertEqual(running(harness), ["high"])
        XCTAssertEqual(harness.fetch.stopped, [lowURL])
        let low = try await harness.record("low")
        XCTAssertEqual(low.state, .queued)
        XCTAssertEqual(low.stateReason, "waiting: high-priority download 'high' took its slot")
        XCTAssertEqual(low.downloadedBytes, 700, "its part file stays and counts")
        XCTAssertTrue(FileManager.default.fileExists(atPath: part))
        // Another low one queues behind the one put back, which comes back first.
        try await add(harness, "low2", .low)
        try await assertQueue(harness, ["low", "low2"])
        try await harness.complete(EngineHarness.url("high"))
        XCTAssertEqual(running(harness), ["low"])
        await harness.stop()
    }

    func testWithPreemptOffAHighDownloadWaitsForAFreeSlot() async throws {
        let harness = try await harness(preempt: false)
        try await add(harness, "low", .low)
        try await add(harness, "high", .high)
        XCTAssertEqual(running(harness), ["low"])
        XCTAssertEqual(harness.fetch.stopped, [])
        // Turned on while it waits: the next schedule takes the slot.
        var config = await harness.engine.config
        config.preempt = true
        _ = try await harness.engine.setConfig([("preempt", "1")])
        try await harness.settle()
        XCTAssertEqual(running(harness), ["high"])
        await harness.stop()
    }

    func testRaisingAQueuedDownloadsPriorityPreemptsAndLoweringARunningOneLetsItBeTaken() async throws {
        let harness = try await harness()
        try await add(harness, "a")
        try await add(harness, "b")
        _ = try await harness.engine.setPriority(id: "b", .high)
        try await harness.settle()
        XCTAssertEqual(running(harness), ["b"])
        let stateOfA = try await harness.stateOf("a")
        XCTAssertEqual(stateOfA, .queued)
        let lowered = try await harness.engine.setPriority(id: "b", .low)
        try await harness.settle()
        XCTAssertEqual(lowered.priority, .low)
        XCTAssertEqual(running(harness), ["a"], "a normal download waiting takes the slot of a low one")
        await harness.stop()
    }

    func testMovesWithinTheQueue() async throws {
        let harness = try await harness(preempt: false)
        for id in ["run", "a", "b", "c", "d"] { try await add(harness, id) }
        try await add(harness, "h", .high)
        try await assertQueue(harness, ["h", "a", "b", "c", "d"])
        _ = try await harness.engine.move(id: "d", .top)
        try await assertQueue(harness, ["h", "d", "a", "b", "c"], "top of its own priority")
        _ = try await harness.engine.move(id: "d", .bottom)
        try await assertQueue(harness, ["h", "a", "b", "c", "d"])
        _ = try await harness.engine.move(id: "a", .after("c"))
        try await assertQueue(harness, ["h", "b", "c", "a", "d"])
        _ = try await harness.engine.move(id: "d", .before("b"))
        try await assertQueue(harness, ["h", "d", "b", "c", "a"])
        let moved = try await harness.engine.move(id: "c", .before("h"))
        XCTAssertEqual(moved.priority, .high, "a move next to a download takes its priority")
        try await assertQueue(harness, ["c", "h", "d", "b", "a"])
        // Many moves to one spot use up the numbers between two neighbours: renumbered.
        for _ in 0..<40 {
            _ = try await harness.engine.move(id: "a", .after("d"))
            _ = try await harness.engine.move(id: "b", .after("d"))
        }
        try await assertQueue(harness, ["c", "h", "d", "b", "a"])
        try await harness.restart()
        // The interrupted one waits again where it was, first of its priority; the slot goes
        // to the first high one.
        XCTAssertEqual(running(harness), ["c"])
        try await assertQueue(harness, ["h", "run", "d", "b", "a"], "order and priority survive a restart")
        let c = try await harness.record("c")
        XCTAssertEqual(c.priority, .high)
        var order = running(harness)
        while let url = harness.fetch.runningURLs.first {
            try await harness.complete(url)
            order += running(harness)
        }
        XCTAssertEqual(order, ["c", "h", "run", "d", "b", "a"])
        await harness.stop()
    }

    func testMovesThatCannotBeAreRefusedNamingTheIdAndState() async throws {
        let harness = try await harness()
        for id in ["run", "a", "b", "p"] { try await add(harness, id) }
        _ = try await harness.engine.pause(id: "p")
        try await harness.settle()
        let runState = try await harness.stateOf("run")
        XCTAssertTrue(runState.isActive)
        let cases: [(String, QueueMove, StashError.Code, [String])] = [
            ("nope", .top, .notFound, ["'nope'"]),
            ("run", .top, .failedPrecondition, ["'run' is \(runState.name)", "QUEUED"]),
            ("p", .bottom, .failedPrecondition, ["'p'", "PAUSED"]),
            ("a", .before("a"), .invalidArgument, ["'a'", "itself"]),
            ("a", .after("ghost"), .notFound, ["'ghost'"]),
            ("a", .before("run"), .failedPrecondition, ["'run' is \(runState.name)", "'a'"]),
            ("a", .after("p"), .failedPrecondition, ["'p'", "PAUSED"]),
        ]
        for (id, move, code, parts) in cases {
            do {
                _ = try await harness.engine.move(id: id, move)
                XCTFail("\(id) \(move) was moved")
            } catch let error as StashError {
                XCTAssertEqual(error.code, code, "\(id) \(move): \(error.message)")
                for part in parts { XCTAssertTrue(error.message.contains(part), "\(part) not in: \(error.message)") }
            }
        }
        try await assertQueue(harness, ["a", "b"], "nothing moved")
        await harness.stop()
    }

    /// Records as a registry from before priorities holds them: normal, every position 0.
    func testARegistryFromBeforePrioritiesRunsInCreationOrder() async throws {
        var config = DaemonConfig()
        config.maxParallel = 1
        let harness = try await EngineHarness(config: config) { _, registry in
            let downloads = ["c1", "c2", "c3", "c4"].map { id in
                Download(id: id, uri: EngineHarness.url(id), state: .queued, assetPath: "assets/\(id)/\(id).bin", createdAt: Date(timeIntervalSince1970: 1),
                         files: [DownloadFile(url: EngineHarness.url(id), path: "\(id).bin")])
            }
            try await registry.save(downloads)
        }
        XCTAssertEqual(running(harness), ["c1"])
        try await assertQueue(harness, ["c2", "c3", "c4"])
        // Ties have no number between them: a move renumbers them, in their order.
        _ = try await harness.engine.move(id: "c4", .before("c3"))
        try await assertQueue(harness, ["c2", "c4", "c3"])
        try await add(harness, "new")
        try await assertQueue(harness, ["c2", "c4", "c3", "new"])
        await harness.stop()
    }

    /// Positions read back from a registry may be any Int64: a move between the farthest apart
    /// lands between them (their difference used to overflow and trap).
    func testAMoveBetweenPositionsAtTheEndsOfInt64() throws {
        var state = EngineStateTests.makeState { $0.maxParallel = 1 }
        for (id, position) in [("first", Int64.min + 1), ("low", Int64(-10)), ("mover", Int64(5)), ("high", Int64.max)] {
            var download = Download(
                id: id, uri: "http://h.test/\(id)", state: .queued, assetPath: "assets/\(id)/\(id)",
                files: [DownloadFile(url: "http://h.test/\(id)", path: id)])
            download.queuePosition = position
            state.entries.cache.commit(id, download)
            _ = try state.on(.load(download))
        }
        _ = try state.on(.move("mover", .after("low")))
        let moved = try XCTUnwrap(state.entries["mover"]?.download.queuePosition)
        XCTAssertGreaterThan(moved, -10, "after 'low'")
        XCTAssertLessThan(moved, Int64.max, "before 'high'")
    }
}
