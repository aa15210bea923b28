import Foundation
import StashCore
import StashFetch
import XCTest

@testable import StashEngine

/// SetDownload's changes other than the priority (`EngineState+Update`), on a real engine and
/// registry with the fetch service faked (`EngineHarness`).
final class EngineUpdateTests: XCTestCase {
    func testANewRateLimitReachesTheRunningTransfersIsKeptAndGoesWithLaterOnes() async throws {
        let harness = try await EngineHarness()
        let url = EngineHarness.url("a")
        _ = try await harness.add("a")
        XCTAssertEqual(harness.fetch.transfer(url)?.request.groupRateLimit, 0)

        let changed = try await harness.engine.setRateLimit(id: "a", 1 << 20)
        XCTAssertEqual(changed.rateLimit, 1 << 20)
        XCTAssertEqual(harness.fetch.stopped, [], "the download keeps running")
        XCTAssertEqual(harness.fetch.groupRateLimits["a"], 1 << 20, "its running transfers take the limit at once")
        XCTAssertEqual(harness.fetch.started, [url], "no transfer is restarted for it")

        try await harness.restart()
        let restarted = try await harness.record("a")
        XCTAssertEqual(restarted.rateLimit, 1 << 20, "the limit survives a restart")
        try await harness.eventually("a restarted transfer") { harness.fetch.transfer(url) != nil }
        XCTAssertEqual(harness.fetch.transfer(url)?.request.groupRateLimit, 1 << 20, "a later transfer brings it in its request")

        _ = try await harness.engine.setRateLimit(id: "a", 0)
        XCTAssertEqual(harness.fetch.groupRateLimits["a"], 0, "0 lifts it")
        let lifted = try await harness.record("a")
        XCTAssertEqual(lifted.rateLimit, 0)
        await harness.stop()
    }

