import Foundation
import StashCore
import StashFetch
import StashTestSupport
import XCTest

final class FetchDownloadTests: FetchTestCase {
    func testFullDownloadIsExactWithSHA256() async throws {
        let body = TestBody.pattern(size: 3 * 1024 * 1024 + 17, seed: 7)
        server.serve(path: "/big", route: TestRoute(body: body, etag: "\"v1\""))
        let request = request("/big", sha256: body.sha256Hex)

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: Int64(body.count), sha256: body.sha256Hex))
        XCTAssertEqual(recorder.started, [FetchResponseInfo(httpStatus: 200, resumedFrom: 0, totalBytes: Int64(body.count), etag: "\"v1\"", lastModified: nil)])
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count))
        XCTAssertFalse(exists(request.partPath), "part file must be renamed away")
        let progress = recorder.events.compactMap { if case .progress(let bytes, _) = $0 { return bytes } else { return nil } }
        // Progress comes at most every 100 ms, never past the body; `.completed` has the size.
        XCTAssertTrue(progress.allSatisfy { $0 > 0 && $0 <= Int64(body.count) }, "\(progress)")
        XCTAssertEqual(progress, progress.sorted())
        let request0 = try XCTUnwrap(server.requests(for: "/big").first)
        XCTAssertEqual(request0.header("User-Agent"), "stash/\(StashVersion.daemon)")
        XCTAssertNil(request0.header("Range"))
        XCTAssertNil(request0.header("Accept-Encoding"))
        XCTAssertEqual(workers.activeTransfers, 0)
    }

    /// Files of a bundle are synced on the sync threads without their folders (the caller syncs
    /// those once at the end); every one still lands whole under its final name, with no part
    /// file left and no descriptor left open.
    func testGroupedFilesLandWholeUnderTheirNames() async throws {
        let bodies = (0..<40).map { TestBody.pattern(size: 20_000 + $0 * 997, seed: UInt64($0)) }
        for (index, body) in bodies.enumerated() { server.serve(path: "/g\(index)", body: body.slice(0..<body.count)) }
        let recorders = (0..<40).map { _ in EventRecorder() }
        var requests: [FetchRequest] = []
        for index in 0..<40 {
            var grouped = request("/g\(index)", name: "g\(index)", sha256: bodies[index].sha256Hex)
            grouped.durability = .grouped
            requests.append(grouped)
            workers.start(grouped, events: recorders[index].handler)
        }
        await fulfillment(of: recorders.map(\.finished), timeout: 30)
        for index in 0..<40 {
            let body = bodies[index]
            XCTAssertEqual(recorders[index].finalEvent, .completed(bytes: Int64(body.count), sha256: body.sha256Hex), "file \(index)")
            XCTAssertEqual(contents(requests[index].finalPath), body.slice(0..<body.count), "file \(index)")
            XCTAssertFalse(exists(requests[index].partPath), "file \(index) part renamed away")
        }
        XCTAssertEqual(workers.activeTransfers, 0)
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
        }
        XCTAssertEqual(open.filter { $0.hasPrefix(folder) }, [], "the files and their folders are closed")
    }

    func testEmptyBodyCompletes() async throws {
        server.serve(path: "/empty", body: [])
        let request = request("/empty", sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let recorder = await fetch(request)
        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 0, sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
        XCTAssertEqual(contents(request.finalPath), [])
    }

    func testNoDigestIsComputedWhenNoneIsExpected() async throws {
        let body = TestBody.pattern(size: 100_000, seed: 5)
        server.serve(path: "/plain", route: TestRoute(body: body))
        let request = request("/plain")
        let recorder = await fetch(request)
        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 100_000, sha256: ""))
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count))
    }

    func testSHA256MismatchFailsAndLeavesNoFile() async throws {
        let body = TestBody.pattern(size: 100_000, seed: 3)
        server.serve(path: "/f", route: TestRoute(body: body))
        let wrong = String(repeating: "ab", count: 32)
        let request = request("/f", sha256: wrong)

        let recorder = await fetch(request)

        guard case .failed(let error) = recorder.finalEvent else { return XCTFail("expected failure, got \(recorder.events)") }
        XCTAssertEqual(error.kind, .validation)
        XCTAssertTrue(error.message.contains("sha256 mismatch: expected \(wrong), got \(body.sha256Hex)"), error.message)
        XCTAssertFalse(exists(request.partPath))
        XCTAssertFalse(exists(request.finalPath))
        XCTAssertEqual(server.requests(for: "/f").count, 1, "a mismatch is not retried")
    }

    func testNotFoundFailsAtOnceWithoutRetry() async throws {
        server.serve(path: "/gone", route: { var r = TestRoute(body: .bytes([1])); r.alwaysStatus = 404; return r }())
        let request = request("/gone")

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .failed(DownloadError(.http, "HTTP 404 Not Found from \(request.url)", httpStatus: 404)))
        XCTAssertTrue(recorder.retries.isEmpty)
        XCTAssertTrue(recorder.started.isEmpty)
        XCTAssertEqual(server.requests(for: "/gone").count, 1)
        XCTAssertFalse(exists(request.finalPath))
    }

    func testRedirectIsFollowed() async throws {
        let body = TestBody.pattern(size: 5000, seed: 9)
        server.serve(path: "/target", route: TestRoute(body: body))
        server.serve(path: "/moved", route: { var r = TestRoute(body: .bytes([])); r.redirectTo = "/target"; return r }())
        let request = request("/moved", sha256: body.sha256Hex)

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 5000, sha256: body.sha256Hex))
        XCTAssertEqual(server.requests(for: "/target").count, 1)
    }

    func testRedirectToFTPIsRefused() async throws {
        server.serve(path: "/sneaky", route: { var r = TestRoute(body: .bytes([])); r.redirectTo = "ftp://127.0.0.1/secret"; return r }())
        let request = request("/sneaky")

        let recorder = await fetch(request)

        guard case .failed(let error) = recorder.finalEvent else { return XCTFail("expected failure, got \(recorder.events)") }
        XCTAssertEqual(error.kind, .validation)
        XCTAssertTrue(error.message.contains("only http and https"), error.message)
        XCTAssertTrue(recorder.retries.isEmpty)
        XCTAssertFalse(exists(request.finalPath))
    }

    func testNonHTTPFirstURLIsRefused() async throws {
        var request = request("/x")
        request.url = "file:///etc/passwd"
        let recorder = await fetch(request)
        guard case .failed(let error) = recorder.finalEvent else { return XCTFail("expected failure, got \(recorder.events)") }
        XCTAssertEqual(error.kind, .validation)
        XCTAssertFalse(exists(request.finalPath))
    }

    func testRequestHeadersAreSent() async throws {
        server.serve(path: "/h", body: [1, 2, 3])
        var request = request("/h")
        request.headers = [HTTPHeader(name: "Authorization", value: "Bearer t0k3n")]
        await fetch(request)
        XCTAssertEqual(server.requests(for: "/h").first?.header("Authorization"), "Bearer t0k3n")
    }
}
