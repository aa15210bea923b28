import Foundation
import StashClient
import StashTestSupport
import XCTest

/// `stash set ID --file PATH --uri URL`, end to end: a bundle file's URL renewed on a real
/// stashd fetching from a real HTTP server, its bytes kept when the new URL serves the same
/// content and started again when it serves another size.
final class FileURITests: DaemonTestCase {
    /// A bundle whose second file stalls at its half and then answers 403: its part file holds
    /// the half when the download has FAILED. Returns that file's record path.
    private func failHalfway(_ id: String, size: Int, seed: UInt64, etag: String? = "\"v1\"") async throws -> String {
        http.serve(path: "/\(id)/one.bin", size: 1000, seed: seed)
        var route = TestRoute(body: .pattern(size: size, seed: seed), etag: etag)
        route.stallAfterBytes = size / 2
        route.stallTimes = 1
        http.serve(path: "/\(id)/two.bin", route: route)
        let add = try daemon.runCLI(["add", "--bundle", "--id", id, http.url("/\(id)/one.bin"), http.url("/\(id)/two.bin?sig=old")])
        XCTAssertEqual(add.status, 0, add.stderr)
        let running = try await waitFor(id, .downloading)
        let path = try XCTUnwrap(running.files.last).path
        let part = (running.assetPath as NSString).appendingPathComponent(path) + ".part"
        try await eventually("the second file's first half on disk") {
            ((try? FileManager.default.attributesOfItem(atPath: part))?[.size] as? Int ?? 0) >= size / 2
        }
        http.update(path: "/\(id)/two.bin") { $0.alwaysStatus = 403 }
        XCTAssertEqual(try daemon.runCLI(["pause", id]).status, 0)
        _ = try await waitUntil(id) { $0.state == .paused && $0.files.last?.downloadedBytes == Int64(size / 2) }
        XCTAssertEqual(try daemon.runCLI(["resume", id]).status, 0)
        let failed = try await waitFor(id, .failed)
        let message = failed.error?.message ?? ""
        XCTAssertTrue(message.contains("stash set \(id) --file '\(path)' --uri URL, then stash resume \(id)"), message)
        http.releaseStalls()
        return path
    }

    func testABundleFilesNewURLServingTheSameContentResumesWhereItsBytesEnd() async throws {
        let size = 1 << 20
        let path = try await failHalfway("ch1", size: size, seed: 81)
        http.serve(path: "/mirror/two.bin", route: TestRoute(body: .pattern(size: size, seed: 81), etag: "\"v1\""))
        let set = try daemon.runCLI(["set", "ch1", "--file", path, "--uri", http.url("/mirror/two.bin?sig=new"), "--json"])
        XCTAssertEqual(set.status, 0, set.stderr)
        let changed = try await client.getDownload(id: "ch1")
        XCTAssertEqual(changed.state, .failed, "it waits for its resume")
        XCTAssertEqual(changed.files.last?.url, http.url("/mirror/two.bin?sig=new"))
        XCTAssertEqual(changed.files.first?.url, http.url("/ch1/one.bin"), "the other file keeps its URL")

        XCTAssertEqual(try daemon.runCLI(["resume", "ch1"]).status, 0)
        let done = try await waitFor("ch1", .completed)
        let file = (done.assetPath as NSString).appendingPathComponent(path)
        XCTAssertEqual(try sha256Hex(ofFile: file), http.route("/mirror/two.bin")!.body.sha256Hex)
        let fetched = http.requests(for: "/mirror/two.bin").filter { $0.method == "GET" }
        XCTAssertEqual(fetched.count, 1, "\(fetched)")
        let range = fetched.first?.headers.first { $0.name.lowercased() == "range" }?.value ?? ""
        XCTAssertEqual(range, "bytes=\(size / 2)-", "the new URL was asked for the rest only")
    }

