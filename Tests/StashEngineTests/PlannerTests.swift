import Foundation
import StashCore
import StashFetch
import XCTest

@testable import StashEngine

/// Plannings (`Planner`) on the harness: a planning's result reaches the state, and a removal
/// waits for a planning it stopped.
final class PlannerTests: XCTestCase {
    private static let playlist = """
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-TARGETDURATION:2
        #EXTINF:2.0,
        seg0.ts
        #EXTINF:2.0,
        seg1.ts
        #EXT-X-ENDLIST

        """

    private static func answer(_ request: FetchRequest) -> FetchedBody {
        FetchedBody(bytes: Array(playlist.utf8), effectiveURL: request.url, contentType: "application/vnd.apple.mpegurl")
    }

    func testAPlanningsResultStartsTheSegmentsAndAFailureFailsTheDownload() async throws {
        let harness = try await EngineHarness()
        harness.fetch.answerBodies { request in
            guard request.url.hasPrefix("http://h.test/film") else { throw DownloadError(.validation, "\(request.url) is not a playlist") }
            return Self.answer(request)
        }
        _ = try await harness.engine.add(AddRequest(id: "film", uri: "http://h.test/film.m3u8"))
        try await harness.eventually("the segments are fetched") {
            Set(harness.fetch.runningURLs) == ["http://h.test/seg0.ts", "http://h.test/seg1.ts"]
        }
        _ = try await harness.engine.add(AddRequest(id: "bad", uri: "http://h.test/bad.m3u8"))
        try await harness.eventually("FAILED") { try await harness.stateOf("bad") == .failed }
        let failed = try await harness.record("bad")
        XCTAssertTrue(failed.error?.message.contains("is not a playlist") == true, "\(String(describing: failed.error))")
        await harness.stop()
    }

    /// A cancel while the playlists are read stops the planning and deletes the folder only
    /// once the planning has ended (it may be writing playlists there); its late result
    /// starts nothing.
    func testACancelWaitsForThePlanningItStopped() async throws {
        let harness = try await EngineHarness()
        let gate = DispatchSemaphore(value: 0)
        harness.fetch.answerBodies { request in
            gate.wait()
            return Self.answer(request)
        }
        let engine = harness.engine!
        _ = try await engine.add(AddRequest(id: "film", uri: "http://h.test/film.m3u8"))
        try await poll("the playlist is asked for") { harness.fetch.bodyRequests.count == 1 }
        let cancel = Task { try await engine.cancel(id: "film") }
        try await poll("REMOVING is committed") { engine.has(id: "film").state == .removing }
        let stopping = await engine.teardowns.count
        XCTAssertEqual(stopping, 1, "the planning is being stopped")
        XCTAssertTrue(engine.has(id: "film").exists, "the removal waits for the planning")
        gate.signal()
        try await cancel.value
        XCTAssertFalse(engine.has(id: "film").exists)
        XCTAssertFalse(FileManager.default.fileExists(atPath: harness.dataDir + "/assets/film"))
        XCTAssertEqual(harness.fetch.started, [], "no segment of a cancelled download is fetched")
        for _ in 0..<8 { gate.signal() }
        await harness.stop()
    }

    /// Polls without the harness's settle, which would wait for the stopped planning.
    private func poll(_ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () async -> Bool) async throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if await condition() { return }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        XCTFail("never: \(what)", file: file, line: line)
    }
}
