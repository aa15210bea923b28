import Foundation
import StashCore
import StashFetch
import XCTest

@testable import StashEngine

/// SetDownload's headers and licence headers (`EngineState+Headers`), on a real engine and
/// registry with the fetch service faked (`EngineHarness`).
final class EngineHeadersTests: XCTestCase {
    private static func header(_ name: String, _ value: String) -> HTTPHeader { HTTPHeader(name: name, value: value) }

    func testNewHeadersReplaceThoseOfTheirNameRestartARunningDownloadOnThemAndAreKept() async throws {
        let harness = try await EngineHarness()
        let url = EngineHarness.url("a")
        _ = try await harness.engine.add(AddRequest(
            id: "a", uri: url, title: "", sha256: "", headers: [Self.header("Authorization", "Bearer old"), Self.header("X-App", "7")]))
        try await harness.settle()
        harness.fetch.respond(url, total: 1000)
        harness.fetch.progress(url, bytes: 400)
        try await harness.settle()

        let changed = try await harness.engine.setHeaders(id: "a", HeaderChange(headers: [Self.header("authorization", "Bearer new")]))
        XCTAssertEqual(changed.headers, [Self.header("authorization", "Bearer new"), Self.header("X-App", "7")], "replaced in place, in any case")
        XCTAssertEqual(harness.fetch.stopped, [url], "the transfer with the old header stops")
        try await harness.eventually("a transfer with the new header") {
            harness.fetch.transfer(url)?.request.headers.contains(Self.header("authorization", "Bearer new")) == true
        }

        let cleared = try await harness.engine.setHeaders(id: "a", HeaderChange(headers: [Self.header("X-Other", "1")], clear: true))
        XCTAssertEqual(cleared.headers, [Self.header("X-Other", "1")], "clear drops them all before the new one")
        try await harness.restart()
        let stored = try await harness.record("a")
        XCTAssertEqual(stored.headers, [Self.header("X-Other", "1")], "the headers survive a restart")
        let none = try await harness.engine.setHeaders(id: "a", HeaderChange(clear: true))
        XCTAssertEqual(none.headers, [])
        await harness.stop()
    }

    func testAPausedDownloadTakesItsNewHeadersAtItsResumeWithoutARestartNow() async throws {
        let harness = try await EngineHarness()
        let url = EngineHarness.url("p")
        _ = try await harness.add("p")
        _ = try await harness.engine.pause(id: "p")
        try await harness.settle()
        let stoppedBefore = harness.fetch.stopped.count
        let changed = try await harness.engine.setHeaders(id: "p", HeaderChange(headers: [Self.header("X-Token", "t2")]))
        XCTAssertEqual(changed.state, .paused)
        XCTAssertEqual(harness.fetch.stopped.count, stoppedBefore)
        _ = try await harness.engine.resume(id: "p")
        try await harness.eventually("a transfer with the new header") {
            harness.fetch.transfer(url)?.request.headers == [Self.header("X-Token", "t2")]
        }
        await harness.stop()
    }

    func testBadHeadersAreRefusedNamingTheHeaderTheValueAndTheRuleAndChangeNothing() async throws {
        let harness = try await EngineHarness()
        _ = try await harness.add("a")
        let big = String(repeating: "v", count: 100 * 1024)
        let many = (0...64).map { Self.header("X-H\($0)", "1") }
        let refusals: [(String, [HTTPHeader], StashError.Code, [String])] = [
            ("a", [Self.header("", "v")], .invalidArgument, ["headers[0]", "header name ''", "HTTP token"]),
            ("a", [Self.header("X-Ok", "1"), Self.header("X-Bad", "a\r\nInjected: yes")], .invalidArgument,
             ["headers[1]", "header 'X-Bad'", "'a\\r\\nInjected: yes'", "CR, LF or NUL"]),
            ("a", [Self.header("X-Big", big)], .invalidArgument, ["header 'X-Big'", "102400 bytes", "the limit is 8192"]),
            ("a", [Self.header("Bad Name", "v")], .invalidArgument, ["'Bad Name'", "HTTP token"]),
            ("a", many, .invalidArgument, ["65 of them", "the limit is 64"]),
            ("nope", [Self.header("X-Ok", "1")], .notFound, ["nope"]),
        ]
        for (id, headers, code, parts) in refusals {
            do {
                _ = try await harness.engine.setHeaders(id: id, HeaderChange(headers: headers))
                XCTFail("\(headers.prefix(2)) for \(id) is refused")
            } catch let error as StashError {
                XCTAssertEqual(error.code, code, error.message)
                for part in parts { XCTAssertTrue(error.message.contains(part), "\(part) not in \(error.message)") }
                XCTAssertLessThan(error.message.utf8.count, 600, "a long value is cut in the message")
            }
        }
        let kept = try await harness.record("a")
        XCTAssertEqual(kept.headers, [], "a refusal changes nothing")
        XCTAssertEqual(harness.fetch.stopped, [])
        await harness.stop()
    }

