import Foundation
import StashCore
import StashFetch
import StashTestSupport
import XCTest

/// Parts of a resource (HLS byte ranges) and bodies kept in memory (playlists, keys).
final class FetchRangeAndMemoryTests: FetchTestCase {
    private func rangeRequest(_ path: String, offset: Int64, length: Int64, name: String = "part.ts") -> FetchRequest {
        var request = request(path, name: name)
        request.range = FetchRange(offset: offset, length: length)
        return request
    }

    /// The final event is delivered just before the transfer is counted out.
    private func assertNoTransferLeft(file: StaticString = #filePath, line: UInt = #line) async throws {
        for _ in 0..<100 where workers.activeTransfers > 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        XCTAssertEqual(workers.activeTransfers, 0, file: file, line: line)
    }

    func testARangeFetchesExactlyItsBytesWithAClosedRange() async throws {
        let body = TestBody.pattern(size: 10_000, seed: 11)
        server.serve(path: "/all.ts", route: TestRoute(body: body, etag: "\"r\""))
        let request = rangeRequest("/all.ts", offset: 3000, length: 2500)
        let recorder = await fetch(request)
        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 2500, sha256: ""))
        XCTAssertEqual(contents(request.finalPath), body.slice(3000..<5500))
        XCTAssertEqual(server.requests(for: "/all.ts").map { $0.header("Range") }, ["bytes=3000-5499"])
        XCTAssertEqual(recorder.started.first?.totalBytes, 2500)
    }

    func testAnInterruptedRangeResumesInsideTheRange() async throws {
        let body = TestBody.pattern(size: 200_000, seed: 12)
        var route = TestRoute(body: body, etag: "\"r2\"")
        route.resetAfterBytes = 30_000
        route.resetTimes = 1
        server.serve(path: "/all.ts", route: route)
        let request = rangeRequest("/all.ts", offset: 50_000, length: 100_000)
        let recorder = await fetch(request)
        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 100_000, sha256: ""))
        XCTAssertEqual(contents(request.finalPath), body.slice(50_000..<150_000))
        let ranges = server.requests(for: "/all.ts").map { $0.header("Range") ?? "" }
        XCTAssertEqual(ranges.first, "bytes=50000-149999")
        XCTAssertEqual(ranges.count, 2, "\(ranges)")
        let resumedFrom = try XCTUnwrap(Int(ranges[1].dropFirst("bytes=".count).prefix { $0 != "-" }))
        XCTAssertGreaterThan(resumedFrom, 50_000, "the second request continues inside the range: \(ranges)")
        XCTAssertTrue(ranges[1].hasSuffix("-149999"), ranges[1])
        XCTAssertEqual(server.requests(for: "/all.ts")[1].header("If-Range"), "\"r2\"")
    }

    func testAServerThatIgnoresRangeFailsTheRangeWithoutRetrying() async throws {
        var route = TestRoute(body: .pattern(size: 10_000, seed: 13))
        route.honourRange = false
        server.serve(path: "/norange.ts", route: route)
        let request = rangeRequest("/norange.ts", offset: 100, length: 50)
        let recorder = await fetch(request)
        guard case .failed(let error) = recorder.finalEvent else { return XCTFail("expected failure: \(recorder.events)") }
        XCTAssertTrue(error.message.contains("without the byte range 100-149"), error.message)
        XCTAssertEqual(server.requests(for: "/norange.ts").count, 1)
        XCTAssertFalse(exists(request.finalPath))
    }

    func testABodyInMemoryComesWithItsURLAfterRedirectsAndItsType() async throws {
        var route = TestRoute(body: .bytes(Array("#EXTM3U\n".utf8)))
        route.contentType = "application/vnd.apple.mpegurl; charset=utf-8"
        server.serve(path: "/real/master.m3u8", route: route)
        var redirect = TestRoute(body: .bytes([]))
        redirect.redirectTo = "/real/master.m3u8"
        server.serve(path: "/short", route: redirect)
        let body = try await workers.fetchBody(.inMemory(url: server.url("/short"), limit: 1024, retry: quickRetry))
        XCTAssertEqual(body.bytes, Array("#EXTM3U\n".utf8))
        XCTAssertEqual(body.effectiveURL, server.url("/real/master.m3u8"))
        XCTAssertEqual(body.contentType, "application/vnd.apple.mpegurl")
        try await assertNoTransferLeft()
    }

    func testABodyOverItsLimitFailsAtOnce() async throws {
        server.serve(path: "/big.m3u8", route: TestRoute(body: .pattern(size: 5000, seed: 14)))
        do {
            _ = try await workers.fetchBody(.inMemory(url: server.url("/big.m3u8"), limit: 4096, retry: quickRetry))
            XCTFail("a body over the limit is refused")
        } catch let error as DownloadError {
            XCTAssertEqual(error.kind, .validation)
            XCTAssertTrue(error.message.contains("larger than 4096 bytes"), error.message)
        }
        XCTAssertEqual(server.requests(for: "/big.m3u8").count, 1, "not retried")
    }

    func testABodyThatCannotBeFetchedThrowsTheHTTPStatus() async throws {
        var route = TestRoute(body: .bytes([]))
        route.alwaysStatus = 404
        server.serve(path: "/gone.key", route: route)
        do {
            _ = try await workers.fetchBody(.inMemory(url: server.url("/gone.key"), limit: 64, retry: quickRetry))
            XCTFail("a 404 is an error")
        } catch let error as DownloadError {
            XCTAssertEqual(error.httpStatus, 404, error.message)
        }
    }

    /// A body retried outside (a download's planning) ends its fetch at the first failure that
    /// may be tried again, saying which attempt it was and how long to wait.
    func testABodyRetriedOutsideThrowsRetryLater() async throws {
        server.serve(path: "/busy.m3u8", route: TestRoute(body: .bytes(Array("#EXTM3U\n".utf8))))
        server.update(path: "/busy.m3u8") {
            $0.failStatus = 503
            $0.failTimes = 100
        }
        var request = FetchRequest.inMemory(url: server.url("/busy.m3u8"), limit: 1024, retry: quickRetry)
        request.retriesOutside = true
        request.attemptsBefore = 1
        do {
            _ = try await workers.fetchBody(request)
            XCTFail("a 503 is not a body")
        } catch let later as FetchRetryLater {
            XCTAssertEqual(later.attempt, 2, "counted on from the attempts before")
            XCTAssertEqual(later.error.httpStatus, 503, later.error.message)
            XCTAssertGreaterThan(later.delayMs, 0)
        }
        XCTAssertEqual(server.requests(for: "/busy.m3u8").count, 1, "not retried inside")
    }

    /// A fetch into memory without a limit is a programming error answered as one, not a trap.
    func testABodyWithoutALimitIsRefused() async throws {
        do {
            _ = try await workers.fetchBody(request("/any.m3u8"))
            XCTFail("no memory limit, no fetch")
        } catch let error as DownloadError {
            XCTAssertEqual(error.kind, .internal)
            XCTAssertTrue(error.message.contains("without a memory limit"), error.message)
        }
    }

    func testCancellingTheTaskStopsAMemoryFetch() async throws {
        var route = TestRoute(body: .pattern(size: 1000, seed: 15))
        route.stallAfterBytes = 10
        route.stallTimes = 1
        server.serve(path: "/stall.m3u8", route: route)
        let workers = self.workers!
        let url = server.url("/stall.m3u8")
        let retry = quickRetry
        let task = Task { try await workers.fetchBody(.inMemory(url: url, limit: 4096, retry: retry)) }
        while server.requests(for: "/stall.m3u8").isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("a cancelled fetch does not return a body")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
        server.releaseStalls()
        try await assertNoTransferLeft()
    }
}
