import StashCore
import XCTest

@testable import StashEngine

/// Requests over many downloads: which downloads each acts on (`EngineState.ids(for:)`), and
/// the run of single requests over them (`BulkRequest.run`).
final class BulkRequestTests: XCTestCase {
    /// Downloads in groups and states: q QUEUED in a, p PAUSED in a/b, s STOPPED in a, f
    /// FAILED in a-2, d active in "", r REMOVING in a.
    private func makeState() throws -> EngineState {
        var state = EngineStateTests.makeState { $0.maxParallel = 1 }
        func load(_ id: String, _ downloadState: DownloadState, group: String) throws {
            var download = EngineStateTests.download(id, state: downloadState)
            download.group = group
            _ = try state.on(.load(download))
        }
        _ = try EngineStateTests.add(EngineStateTests.download("d"), to: &state)
        try load("q", .queued, group: "a")
        try load("p", .paused, group: "a/b")
        try load("s", .stopped, group: "a")
        try load("f", .failed, group: "a-2")
        try load("r", .removing, group: "a")
        return state
    }

    func testEachRequestActsOnTheStatesItChangesOldestFirst() throws {
        let state = try makeState()
        XCTAssertEqual(state.ids(for: .pauseAll), ["d", "q"])
        XCTAssertEqual(state.ids(for: .resumeAll), ["p", "f"], "never STOPPED: only its own resume lifts an app's stop")
        XCTAssertEqual(state.ids(for: .cancelAll), ["d", "q", "p", "s", "f"], "not what is being removed already")
        XCTAssertEqual(state.ids(for: try .resume(group: "a", includeFailed: false)), ["p"])
        XCTAssertEqual(state.ids(for: try .resume(group: "a-2", includeFailed: true)), ["f"])
        XCTAssertEqual(state.ids(for: try .cancel(group: "a")), ["q", "p", "s"], "a/b is under a, a-2 is not")
        XCTAssertEqual(state.ids(for: try .pause(group: "a/b")), [])
    }

    func testAGroupRequestNamesTheRequestForEveryDownload() {
        XCTAssertThrowsError(try BulkRequest.pause(group: "")) { XCTAssertTrue("\($0)".contains("use PauseAll"), "\($0)") }
        XCTAssertThrowsError(try BulkRequest.resume(group: "", includeFailed: true)) { XCTAssertTrue("\($0)".contains("use ResumeAll"), "\($0)") }
        XCTAssertThrowsError(try BulkRequest.cancel(group: "/x")) { XCTAssertEqual(($0 as? StashError)?.code, .invalidArgument) }
    }

    /// A download whose state moved on while the run went through the list is passed and not
    /// counted; any other error ends the run.
    func testARunCountsWhatChangedAndPassesWhatMovedOn() async throws {
        let engine = Recorder(refusals: ["b": StashError(.failedPrecondition, "b is PAUSED"), "c": StashError.notFound(id: "c")])
        let count = try await BulkRequest.pauseAll.run(over: ["a", "b", "c", "d"], on: engine)
        XCTAssertEqual(count, 2)
        let asked = await engine.asked
        XCTAssertEqual(asked, ["pause a", "pause b", "pause c", "pause d"])
        let failing = Recorder(refusals: ["b": StashError(.internal, "disk")])
        do {
            _ = try await BulkRequest.cancelAll.run(over: ["a", "b", "c"], on: failing)
            XCTFail("an INTERNAL error ends the run")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .internal)
        }
        let cancelled = await failing.asked
        XCTAssertEqual(cancelled, ["cancel a", "cancel b"])
    }
}

/// Single requests recorded, with the refusals a test gives.
private actor Recorder: SingleRequests {
    let refusals: [String: StashError]
    var asked: [String] = []

    init(refusals: [String: StashError]) { self.refusals = refusals }

    private func answer(_ verb: String, _ id: String) throws -> Download {
        asked.append("\(verb) \(id)")
        if let refusal = refusals[id] { throw refusal }
        return EngineStateTests.download(id)
    }

    func pause(id: String) throws -> Download { try answer("pause", id) }
    func resume(id: String) throws -> Download { try answer("resume", id) }
    func cancel(id: String) throws { _ = try answer("cancel", id) }
}