    func testExtremeRatesAreTakenAndBadOnesRefusedNamingFieldAndValue() async throws {
        let harness = try await EngineHarness()
        _ = try await harness.add("a")
        for rate: Int64 in [1, .max, 0] {
            let changed = try await harness.engine.setRateLimit(id: "a", rate)
            XCTAssertEqual(changed.rateLimit, rate)
        }
        do {
            _ = try await harness.engine.setRateLimit(id: "a", -1)
            XCTFail("a negative rate is refused")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertTrue(error.message.contains("rate_limit: -1"), error.message)
        }
        do {
            _ = try await harness.engine.setRateLimit(id: "nope", 1000)
            XCTFail("an unknown id is refused")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .notFound)
            XCTAssertTrue(error.message.contains("nope"), error.message)
        }
        let kept = try await harness.record("a")
        XCTAssertEqual(kept.rateLimit, 0, "a refusal changes nothing")
        await harness.stop()
    }

    /// A part file of `bytes` bytes for the running transfer of `url`: what a stop measures.
    private func writePart(_ harness: EngineHarness, _ url: String, bytes: Int) throws {
        let path = try XCTUnwrap(harness.fetch.transfer(url)).request.partPath
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: bytes)))
    }

    func testANewURLRestartsARunningDownloadThereAndSaysWhyWhenItsServerStartsOver() async throws {
        let harness = try await EngineHarness()
        let old = EngineHarness.url("a")
        let new = EngineHarness.url("a", host: "mirror.test")
        _ = try await harness.add("a")
        harness.fetch.respond(old, total: 1000)
        try writePart(harness, old, bytes: 400)
        harness.fetch.progress(old, bytes: 400)
        try await harness.settle()

        let changed = try await harness.engine.setURI(id: "a", new)
        XCTAssertEqual(changed.uri, new)
        XCTAssertEqual(changed.files.map(\.url), [new], "its file is fetched from the new URL")
        XCTAssertEqual(harness.fetch.stopped, [old], "the transfer on the old URL stops")
        try await harness.eventually("a transfer on the new URL") { harness.fetch.transfer(new) != nil }
        let resumed = try await harness.record("a")
        XCTAssertEqual(resumed.files[0].downloadedBytes, 400, "the bytes held are kept for the new URL's If-Range")

        harness.fetch.respond(new, total: 1000, resumedFrom: 0)
        try await harness.settle()
        let restarted = try await harness.record("a")
        XCTAssertEqual(restarted.stateReason, "the new URL's content differs; started again")

        try await harness.restart()
        let stored = try await harness.record("a")
        XCTAssertEqual(stored.uri, new, "the new URL survives a restart")
        XCTAssertEqual(stored.files.map(\.url), [new])
        await harness.stop()
    }

    func testAFailedDownloadStaysFailedUntilResumedAndAForbiddenOneSaysHowToRenewItsURL() async throws {
        let harness = try await EngineHarness()
        let old = EngineHarness.url("a")
        let new = EngineHarness.url("a", host: "mirror.test")
        _ = try await harness.add("a")
        harness.fetch.send(old, .failed(DownloadError(.http, "HTTP 403 Forbidden", httpStatus: 403)))
        try await harness.settle()
        let failed = try await harness.record("a")
        XCTAssertEqual(failed.state, .failed)
        XCTAssertTrue(try XCTUnwrap(failed.error).message.contains("stash set a --uri URL, then stash resume a"), failed.error?.message ?? "")

        let changed = try await harness.engine.setURI(id: "a", new)
        XCTAssertEqual(changed.state, .failed, "a failed download waits for its resume")
        XCTAssertNil(harness.fetch.transfer(new))
        _ = try await harness.engine.resume(id: "a")
        try await harness.eventually("a transfer on the new URL") { harness.fetch.transfer(new) != nil }
        await harness.stop()
    }

    /// A new URL's mark is stored with its file: after a restart the file still resumes on its
    /// size alone (its server gave no validators) and a server that starts it over is still
    /// said to serve other content. Both were in memory only, and a restart forgot them.
    func testANewURLsMarkSurvivesARestart() async throws {
        let harness = try await EngineHarness()
        let old = EngineHarness.url("a")
        let new = EngineHarness.url("a", host: "mirror.test")
        _ = try await harness.add("a")
        harness.fetch.send(old, .failed(DownloadError(.http, "HTTP 403 Forbidden", httpStatus: 403)))
        try await harness.settle()
        _ = try await harness.engine.setURI(id: "a", new)

        try await harness.restart()
        let stored = try await harness.record("a")
        XCTAssertEqual(stored.files.map(\.newURL), [true], "the mark is stored with the file")
        _ = try await harness.engine.resume(id: "a")
        try await harness.eventually("a transfer on the new URL") { harness.fetch.transfer(new) != nil }
        XCTAssertEqual(harness.fetch.transfer(new)?.request.resumeOnSize, true, "a file without validators resumes on its size")
        try writePart(harness, new, bytes: 400)
        harness.fetch.progress(new, bytes: 400)
        try await harness.settle()
        try await harness.restart()
        try await harness.eventually("a transfer on the new URL again") { harness.fetch.transfer(new) != nil }
        harness.fetch.respond(new, total: 1000, resumedFrom: 0)
        try await harness.settle()
        let restarted = try await harness.record("a")
        XCTAssertEqual(restarted.stateReason, "the new URL's content differs; started again")
        XCTAssertEqual(restarted.files.map(\.newURL), [false], "answered, the mark goes")
        try await harness.restart()
        try await harness.eventually("a transfer after the mark went") { harness.fetch.transfer(new) != nil }
        XCTAssertEqual(harness.fetch.transfer(new)?.request.resumeOnSize, false)
        await harness.stop()
    }

    func testAURLIsRefusedNamingFieldAndValueForABadURLABundleAndAnUnknownId() async throws {
        let harness = try await EngineHarness()
        _ = try await harness.add("a")
        _ = try await harness.addBundle("b", urls: [EngineHarness.url("b1")])
        let refusals: [(String, String, StashError.Code, String)] = [
            ("a", "ftp://h.test/a.bin", .invalidArgument, "unsupported scheme 'ftp'"),
            ("a", "not a url", .invalidArgument, "uri 'not a url'"),
            ("b", "http://h.test/b.bin", .invalidArgument, "--file"),
            ("nope", "http://h.test/n.bin", .notFound, "nope"),
        ]
        for (id, uri, code, text) in refusals {
            do {
                _ = try await harness.engine.setURI(id: id, uri)
                XCTFail("\(uri) for \(id) is refused")
            } catch let error as StashError {
                XCTAssertEqual(error.code, code, error.message)
                XCTAssertTrue(error.message.contains(text), error.message)
            }
        }
        let kept = try await harness.record("a")
        XCTAssertEqual(kept.uri, EngineHarness.url("a"), "a refusal changes nothing")
        XCTAssertEqual(harness.fetch.stopped, [])
        await harness.stop()
    }
}
