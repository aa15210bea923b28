import Foundation
import StashCore
import StashFetch
import StashTestSupport
import XCTest

/// The content check on the fetch path: a body that is not what was asked for is refused as
/// soon as its first bytes tell (not after the whole body), and nothing of it is kept.
final class FetchContentCheckTests: FetchTestCase {
    private let html = Array("<!DOCTYPE html>\n<html><body>Chapter not found</body></html".utf8)
    private let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        + (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) } + [0xFF, 0xD9]

    private func checked(_ path: String, name: String = "page.jpg", expect: ContentExpectation?, minSize: Int64 = 0) -> FetchRequest {
        var request = request(path, name: name)
        request.contentCheck = ContentCheck(expectation: expect, minSize: minSize, label: name)
        return request
    }

    private func validationMessage(_ event: FetchEvent?) -> String? {
        guard case .failed(let error)? = event, error.kind == .validation else { return nil }
        return error.message
    }

    func testAnHTMLPageServedAsAnImageFailsAndLeavesNothing() async throws {
        server.serve(path: "/page.jpg", route: TestRoute(body: .bytes(html), contentType: "text/html; charset=utf-8"))
        let request = checked("/page.jpg", expect: .kind(.image))
        let recorder = await fetch(request)
        XCTAssertEqual(validationMessage(recorder.finalEvent), "page.jpg: expected an image, got text/html (58 bytes starting '<!DOCTYPE html>')")
        XCTAssertFalse(exists(request.partPath))
        XCTAssertFalse(exists(request.finalPath))
        XCTAssertEqual(server.requests(for: "/page.jpg").count, 1, "a wrong body is not asked for again")
    }

    func testARealJPEGPassesEvenWhenItsSignatureArrivesOverTwoReads() async throws {
        var route = TestRoute(body: .bytes(jpeg), contentType: "application/octet-stream")
        // Two bytes, then a pause: the first read holds FF D8 only, a signature cut short.
        route.stallAfterBytes = 2
        route.stallTimes = 1
        route.stallSeconds = 0.05
        server.serve(path: "/real.jpg", route: route)
        let request = checked("/real.jpg", expect: .kind(.image))
        let recorder = await fetch(request)
        XCTAssertEqual(recorder.finalEvent, .completed(bytes: Int64(jpeg.count), sha256: ""))
        XCTAssertEqual(contents(request.finalPath), jpeg)
    }

    /// A 2 GB body that is not a video: refused while the server still holds back all but its
    /// first 64 KiB, so the verdict cannot have waited for the end.
    func testAWrongBodyIsRefusedFromItsFirstBytes() async throws {
        var route = TestRoute(body: .pattern(size: 2 << 30, seed: 9), contentType: "video/mp4")
        route.stallAfterBytes = 64 * 1024
        route.stallTimes = 1
        server.serve(path: "/movie.mp4", route: route)
        defer { server.releaseStalls() }
        let request = checked("/movie.mp4", name: "movie.mp4", expect: .kind(.video))
        let recorder = await fetch(request)
        let message = try XCTUnwrap(validationMessage(recorder.finalEvent), "\(String(describing: recorder.finalEvent))")
        XCTAssertTrue(message.hasPrefix("movie.mp4: expected a video, got video/mp4 with bytes of no known format (2147483648 bytes starting with bytes "), message)
        XCTAssertFalse(exists(request.partPath), "the part file is deleted")
    }

    func testAMinimumSizeRefusesAnAnnouncedShortBodyBeforeItsBytes() async throws {
        server.serve(path: "/short.jpg", route: TestRoute(body: .bytes(jpeg)))
        let request = checked("/short.jpg", name: "short.jpg", expect: nil, minSize: 100_000)
        let recorder = await fetch(request)
        XCTAssertEqual(validationMessage(recorder.finalEvent), "short.jpg: expected at least 100000 bytes, got \(jpeg.count) bytes (the size the server announced)")
        XCTAssertFalse(exists(request.partPath))
        XCTAssertFalse(exists(request.finalPath))
        let enough = checked("/short.jpg", name: "enough.jpg", expect: .kind(.image), minSize: Int64(jpeg.count))
        let passed = await fetch(enough)
        XCTAssertEqual(passed.finalEvent, .completed(bytes: Int64(jpeg.count), sha256: ""))
    }

    func testAnEmptyBodyIsNoImage() async throws {
        server.serve(path: "/empty.jpg", route: TestRoute(body: .bytes([]), contentType: "image/jpeg"))
        let request = checked("/empty.jpg", name: "empty.jpg", expect: .kind(.image))
        let recorder = await fetch(request)
        XCTAssertEqual(validationMessage(recorder.finalEvent), "empty.jpg: expected an image, got image/jpeg whose bytes are text/plain (an empty body)")
        XCTAssertFalse(exists(request.partPath))
    }

    /// A part file shorter than the bytes judged was never judged whole: it is fetched again
    /// from byte 0 rather than resumed, so a wrong start cannot slip through a resume.
    func testAPartFileTooShortToHaveBeenJudgedStartsAgain() async throws {
        server.serve(path: "/resume.jpg", route: TestRoute(body: .bytes(jpeg), etag: "\"v1\""))
        var request = checked("/resume.jpg", name: "resume.jpg", expect: .kind(.image))
        request.etag = "\"v1\""
        try FileManager.default.createDirectory(atPath: request.folder + "/sub", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: request.partPath, contents: Data(jpeg.prefix(100))))
        let recorder = await fetch(request)
        XCTAssertEqual(recorder.finalEvent, .completed(bytes: Int64(jpeg.count), sha256: ""))
        XCTAssertNil(server.requests(for: "/resume.jpg").first?.header("Range"), "fetched from byte 0")

        // One past the window was judged when written: it resumes.
        server.serve(path: "/resume2.jpg", route: TestRoute(body: .bytes(jpeg), etag: "\"v1\""))
        var resumed = checked("/resume2.jpg", name: "resume2.jpg", expect: .kind(.image))
        resumed.etag = "\"v1\""
        XCTAssertTrue(FileManager.default.createFile(atPath: resumed.partPath, contents: Data(jpeg.prefix(1000))))
        let second = await fetch(resumed)
        XCTAssertEqual(second.finalEvent, .completed(bytes: Int64(jpeg.count), sha256: ""))
        XCTAssertEqual(server.requests(for: "/resume2.jpg").first?.header("Range"), "bytes=1000-")
        XCTAssertEqual(contents(resumed.finalPath), jpeg)
    }
}
