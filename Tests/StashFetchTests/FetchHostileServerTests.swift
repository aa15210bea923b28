import Foundation
import StashCore
@testable import StashFetch
import StashTestSupport
import XCTest

/// A server that answers resumes wrongly, sends more than it announced, asks for absurd waits
/// or redirects elsewhere: the file ends byte-exact or the transfer fails, never a wrong
/// file reported complete, and no number from a header traps.
final class FetchHostileServerTests: FetchTestCase {
    private let body = TestBody.pattern(size: 100_000, seed: 23)

    /// A request whose part file holds the first 50,000 bytes, validated by the route's ETag,
    /// as after a response cut halfway. No sha256: the size rules alone must hold.
    private func resumedRequest(_ path: String, partAnswer: TestPartialAnswer) throws -> FetchRequest {
        var route = TestRoute(body: body, etag: "\"v1\"")
        route.partialAnswer = partAnswer
        route.partialAnswerTimes = 1
        server.serve(path: path, route: route)
        var request = request(path)
        request.etag = "\"v1\""
        let parent = (request.partPath as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: request.partPath, contents: Data(body.slice(0..<50_000))))
        return request
    }

    private func assertWhole(_ recorder: EventRecorder, _ request: FetchRequest, file: StaticString = #filePath, line: UInt = #line) {
        guard case .completed(let bytes, _) = recorder.finalEvent else {
            return XCTFail("expected completion, got \(recorder.events)", file: file, line: line)
        }
        XCTAssertEqual(bytes, 100_000, file: file, line: line)
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count), file: file, line: line)
    }

    func testPartialAnswerWithoutContentRangeStartsAgainFromZero() async throws {
        let request = try resumedRequest("/no-range", partAnswer: .omitContentRange)
        let recorder = await fetch(request)
        assertWhole(recorder, request)
        let retry = try XCTUnwrap(recorder.retries.first)
        XCTAssertTrue(retry.error.message.contains("206 without a Content-Range"), retry.error.message)
        XCTAssertTrue(retry.error.message.contains("starting again from byte 0"), retry.error.message)
        let sent = server.requests(for: "/no-range")
        XCTAssertEqual(sent.map { $0.header("Range") }, ["bytes=50000-", nil])
    }

    func testShortPartialAnswerAsksForTheRest() async throws {
        let request = try resumedRequest("/short", partAnswer: .shortRange(bytes: 10))
        let recorder = await fetch(request)
        assertWhole(recorder, request)
        XCTAssertTrue(recorder.retries.first?.error.message.contains("up to byte 50010 of 100000") == true, "\(recorder.retries)")
        XCTAssertEqual(server.requests(for: "/short").map { $0.header("Range") }, ["bytes=50000-", "bytes=50010-"])
    }

    func testPartialAnswerNamingAnotherSizeStartsAgain() async throws {
        var request = try resumedRequest("/resized", partAnswer: .headers(contentRange: "bytes 50000-99999/200000", contentLength: "50000"))
        request.expectedSize = 100_000
        let recorder = await fetch(request)
        assertWhole(recorder, request)
        XCTAssertTrue(recorder.retries.first?.error.message.contains("now 200000 bytes, where it was 100000") == true, "\(recorder.retries)")
    }

    func testUnknownTotalAndHugeContentLengthDoNotTrap() async throws {
        let request = try resumedRequest(
            "/huge", partAnswer: .headers(contentRange: "bytes 50000-99999/*", contentLength: "\(Int64.max)"))
        let recorder = await fetch(request)
        assertWhole(recorder, request)
        XCTAssertEqual(server.requests(for: "/huge").map { $0.header("Range") }, ["bytes=50000-", nil])
    }

    func testHugeRetryAfterWaitsOnlyThePolicysMaximum() async throws {
        var route = TestRoute(body: body)
        route.failStatus = 503
        route.failTimes = 1
        route.retryAfterSeconds = 99_999_999_999_999_999
        server.serve(path: "/busy", route: route)
        var request = request("/busy")
        request.retry = RetryPolicy(maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50)
        let recorder = await fetch(request)
        assertWhole(recorder, request)
        XCTAssertEqual(recorder.retries.first?.delayMs, 50)
    }

    func testOverlongBodyDoesNotPoisonTheNextTransfers() async throws {
        var route = TestRoute(body: .pattern(size: 1_000, seed: 3))
        route.overlongBytes = 64
        route.overlongTimes = 1
        server.serve(path: "/overlong", route: route)
        server.serve(path: "/next", route: TestRoute(body: body))
        await fetch(request("/overlong", name: "first.bin"))
        // The server ends its answer once the bytes no header announced are out: from then on
        // they wait on the kept-alive connection for the next request to trip on.
        try await eventually("the overlong answer's extra bytes sent") { server.inFlightRequests == 0 }
        for index in 0..<5 {
            var request = request("/next", name: "next-\(index).bin")
            // As the engine's transfers are: the failure on the pooled connection is still
            // retried inside the transfer, on a new connection, not handed back (`.retryLater`).
            request.retriesOutside = true
            let recorder = await fetch(request)
            assertWhole(recorder, request)
            if index == 0 { XCTAssertEqual(recorder.retries.count, 1, "\(recorder.events)") }
        }
    }

    func testCustomHeadersStayOnTheirOrigin() async throws {
        server.serve(path: "/there", route: TestRoute(body: body))
        var away = TestRoute(body: body)
        away.redirectTo = server.localhostURL("/there")
        server.serve(path: "/away", route: away)
        var home = TestRoute(body: body)
        home.redirectTo = "/there"
        server.serve(path: "/home", route: home)

        var request = request("/away", name: "away.bin")
        request.headers = [HTTPHeader(name: "X-Api-Key", value: "secret-key")]
        assertWhole(await fetch(request), request)
        var sameOrigin = self.request("/home", name: "home.bin")
        sameOrigin.headers = request.headers

        assertWhole(await fetch(sameOrigin), sameOrigin)
        let there = server.requests(for: "/there")
        XCTAssertEqual(server.requests(for: "/away").first?.header("X-Api-Key"), "secret-key")
        XCTAssertEqual(there.count, 2)
        XCTAssertNil(there[0].header("X-Api-Key"), "a redirect to another host carried the header")
        XCTAssertEqual(there[1].header("X-Api-Key"), "secret-key")
    }

    func testRedirectRules() {
        XCTAssertNotNil(RedirectRule.refusal(from: "https://a.example/x", to: "http://a.example/x"))
        XCTAssertNil(RedirectRule.refusal(from: "http://a.example/x", to: "https://b.example/x"))
        XCTAssertNotNil(RedirectRule.refusal(from: "http://a.example/x", to: "file:///etc/passwd"))
        XCTAssertTrue(RedirectRule.carriesHeaders(from: "https://A.example/x", to: "https://a.example:443/y"))
        XCTAssertFalse(RedirectRule.carriesHeaders(from: "https://a.example/x", to: "https://a.example:8443/x"))
        XCTAssertFalse(RedirectRule.carriesHeaders(from: "https://a.example/x", to: "http://a.example/x"))
        XCTAssertFalse(RedirectRule.carriesHeaders(from: "https://a.example/x", to: "https://b.example/x"))
    }

    /// Every header number at and past the edges of Int64: parsed or refused, never a trap.
    func testHeaderNumbersAtTheEdges() {
        XCTAssertEqual(ResponseHeaders.digits("9223372036854775807"), Int64.max)
        XCTAssertNil(ResponseHeaders.digits("9223372036854775808"))
        XCTAssertNil(ResponseHeaders.digits("-1"))
        XCTAssertNil(ResponseHeaders.digits("+5"))
        XCTAssertNil(ResponseHeaders.digits(""))
        XCTAssertEqual(ResponseHeaders.digits("0"), 0)
        XCTAssertEqual(ResponseHeaders.retryAfter("99999999999999999"), ResponseHeaders.maxRetryAfterSeconds)
        XCTAssertEqual(ResponseHeaders.retryAfter("999999999999999999999999"), ResponseHeaders.maxRetryAfterSeconds)
        XCTAssertNil(ResponseHeaders.retryAfter("-1"))
        XCTAssertNil(ResponseHeaders.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT"))
        XCTAssertEqual(ResponseHeaders.retryAfter("0"), 0)
        XCTAssertEqual(RetryPolicy(maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50).delayMs(afterAttempt: 1, retryAfterSeconds: .max), 50)
        XCTAssertEqual(RetryPolicy(maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50).delayMs(afterAttempt: 1, retryAfterSeconds: -1), 0)

        XCTAssertNil(ContentRange(parsing: "bytes 0-9223372036854775808/*"))
        XCTAssertNil(ContentRange(parsing: "bytes -1-5/10"))
        XCTAssertNil(ContentRange(parsing: "bytes 0-10/10"), "last byte past the size")
        XCTAssertNil(ContentRange(parsing: "bytes */*"))
        XCTAssertNil(ContentRange(parsing: "bytes +1-5/10"))
        XCTAssertNil(ContentRange(parsing: "bytes 1-5/-10"))
        XCTAssertNil(ContentRange(parsing: "bytes 0-9223372036854775807/\(Int64.max)"), "last byte past the size")
        XCTAssertNil(ContentRange(parsing: "bytes 0-\(Int64.max)/*")?.length)
        XCTAssertEqual(ContentRange(parsing: "bytes 1-\(Int64.max)/*")?.length, Int64.max)
        XCTAssertEqual(ContentRange(parsing: "bytes 0-0/1")?.length, 1)

        XCTAssertNil(FetchRange(offset: 9_223_372_036_854_775_800, length: 100).bounds(skipping: 0))
        XCTAssertNil(FetchRange(offset: -1, length: 100).bounds(skipping: 0))
        XCTAssertNil(FetchRange(offset: 0, length: 0).bounds(skipping: 0))
        XCTAssertNil(FetchRange(offset: 0, length: 10).bounds(skipping: 10))
        XCTAssertTrue(FetchRange(offset: Int64.max - 10, length: 10).bounds(skipping: 9)! == (Int64.max - 1, Int64.max - 1))

        let huge = ContentRange(first: 50_000, last: 99_999, size: nil)
        XCTAssertEqual(BodyPlan.decide(status: 206, requestedFrom: 50_000, contentRange: huge, contentLength: .max, responseETag: nil, partETag: nil),
                       .refetchFromZero(why: "HTTP 206 without a Content-Range naming the bytes sent and the resource's size"))
        let whole = ContentRange(first: 50_000, last: 99_999, size: 100_000)
        XCTAssertEqual(BodyPlan.decide(status: 206, requestedFrom: 50_000, contentRange: whole, contentLength: .max, responseETag: nil, partETag: nil),
                       .refetchFromZero(why: "HTTP 206 with Content-Length 9223372036854775807 for Content-Range bytes 50000-99999/100000"))
        XCTAssertEqual(BodyPlan.decide(status: 206, requestedFrom: 50_000, contentRange: whole, contentLength: 50_000, knownTotal: 100_000, responseETag: nil, partETag: nil), .append)
        XCTAssertEqual(BodyPlan.decideRange(FetchRange(offset: Int64.max - 5, length: 5), status: 206, requestedFrom: 0,
                                            contentRange: ContentRange(first: 0, last: 4, size: nil), responseETag: nil, partETag: nil),
                       .refetchFromZero(why: "server sent bytes from 0 when 9223372036854775802 + 0 was asked"))
    }
}
