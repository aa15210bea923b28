import Foundation
import StashCore
import StashFetch
import Synchronization
import XCTest

@testable import StashEngine

/// A stream whose playlist cannot be read yet waits out the retry's backoff without its
/// download slot, as a file does (`EngineState+Retry`): the planning ends with
/// `FetchRetryLater`, the download goes back to the queue, the next one runs, and the planning
/// starts again at its time with its attempts counted on.
final class EnginePlanningRetryTests: XCTestCase {
    static let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nseg0.ts\n#EXTINF:2.0,\nseg1.ts\n#EXT-X-ENDLIST\n"

    /// The playlist server: down (each planning's request ends in a retry later, 7 s) until
    /// `up`; what each request asked is kept.
    final class Server: Sendable {
        let up = Mutex(false)
        let asked = Mutex<[(retriesOutside: Bool, attemptsBefore: Int)]>([])

        func answer(_ request: FetchRequest) throws -> FetchedBody {
            asked.withLock { $0.append((request.retriesOutside, request.attemptsBefore)) }
            guard up.withLock({ $0 }) else {
                throw FetchRetryLater(attempt: request.attemptsBefore + 1, delayMs: 7000, error: DownloadError(.http, "HTTP 503 from \(request.url)"))
            }
            return FetchedBody(bytes: Array(EnginePlanningRetryTests.playlist.utf8), effectiveURL: request.url, contentType: "application/vnd.apple.mpegurl")
        }
    }

    func testAPlanningWaitingToRetryHoldsNoSlot() async throws {
        var config = DaemonConfig()
        config.maxParallel = 1
        let harness = try await EngineHarness(config: config)
        let server = Server()
        harness.fetch.answerBodies { try server.answer($0) }
        _ = try await harness.engine.add(AddRequest(id: "film", uri: "http://h.test/film.m3u8", hls: HLSOptions()))
        try await harness.add("b")
        try await harness.eventually("the next download runs while the playlist waits to retry") {
            harness.fetch.runningURLs == [EngineHarness.url("b")]
        }
        let waiting = try await harness.record("film")
        XCTAssertEqual(waiting.state, .queued, "not PREPARING: it holds no slot")
        XCTAssertEqual(waiting.stateReason, "retrying in 7000 ms after attempt 1: HTTP 503 from http://h.test/film.m3u8")

        // Its time has not come when the slot frees: nothing starts.
        try await harness.complete(EngineHarness.url("b"))
        XCTAssertEqual(harness.fetch.bodyRequests.count, 1)
        let stillWaiting = try await harness.stateOf("film")
        XCTAssertEqual(stillWaiting, .queued)

        server.up.withLock { $0 = true }
        harness.clock.advance(by: 7)
        try await harness.eventually("planned at its time, its segments fetched") {
            Set(harness.fetch.runningURLs) == ["http://h.test/seg0.ts", "http://h.test/seg1.ts"]
        }
        let asked = server.asked.withLock { $0 }
        XCTAssertEqual(asked.map(\.retriesOutside), [true, true], "a planning retries outside the fetch service")
        XCTAssertEqual(asked.map(\.attemptsBefore), [0, 1], "the second planning counts on from the first's attempt")
        for url in ["http://h.test/seg0.ts", "http://h.test/seg1.ts"] { try await harness.complete(url) }
        try await harness.eventually("COMPLETED") { try await harness.stateOf("film") == .completed }
        await harness.stop()
    }

