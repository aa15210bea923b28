import Foundation
import StashCore
import StashFetch
import StashTestSupport
import XCTest

final class FetchResumeTests: FetchTestCase {
    private let body = TestBody.pattern(size: 1_000_000, seed: 11)

    /// Writes the first `count` bytes of `content` as the part file of `request`.
    private func writePart(_ request: FetchRequest, _ content: [UInt8]) throws {
        let parent = (request.partPath as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: request.partPath, contents: Data(content)))
    }

    func testResumeWithRangeAndIfRangeAppends() async throws {
        server.serve(path: "/r", route: TestRoute(body: body, etag: "\"abc\""))
        var request = request("/r", sha256: body.sha256Hex)
        request.etag = "\"abc\""
        try writePart(request, body.slice(0..<400_000))

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 1_000_000, sha256: body.sha256Hex))
        XCTAssertEqual(recorder.started.first?.httpStatus, 206)
        XCTAssertEqual(recorder.started.first?.resumedFrom, 400_000)
        XCTAssertEqual(recorder.started.first?.totalBytes, 1_000_000)
        let sent = try XCTUnwrap(server.requests(for: "/r").first)
        XCTAssertEqual(sent.header("Range"), "bytes=400000-")
        XCTAssertEqual(sent.header("If-Range"), "\"abc\"")
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count))
    }

    func testResumeWithLastModifiedWhenETagIsWeak() async throws {
        let date = "Wed, 21 Oct 2015 07:28:00 GMT"
        server.serve(path: "/w", route: TestRoute(body: body, etag: "W/\"weak\"", lastModified: date))
        var request = request("/w", sha256: body.sha256Hex)
        request.etag = "W/\"weak\""
        request.lastModified = date
        try writePart(request, body.slice(0..<10))

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 1_000_000, sha256: body.sha256Hex))
        XCTAssertEqual(server.requests(for: "/w").first?.header("If-Range"), date)
        XCTAssertEqual(recorder.started.first?.resumedFrom, 10)
    }

    func testIgnoredRangeRestartsFromZero() async throws {
        server.serve(path: "/n", route: TestRoute(body: body, etag: "\"abc\""))
        server.update(path: "/n") { $0.honourRange = false }
        var request = request("/n", sha256: body.sha256Hex)
        request.etag = "\"abc\""
        // Garbage in the part file proves it is truncated, not appended to.
        try writePart(request, [UInt8](repeating: 0xEE, count: 300_000))

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 1_000_000, sha256: body.sha256Hex))
        XCTAssertEqual(recorder.started.first?.httpStatus, 200)
        XCTAssertEqual(recorder.started.first?.resumedFrom, 0)
        XCTAssertEqual(server.requests(for: "/n").first?.header("Range"), "bytes=300000-")
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count))
    }

    func testChangedETagRestartsFromZero() async throws {
        server.serve(path: "/e", route: TestRoute(body: body, etag: "\"new\""))
        var request = request("/e", sha256: body.sha256Hex)
        request.etag = "\"old\""
        try writePart(request, [UInt8](repeating: 0x11, count: 500_000))

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 1_000_000, sha256: body.sha256Hex))
        XCTAssertEqual(recorder.started, [FetchResponseInfo(httpStatus: 200, resumedFrom: 0, totalBytes: 1_000_000, etag: "\"new\"", lastModified: nil)])
        XCTAssertEqual(server.requests(for: "/e").first?.header("If-Range"), "\"old\"")
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count))
    }

    func testPartFileWithoutValidatorStartsFromZero() async throws {
        server.serve(path: "/v", route: TestRoute(body: body, etag: "\"abc\""))
        let request = request("/v", sha256: body.sha256Hex)
        try writePart(request, [UInt8](repeating: 0x22, count: 1000))

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 1_000_000, sha256: body.sha256Hex))
        XCTAssertNil(server.requests(for: "/v").first?.header("Range"))
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count))
    }

    func testCompletePartFileAnswered416IsComplete() async throws {
        server.serve(path: "/done", route: TestRoute(body: body, etag: "\"abc\""))
        var request = request("/done", sha256: body.sha256Hex)
        request.etag = "\"abc\""
        try writePart(request, body.slice(0..<body.count))

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 1_000_000, sha256: body.sha256Hex))
        XCTAssertEqual(server.requests(for: "/done").count, 1)
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count))
    }

    func testResetMidBodyResumesFromOffset() async throws {
        server.serve(path: "/reset", route: TestRoute(body: body, etag: "\"abc\""))
        server.update(path: "/reset") {
            $0.resetAfterBytes = 300_000
            $0.resetTimes = 1
        }
        let request = request("/reset", sha256: body.sha256Hex)

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 1_000_000, sha256: body.sha256Hex))
        XCTAssertEqual(recorder.retries.count, 1)
        XCTAssertEqual(recorder.retries.first?.error.kind, .network)
        let sent = server.requests(for: "/reset")
        XCTAssertEqual(sent.count, 2)
        let range = try XCTUnwrap(sent.last?.header("Range"), "the retry must resume with a Range")
        let offset = try XCTUnwrap(Int(range.dropFirst("bytes=".count).dropLast()))
        XCTAssertGreaterThan(offset, 0)
        XCTAssertLessThanOrEqual(offset, 300_000)
        XCTAssertEqual(sent.last?.header("If-Range"), "\"abc\"")
        XCTAssertEqual(recorder.started.map(\.resumedFrom), [0, Int64(offset)])
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count))
    }

    func testStallIsRetriedFromOffset() async throws {
        server.serve(path: "/stall", route: TestRoute(body: body, etag: "\"abc\""))
        server.update(path: "/stall") {
            // Few bytes before the stall so curl's speed window drops under the limit quickly.
            $0.stallAfterBytes = 500
            $0.stallTimes = 1
        }
        var request = request("/stall", sha256: body.sha256Hex)
        request.lowSpeedLimit = 1000
        request.lowSpeedTime = 1

        let recorder = await fetch(request)
        server.releaseStalls()

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 1_000_000, sha256: body.sha256Hex))
        XCTAssertEqual(recorder.retries.count, 1)
        XCTAssertEqual(recorder.retries.first?.error.kind, .network)
        XCTAssertEqual(server.requests(for: "/stall").last?.header("Range"), "bytes=500-")
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count))
    }
}
