@testable import StashFetch
import CCurl
import StashCore
import XCTest

final class FetchParsingTests: XCTestCase {
    func testContentRange() {
        XCTAssertEqual(ContentRange(parsing: "bytes 100-199/1000"), ContentRange(first: 100, last: 199, size: 1000))
        XCTAssertEqual(ContentRange(parsing: "bytes */1000"), ContentRange(first: nil, last: nil, size: 1000))
        XCTAssertEqual(ContentRange(parsing: "bytes 0-9/*"), ContentRange(first: 0, last: 9, size: nil))
        XCTAssertNil(ContentRange(parsing: "bytes 9-0/10"))
        XCTAssertNil(ContentRange(parsing: "items 0-9/10"))
        XCTAssertNil(ContentRange(parsing: "bytes 0-9"))
    }

    func testResponseHeadersStartOverAfterRedirect() {
        var headers = ResponseHeaders()
        for line in ["HTTP/1.1 302 Found\r\n", "Location: /b\r\n", "ETag: \"old\"\r\n", "\r\n",
                     "HTTP/1.1 206 Partial Content\r\n", "content-range: bytes 5-9/10\r\n", "Content-Length: 5\r\n",
                     "Retry-After: 7\r\n", "\r\n"] {
            headers.consume(line: line)
        }
        XCTAssertEqual(headers.status, 206)
        XCTAssertEqual(headers.reason, "Partial Content")
        XCTAssertNil(headers.etag)
        XCTAssertEqual(headers.contentRange, ContentRange(first: 5, last: 9, size: 10))
        XCTAssertEqual(headers.contentLength, 5)
        XCTAssertEqual(headers.retryAfterSeconds, 7)
        XCTAssertTrue(headers.complete)
    }

    func testBodyPlan() {
        let range = ContentRange(first: 100, last: 199, size: 200)
        XCTAssertEqual(BodyPlan.decide(status: 206, requestedFrom: 100, contentRange: range, responseETag: "\"a\"", partETag: "\"a\""), .append)
        XCTAssertEqual(BodyPlan.decide(status: 206, requestedFrom: 100, contentRange: range, responseETag: nil, partETag: "\"a\""), .append)
        XCTAssertEqual(BodyPlan.decide(status: 206, requestedFrom: 100, contentRange: range, responseETag: "\"b\"", partETag: "\"a\""), .refetchFromZero(why: "the entity tag changed from \"a\" to \"b\""))
        XCTAssertEqual(BodyPlan.decide(status: 206, requestedFrom: 50, contentRange: range, responseETag: nil, partETag: nil), .refetchFromZero(why: "server sent bytes from 100 when 50 was asked"))
        XCTAssertEqual(BodyPlan.decide(status: 206, requestedFrom: 100, contentRange: ContentRange(first: 0, last: 199, size: 200), responseETag: nil, partETag: nil), .writeFromZero)
        XCTAssertEqual(BodyPlan.decide(status: 200, requestedFrom: 100, contentRange: nil, responseETag: "\"a\"", partETag: "\"a\""), .writeFromZero)
        XCTAssertEqual(BodyPlan.ifRange(etag: "\"s\"", lastModified: "d"), "\"s\"")
        XCTAssertEqual(BodyPlan.ifRange(etag: "W/\"w\"", lastModified: "d"), "d")
        XCTAssertNil(BodyPlan.ifRange(etag: "W/\"w\"", lastModified: nil))
    }

    func testFailureClassification() {
        let url = "http://h/x"
        XCTAssertEqual(FetchFailure.http(status: 404, reason: "", url: url, retryAfterSeconds: nil),
                       FetchFailure(error: DownloadError(.http, "HTTP 404 Not Found from http://h/x", httpStatus: 404), retryable: false, connectionClass: false))
        XCTAssertTrue(FetchFailure.http(status: 408, reason: "", url: url, retryAfterSeconds: nil).retryable)
        XCTAssertEqual(FetchFailure.http(status: 429, reason: "", url: url, retryAfterSeconds: 3).retryAfterSeconds, 3)
        XCTAssertNil(FetchFailure.http(status: 500, reason: "", url: url, retryAfterSeconds: 3).retryAfterSeconds)
        XCTAssertFalse(FetchFailure.http(status: 301, reason: "", url: url, retryAfterSeconds: nil).retryable)
        let timeout = FetchFailure.curl(CURLE_OPERATION_TIMEDOUT, errorText: "Operation too slow", url: url)
        XCTAssertTrue(timeout.retryable && timeout.connectionClass)
        XCTAssertTrue(timeout.error.message.contains("Operation too slow"), timeout.error.message)
        // curl's error buffer usually ends with its code's text: said once, then the URL.
        let refused = FetchFailure.curl(
            CURLE_COULDNT_CONNECT, errorText: "Failed to connect to h port 1 after 0 ms: Couldn't connect to server", url: url)
        XCTAssertEqual(refused.error.message, "Failed to connect to h port 1 after 0 ms (http://h/x)")
        let resolve = FetchFailure.curl(CURLE_COULDNT_RESOLVE_HOST, errorText: "Could not resolve host: h", url: url)
        XCTAssertEqual(resolve.error.message, "Could not resolve host: h (http://h/x)")
        XCTAssertEqual(FetchFailure.curl(CURLE_GOT_NOTHING, errorText: "", url: url).error.message, "Server returned nothing (no headers, no data) (http://h/x)")
        let scheme = FetchFailure.curl(CURLE_UNSUPPORTED_PROTOCOL, errorText: "", url: url)
        XCTAssertEqual(scheme.error.kind, .validation)
        XCTAssertFalse(scheme.retryable)
    }

    func testSystemNetworkMonitorTreatsLoopbackAsOnline() {
        XCTAssertTrue(NetworkMonitor.system.isOnline(host: "127.0.0.1"))
        XCTAssertTrue(NetworkMonitor.system.isOnline(host: "[::1]"))
        XCTAssertTrue(NetworkMonitor.system.isOnline(host: "localhost"))
    }
}