    /// A licence server that fails while the keys are asked for: the same hand-back, its
    /// request counted as the planning's.
    func testALicenceRequestWaitingToRetryHoldsNoSlot() async throws {
        var config = DaemonConfig()
        config.maxParallel = 1
        let harness = try await EngineHarness(config: config)
        let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI=\"skd://000102030405060708090a0b0c0d0e0f\"\n"
            + "#EXTINF:2.0,\nseg0.ts\n#EXT-X-ENDLIST\n"
        let licence = Mutex<[(retriesOutside: Bool, attemptsBefore: Int)]>([])
        harness.fetch.answerBodies { request in
            guard request.postBody != nil else {
                return FetchedBody(bytes: Array(playlist.utf8), effectiveURL: request.url, contentType: "application/vnd.apple.mpegurl")
            }
            licence.withLock { $0.append((request.retriesOutside, request.attemptsBefore)) }
            throw FetchRetryLater(attempt: request.attemptsBefore + 1, delayMs: 5000, error: DownloadError(.http, "HTTP 503 from \(request.url)"))
        }
        _ = try await harness.engine.add(AddRequest(
            id: "film", uri: "http://h.test/film.m3u8", hls: HLSOptions(), drm: DRMParams(licenseServer: "http://licence.test/acquire")))
        try await harness.add("b")
        try await harness.eventually("the next download runs while the licence waits to retry") {
            harness.fetch.runningURLs == [EngineHarness.url("b")]
        }
        let waiting = try await harness.record("film")
        XCTAssertEqual(waiting.state, .queued)
        XCTAssertEqual(waiting.stateReason, "retrying in 5000 ms after attempt 1: HTTP 503 from http://licence.test/acquire")
        try await harness.complete(EngineHarness.url("b"))
        harness.clock.advance(by: 5)
        try await harness.eventually("the licence is asked for again") { licence.withLock { $0.count } == 2 }
        XCTAssertEqual(licence.withLock { $0.map(\.retriesOutside) }, [true, true])
        XCTAssertEqual(licence.withLock { $0.map(\.attemptsBefore) }, [0, 1])
        await harness.stop()
    }

    /// A planning's retry with its numbers at their extremes: every stream waits (at most a
    /// day), is planned again, and the engine goes on.
    func testAPlanningRetrysExtremeNumbersAreHeldInRange() async throws {
        var config = DaemonConfig()
        config.maxParallel = 4
        let harness = try await EngineHarness(config: config)
        let extremes = ["max": (Int.max, Int.max), "min": (Int.min, Int.min), "neg": (-1, -1), "zero": (0, 0)]
        let failed = Mutex<Set<String>>([])
        harness.fetch.answerBodies { request in
            let id = String(request.url.dropFirst("http://h.test/".count).prefix { $0 != "." })
            if let (attempt, delay) = extremes[id], failed.withLock({ $0.insert(id).inserted }) {
                throw FetchRetryLater(attempt: attempt, delayMs: delay, error: DownloadError(.network, "reset"))
            }
            return FetchedBody(bytes: Array(Self.playlist.utf8), effectiveURL: request.url, contentType: "application/vnd.apple.mpegurl")
        }
        for id in extremes.keys.sorted() {
            _ = try await harness.engine.add(AddRequest(id: id, uri: "http://h.test/\(id).m3u8", hls: HLSOptions()))
        }
        try await harness.eventually("each planning failed once") { failed.withLock { $0.count } == 4 }
        harness.clock.advance(by: 86_400)
        for id in extremes.keys.sorted() {
            try await harness.eventually("\(id) is planned again") { try await harness.record(id).filesTotal == 2 }
        }
        XCTAssertEqual(harness.fetch.bodyRequests.count, 8, "each stream's playlist asked for twice")
        await harness.stop()
    }

    /// A plan (`stash plan`) holds no slot, so its requests retry inside the fetch service.
    func testAPlanRetriesInside() async throws {
        let harness = try await EngineHarness()
        let server = Server()
        server.up.withLock { $0 = true }
        harness.fetch.answerBodies { try server.answer($0) }
        _ = try await harness.engine.manifestInfo(uri: "http://h.test/film.m3u8", headers: [])
        XCTAssertEqual(server.asked.withLock { $0.map(\.retriesOutside) }, [false])
        await harness.stop()
    }
}
