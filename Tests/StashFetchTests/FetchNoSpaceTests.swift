import Foundation
import StashCore
import StashFetch
import StashTestSupport
import XCTest

/// A full file system, made real with a small tmpfs (so root only): the transfer ends with
/// `.noSpace`, keeps its part file, and resumes from it once there is room.
final class FetchNoSpaceTests: FetchTestCase {
    private var small: SmallDisk?
    private var disk: String { "\(folder!)/disk" }

    override func setUp() async throws {
        try await super.setUp()
        small = try SmallDisk.mount(at: disk, bytes: 1 << 20)
        if small == nil { throw XCTSkip("mounting a tmpfs needs root (CAP_SYS_ADMIN)") }
    }

    override func tearDown() async throws {
        small?.unmount()
        try await super.tearDown()
    }

    func testFullDiskEndsWithNoSpaceAndResumesOnceThereIsRoom() async throws {
        let body = TestBody.pattern(size: 3 * 1024 * 1024, seed: 31)
        server.serve(path: "/big", route: TestRoute(body: body, etag: "\"ns\""))
        let request = request("/big", sha256: body.sha256Hex, in: "\(disk)/asset")

        let first = await fetch(request)

        guard case .noSpace(let error) = first.finalEvent else { return XCTFail("expected noSpace, got \(first.events)") }
        XCTAssertEqual(error.kind, .storage)
        XCTAssertTrue(error.message.hasPrefix("no space left on device writing '\(request.partPath)'"), error.message)
        XCTAssertTrue(first.retries.isEmpty, "a full disk is not retried")
        XCTAssertEqual(server.requests(for: "/big").count, 1)
        let part = try XCTUnwrap(contents(request.partPath), "the part file is kept")
        XCTAssertGreaterThan(part.count, 0)
        XCTAssertLessThan(part.count, body.count)
        XCTAssertEqual(part, body.slice(0..<part.count), "every byte that landed is the resource's")
        XCTAssertFalse(exists(request.finalPath))
        XCTAssertEqual(workers.activeTransfers, 0)

        XCTAssertTrue(try XCTUnwrap(small).resize(bytes: 8 << 20))
        var resume = request
        resume.etag = first.started.first?.etag
        let second = await fetch(resume)

        XCTAssertEqual(second.finalEvent, .completed(bytes: Int64(body.count), sha256: body.sha256Hex))
        XCTAssertEqual(second.started.first?.resumedFrom, Int64(part.count))
        let sent = try XCTUnwrap(server.requests(for: "/big").last)
        XCTAssertEqual(sent.header("Range"), "bytes=\(part.count)-")
        XCTAssertEqual(sent.header("If-Range"), "\"ns\"")
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count))
        XCTAssertFalse(exists(request.partPath))
    }
}
