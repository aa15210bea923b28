import Foundation
import StashCore
import XCTest

@testable import StashEngine

/// AddDownloads pipelined on a connection are added in one turn on the engine
/// (`Engine.add(_: [AddRequest])`): each is answered as it would be alone, in the order given.
final class AddBurstTests: XCTestCase {
    func testABurstAnswersEachAddAsAloneInItsOrder() async throws {
        let harness = try await EngineHarness(config: DaemonConfig())
        _ = try await harness.add("old")
        let answers = await harness.engine.add([
            AddRequest(id: "a", uri: EngineHarness.url("a")),
            AddRequest(id: "bad", uri: "ftp://h.test/x.bin"),
            // The same content as "a", a moment later in the same burst: "a" is the answer.
            AddRequest(uri: EngineHarness.url("a")),
            AddRequest(id: "old", uri: EngineHarness.url("old")),
            AddRequest(uri: EngineHarness.url("new")),
        ])
        XCTAssertEqual(answers.count, 5)
        let a = try answers[0].get()
        XCTAssertEqual([a.download.id, "\(a.created)"], ["a", "true"])
        XCTAssertThrowsError(try answers[1].get()) { error in
            XCTAssertEqual((error as? StashError)?.code, .invalidArgument)
            XCTAssertTrue("\(error)".contains("ftp://h.test/x.bin"), "\(error)")
        }
        let held = try answers[2].get()
        XCTAssertEqual([held.download.id, "\(held.created)"], ["a", "false"], "one download for the content")
        let old = try answers[3].get()
        XCTAssertEqual([old.download.id, "\(old.created)"], ["old", "false"])
        let new = try answers[4].get()
        XCTAssertTrue(new.created)
        XCTAssertEqual(new.download.uri, EngineHarness.url("new"))
        XCTAssertEqual(new.download.id.count, 12, "a generated id")

        // Every new one is committed and queued, as one added alone is.
        try await harness.settle()
        XCTAssertEqual(Set(harness.fetch.started), Set(["old", "a", "new"].map { EngineHarness.url($0) }))
        try await harness.restart()
        for id in ["a", new.download.id] { _ = try await harness.record(id) }
        await harness.stop()
    }
}
