import Foundation
import StashCore
import XCTest

@testable import StashEngine

/// A replace takes a download slot (max-parallel) and is in the flight log while it has one
/// (`EngineState+ReplaceSlots`).
final class EngineReplaceSlotTests: XCTestCase {
    private func harness() async throws -> EngineHarness {
        var config = DaemonConfig()
        config.maxParallel = 1
        return try await EngineHarness(config: config)
    }

    private func replace(_ harness: EngineHarness, _ id: String) async throws -> Download {
        let added = try await harness.engine.add(AddRequest(id: id, uri: EngineHarness.url(id), replace: true))
        try await harness.settle()
        return added.download
    }

    private func flightLog(_ harness: EngineHarness) -> String {
        (try? String(contentsOfFile: harness.dataDir + "/stashd.flight", encoding: .utf8)) ?? ""
    }

    func testAReplaceWaitsForASlotAndHoldsOneWhileItRuns() async throws {
        let harness = try await harness()
        try await harness.add("a")
        try await harness.complete(EngineHarness.url("a"))
        try await harness.add("b")
        XCTAssertNotNil(harness.fetch.transfer(EngineHarness.url("b")), "b has the one slot")

        let waiting = try await replace(harness, "a")
        XCTAssertEqual(waiting.state, .completed)
        XCTAssertEqual(waiting.stateReason, EngineState.replaceWaitingReason)
        XCTAssertNil(harness.fetch.transfer(EngineHarness.url("a")), "no slot: the replace waits")

        try await harness.complete(EngineHarness.url("b"))
        XCTAssertNotNil(harness.fetch.transfer(EngineHarness.url("a")), "b's slot went to the replace")
        let running = try await harness.record("a")
        XCTAssertEqual(running.stateReason, EngineState.replacingReason)
        XCTAssertTrue(flightLog(harness).contains("start a\n"), flightLog(harness))

        try await harness.add("c")
        let queued = try await harness.stateOf("c")
        XCTAssertEqual(queued, .queued, "the replace holds the slot")
        try await harness.complete(EngineHarness.url("a"), bytes: 2000)
        try await harness.eventually("the replace ended") { try await harness.record("a").stateReason == EngineState.replacedReason }
        try await harness.eventually("c got the slot") { harness.fetch.transfer(EngineHarness.url("c")) != nil }
        XCTAssertTrue(flightLog(harness).contains("end a\n"), flightLog(harness))
    }

    func testCancelOfAReplaceWaitingForASlotTakesItOutOfLine() async throws {
        let harness = try await harness()
        try await harness.add("a")
        try await harness.complete(EngineHarness.url("a"))
        try await harness.add("b")
        _ = try await replace(harness, "a")
        try await harness.engine.cancel(id: "a")
        try await harness.settle()
        let record = try await harness.record("a")
        XCTAssertEqual(record.state, .completed)
        XCTAssertEqual(record.stateReason, "the replace was cancelled by a client; the old copy is kept")
        try await harness.complete(EngineHarness.url("b"))
        XCTAssertNil(harness.fetch.transfer(EngineHarness.url("a")), "the cancelled replace does not start")
        let kept = try await harness.record("a")
        XCTAssertEqual(kept.totalBytes, 1000)
    }

    /// A cancel while the new copy is being swapped in removes the download; the slot the
    /// replace held is free again, and its hold gone.
    func testACancelDuringTheSwapRemovesTheDownloadAndFreesItsSlot() throws {
        var state = EngineStateTests.makeState { $0.maxParallel = 1 }
        _ = try EngineStateTests.add(EngineStateTests.download("a"), to: &state)
        _ = try state.on(.transfer(EngineStateTests.notice(state, "a", 0, .completed(bytes: 10, sha256: ""))))
        XCTAssertEqual(state.entries["a"]?.download.state, .completed)
        _ = try state.on(.replace("a", sha256: "", files: []))
        XCTAssertTrue(state.queue.active.contains("a"))
        let generation = try XCTUnwrap(state.replacements["a"]?.generation)
        _ = try state.on(.transfer(FetchNotice(id: "a", index: 0, generation: generation, event: .completed(bytes: 20, sha256: ""))))
        XCTAssertEqual(state.replacements["a"]?.swapping, true)
        _ = try state.on(.cancel("a"))
        XCTAssertEqual(state.entries["a"]?.download.state, .removing)
        XCTAssertNil(state.replacements["a"])
        XCTAssertNil(state.holds["a"])
        XCTAssertFalse(state.queue.active.contains("a"), "the slot is free")
        XCTAssertTrue(try state.on(.replacementSwapped("a", failure: nil)).isEmpty, "the swap's end finds nothing to change")
    }
}
