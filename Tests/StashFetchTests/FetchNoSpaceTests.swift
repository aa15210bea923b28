import Foundation
import StashCore
import StashFetch
import StashTestSupport
import XCTest

/// A full file system, made real with a small tmpfs (so root only): the transfer ends with
/// `.noSpace`, keeps its part file, and resumes from it once there is room.
final class FetchNoSpaceTests: FetchTestCase {
    private var disk: String { "\(folder!)/disk" }
    private var mounted = false

    override func setUp() async throws {
        try await super.setUp()
        guard getuid() == 0 else { throw XCTSkip("mounting a tmpfs needs root") }
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        guard try succeeds("/bin/mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", disk) else {
            throw XCTSkip("cannot mount a tmpfs here (no CAP_SYS_ADMIN?)")
        }
        mounted = true
    }

    override func tearDown() async throws {
        // Lazy, so a file a failed test left open cannot keep the mount (and the folder) around.
        if mounted { _ = try succeeds("/bin/umount", "-l", disk) }
        try await super.tearDown()
    }

    /// Runs a command quietly; true when it exits with 0.
    private func succeeds(_ executable: String, _ arguments: String...) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
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

        XCTAssertTrue(try succeeds("/bin/mount", "-o", "remount,size=8m", disk))
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
