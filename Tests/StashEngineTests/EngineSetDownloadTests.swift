import Foundation
import StashCore
import StashFetch
import XCTest

@testable import StashEngine

/// SetDownload with several fields is one change, applied whole or not at all
/// (`EngineState+SetDownload`), on a real engine and registry with the fetch service faked.
final class EngineSetDownloadTests: XCTestCase {
    /// A good URL with licence headers the download cannot take (it has no licence server):
    /// the URL was applied and stored before the headers were refused.
    func testAGoodURLWithHeadersItCannotTakeChangesNothing() async throws {
        let harness = try await EngineHarness()
        let old = EngineHarness.url("a")
        _ = try await harness.add("a")
        let events = await harness.engine.subscribe(ids: ["a"], minProgressStep: 0, minIntervalMs: 0, replayFrom: 0)
        let changes = DownloadChanges(
            id: "a", rateLimit: 1 << 20, uri: EngineHarness.url("a", host: "mirror.test"),
            headers: HeaderChange(headers: [HTTPHeader(name: "X-Token", value: "t2")]),
            licenseHeaders: HeaderChange(headers: [HTTPHeader(name: "Authorization", value: "Bearer t")]))
        do {
            _ = try await harness.engine.set(changes)
            XCTFail("licence headers for a download without DRM are refused")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertTrue(error.message.contains("license_headers: 'a' has no licence server"), error.message)
        }
        let kept = try await harness.record("a")
        XCTAssertEqual(kept.uri, old)
        XCTAssertEqual(kept.headers, [])
        XCTAssertEqual(kept.rateLimit, 0)
        XCTAssertEqual(harness.fetch.stopped, [], "the transfer on the old URL runs on")
        try await harness.restart()
        let stored = try await harness.record("a")
        XCTAssertEqual(stored.uri, old, "nothing was stored")
        events.cancel()
        await harness.stop()
    }

    /// The fields of one request are applied together: one save of the final record, then the
    /// event of each field that changed, in order, each with its record.
    func testSeveralFieldsAreOneChangeWithAnEventEach() async throws {
        let harness = try await EngineHarness()
        _ = try await harness.add("a")
        let events = await harness.engine.subscribe(ids: ["a"], minProgressStep: 0, minIntervalMs: 0, replayFrom: 0)
        let new = EngineHarness.url("a", host: "mirror.test")
        let changed = try await harness.engine.set(DownloadChanges(
            id: "a", priority: .high, rateLimit: 1 << 20, uri: new, headers: HeaderChange(headers: [HTTPHeader(name: "X-Token", value: "t2")])))
        XCTAssertEqual(changed.uri, new)
        XCTAssertEqual(changed.priority, .high)
        XCTAssertEqual(changed.rateLimit, 1 << 20)
        XCTAssertEqual(changed.headers, [HTTPHeader(name: "X-Token", value: "t2")])
        var seen: [String] = []
        for try await event in events {
            if case .settingsChanged(_, let fields) = event.kind { seen += fields }
            if seen.count == 4 { break }
        }
        XCTAssertEqual(seen, ["uri", "headers", "rate_limit", "priority"])
        try await harness.restart()
        let stored = try await harness.record("a")
        XCTAssertEqual(stored.uri, new)
        XCTAssertEqual(stored.priority, .high)
        XCTAssertEqual(stored.rateLimit, 1 << 20)
        XCTAssertEqual(stored.headers, [HTTPHeader(name: "X-Token", value: "t2")])
        await harness.stop()
    }
}