    func testLicenceHeadersAreRefusedForADownloadWithoutALicenceServer() async throws {
        let harness = try await EngineHarness()
        _ = try await harness.add("a")
        do {
            _ = try await harness.engine.setLicenseHeaders(id: "a", HeaderChange(headers: [Self.header("Authorization", "Bearer t")]))
            XCTFail("a download without DRM has no licence requests")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertTrue(error.message.contains("license_headers: 'a' has no licence server"), error.message)
        }
        await harness.stop()
    }

    /// Each change of a download's settings is an event for its subscribers, in order, with
    /// the record after it; a change that restarts the download is a state change after it.
    func testEachSettingsChangeIsAnEventWithTheRecordAfterIt() async throws {
        let harness = try await EngineHarness()
        _ = try await harness.add("a")
        let events = await harness.engine.subscribe(ids: ["a"], minProgressStep: 0, minIntervalMs: 0, replayFrom: 0)
        _ = try await harness.engine.setRateLimit(id: "a", 1 << 20)
        _ = try await harness.engine.setPriority(id: "a", .high)
        _ = try await harness.engine.setHeaders(id: "a", HeaderChange(headers: [Self.header("X-Token", "t2")]))
        _ = try await harness.engine.setURI(id: "a", EngineHarness.url("a", host: "mirror.test"))
        _ = try await harness.engine.setRateLimit(id: "a", 1 << 20)
        _ = try await harness.engine.setPriority(id: "a", .low)
        var seen: [String] = []
        for try await event in events {
            switch event.kind {
            case .settingsChanged(let download, let changed):
                seen.append(changed.joined(separator: ","))
                if changed == ["headers"] { XCTAssertEqual(download.headers, [Self.header("X-Token", "t2")]) }
                if changed == ["priority"] { XCTAssertNotEqual(download.priority, .normal) }
                if changed == ["rate_limit"] { XCTAssertEqual(download.rateLimit, 1 << 20) }
            case .stateChanged(let download, _):
                seen.append(download.state.name)
            default:
                continue
            }
            if seen.filter({ $0 == "priority" }).count == 2 { break }
        }
        XCTAssertEqual(Array(seen.prefix(4)), ["rate_limit", "priority", "headers", "QUEUED"], "the headers' restart after their event")
        XCTAssertTrue(seen.contains("uri"), "\(seen)")
        XCTAssertEqual(seen.filter { $0 == "rate_limit" }.count, 1, "a limit set again to its value is no change")
        events.cancel()
        await harness.stop()
    }

    /// A transfer refused with 401 asks for credentials: its error names --header beside --uri.
    func testADownloadFailedWith401SaysHowToGiveANewToken() async throws {
        let harness = try await EngineHarness()
        let url = EngineHarness.url("a")
        _ = try await harness.add("a")
        harness.fetch.send(url, .failed(DownloadError(.http, "HTTP 401 Unauthorized", httpStatus: 401)))
        try await harness.settle()
        let failed = try await harness.record("a")
        let message = try XCTUnwrap(failed.error).message
        XCTAssertTrue(message.contains("stash set a --uri URL (or its token: --header 'Name: value'), then stash resume a"), message)
        await harness.stop()
    }
}