    func testABundleFilesNewURLOfAnotherSizeStartsTheFileAgainAndAnUnknownPathIsRefused() async throws {
        let size = 1 << 20
        let path = try await failHalfway("ch2", size: size, seed: 82)
        // The same entity tag, but one byte more: not the content whose half is held.
        http.serve(path: "/mirror/two.bin", route: TestRoute(body: .pattern(size: size + 1, seed: 83), etag: "\"v1\""))

        let unknown = try daemon.runCLI(["set", "ch2", "--file", "nope/three.bin", "--uri", http.url("/mirror/two.bin")])
        XCTAssertEqual(unknown.status, 1, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("no file 'nope/three.bin'") && unknown.stderr.contains("stash show ch2"), unknown.stderr)
        let withoutURI = try daemon.runCLI(["set", "ch2", "--file", path])
        XCTAssertEqual(withoutURI.status, 2, withoutURI.stderr)
        XCTAssertTrue(withoutURI.stderr.contains("--uri URL"), withoutURI.stderr)

        XCTAssertEqual(try daemon.runCLI(["set", "ch2", "--file", path, "--uri", http.url("/mirror/two.bin")]).status, 0)
        XCTAssertEqual(try daemon.runCLI(["resume", "ch2"]).status, 0)
        let done = try await waitFor("ch2", .completed)
        let file = (done.assetPath as NSString).appendingPathComponent(path)
        XCTAssertEqual(try sha256Hex(ofFile: file), http.route("/mirror/two.bin")!.body.sha256Hex, "the new content, whole")
        XCTAssertEqual(done.files.last?.size, Int64(size + 1))
        let log = try String(contentsOfFile: daemon.logPath, encoding: .utf8)
        XCTAssertTrue(log.contains("file '\(path)': its new URL serves other content; it started again"), "the log says why")
    }

    /// Servers that give no ETag or Last-Modified (a plain pause and resume would start such a
    /// file again): the recorded size is what tells the same content, so a running file's new
    /// URL of that size is asked for the rest, one of another size from byte 0.
    func testWithoutValidatorsTheSizeTellsWhetherANewURLResumes() async throws {
        let size = 1 << 20
        for (id, newSize, seed) in [("ch3", size, UInt64(84)), ("ch4", size - 1, UInt64(85))] {
            http.serve(path: "/\(id)/one.bin", size: 1000, seed: seed)
            var route = TestRoute(body: .pattern(size: size, seed: seed))
            route.stallAfterBytes = size / 2
            route.stallTimes = 1
            http.serve(path: "/\(id)/two.bin", route: route)
            // The same bytes when the size is the same, other bytes when it is not.
            http.serve(path: "/mirror/\(id).bin", route: TestRoute(body: .pattern(size: newSize, seed: newSize == size ? seed : seed + 100)))
            let add = try daemon.runCLI(["add", "--bundle", "--id", id, http.url("/\(id)/one.bin"), http.url("/\(id)/two.bin")])
            XCTAssertEqual(add.status, 0, add.stderr)
            let running = try await waitFor(id, .downloading)
            let path = try XCTUnwrap(running.files.last).path
            let part = (running.assetPath as NSString).appendingPathComponent(path) + ".part"
            try await eventually("the second file's first half on disk") {
                ((try? FileManager.default.attributesOfItem(atPath: part))?[.size] as? Int ?? 0) >= size / 2
            }
            let set = try daemon.runCLI(["set", id, "--file", path, "--uri", http.url("/mirror/\(id).bin")])
            XCTAssertEqual(set.status, 0, set.stderr)
            http.releaseStalls()
            let done = try await waitFor(id, .completed)
            XCTAssertEqual(try sha256Hex(ofFile: (done.assetPath as NSString).appendingPathComponent(path)),
                           http.route("/mirror/\(id).bin")!.body.sha256Hex, "\(id): the new URL's content")
            XCTAssertEqual(done.files.last?.size, Int64(newSize))
            let asked = http.requests(for: "/mirror/\(id).bin").filter { $0.method == "GET" }
            let ranges = asked.map { $0.headers.first { $0.name.lowercased() == "range" }?.value ?? "none" }
            if newSize == size {
                XCTAssertEqual(ranges, ["bytes=\(size / 2)-"], "\(id): the rest only, without If-Range")
                XCTAssertFalse(asked.contains { $0.headers.contains { $0.name.lowercased() == "if-range" } })
            } else {
                XCTAssertEqual(ranges.first, "bytes=\(size / 2)-", "\(id): the rest asked for first")
                XCTAssertEqual(ranges.last, "none", "\(id): then the whole, as the size differs")
            }
        }
    }
}
