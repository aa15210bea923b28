import Foundation
import StashClient
import StashTestSupport
import XCTest

/// `stash set` changing a download after its add, end to end: a real stashd fetching from a
/// real HTTP server, through the CLI and the Swift client.
final class SetDownloadTests: DaemonTestCase {
    func testARunningDownloadsLimitIsLiftedAndRaisedWhileItRuns() async throws {
        let size = 2 << 20
        http.serve(path: "/crawl.bin", size: size, seed: 75)
        // At 1000 B/s this body takes over half an hour: completing within waitFor's timeout
        // shows the running transfer took the lifted limit.
        let add = try daemon.runCLI(["add", "--id", "crawl", "--rate-limit", "1000", http.url("/crawl.bin")])
        XCTAssertEqual(add.status, 0, add.stderr)
        _ = try await waitFor("crawl", .downloading)

        let set = try daemon.runCLI(["set", "crawl", "--rate-limit", "0", "--json"])
        XCTAssertEqual(set.status, 0, set.stderr)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(set.stdout.utf8)) as? [String: Any])
        XCTAssertNil(record["rateLimit"], "0 lifts it: the record leaves it out")
        let done = try await waitFor("crawl", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/crawl.bin")!.body.sha256Hex)
        XCTAssertEqual(http.requests(for: "/crawl.bin").count, 1, "the transfer was not restarted for it")

        let raised = try await client.setRateLimit(id: "crawl", 2 << 20)
        XCTAssertEqual(raised.rateLimit, 2 << 20)
        try await daemon.restart()
        try await reconnect()
        let kept = try await client.getDownload(id: "crawl")
        XCTAssertEqual(kept.rateLimit, 2 << 20, "kept in the registry")
        let shown = try daemon.runCLI(["set", "crawl", "--rate-limit", "500K", "--priority", "low"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stdout.contains("priority low") && shown.stdout.contains("(500K)"), shown.stdout)
    }

    func testRefusalsNameTheFieldAndTheValue() async throws {
        let refusals: [([String], Int32, [String])] = [
            (["set", "nope", "--rate-limit", "1M"], 1, ["'nope'"]),
            (["set", "nope", "--rate-limit", "fast"], 2, ["--rate-limit", "'fast'", "500K"]),
            (["set", "nope"], 2, ["--priority", "--rate-limit"]),
        ]
        for (arguments, status, parts) in refusals {
            let result = try daemon.runCLI(arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
            for part in parts { XCTAssertTrue(result.stderr.contains(part), "\(arguments): \(part) not in \(result.stderr)") }
        }
        let negative = await assertFails(.invalidArgument) { try await client.setRateLimit(id: "nope", -1) }
        XCTAssertTrue(negative?.message.contains("-1") ?? false, "\(String(describing: negative))")
    }

    /// The case the URL change is for: a signed URL expires mid-download (403), the app gets
    /// a new one serving the same file, and the bytes held are kept.
    func testADownloadFailedOnAnExpiredURLResumesAtANewOneKeepingItsBytes() async throws {
        let size = 1 << 20
        var route = TestRoute(body: .pattern(size: size, seed: 77), etag: "\"v1\"")
        // Half the body, then nothing until the URL has expired; a pause and resume make the
        // next request, which finds it so.
        route.stallAfterBytes = size / 2
        route.stallTimes = 1
        http.serve(path: "/signed.bin", route: route)
        http.serve(path: "/mirror.bin", route: TestRoute(body: .pattern(size: size, seed: 77), etag: "\"v1\""))
        let add = try daemon.runCLI(["add", "--id", "signed", http.url("/signed.bin?sig=old")])
        XCTAssertEqual(add.status, 0, add.stderr)
        // Bytes reach the record every 2 s of progress, which the stall stops: the part file
        // tells when the half has arrived.
        let running = try await waitFor("signed", .downloading)
        try await eventually("the first half on disk") {
            let attributes = try? FileManager.default.attributesOfItem(atPath: running.assetPath + ".part")
            return (attributes?[.size] as? Int ?? 0) >= size / 2
        }
        http.update(path: "/signed.bin") { $0.alwaysStatus = 403 }
        XCTAssertEqual(try daemon.runCLI(["pause", "signed"]).status, 0)
        // The stop measures the part file: the half is held.
        _ = try await waitUntil("signed") { $0.state == .paused && $0.downloadedBytes == Int64(size / 2) }
        XCTAssertEqual(try daemon.runCLI(["resume", "signed"]).status, 0)
        let failed = try await waitFor("signed", .failed)
        let message = failed.error?.message ?? ""
        XCTAssertTrue(message.contains("403") && message.contains("stash set signed --uri URL, then stash resume signed"), message)
        http.releaseStalls()

        let set = try daemon.runCLI(["set", "signed", "--uri", http.url("/mirror.bin?sig=new"), "--json"])
        XCTAssertEqual(set.status, 0, set.stderr)
        let changed = try await client.getDownload(id: "signed")
        XCTAssertEqual(changed.state, .failed, "it waits for its resume")
        XCTAssertEqual(changed.uri, http.url("/mirror.bin?sig=new"))
        XCTAssertEqual(http.requests(for: "/mirror.bin").count, 0)

        let resume = try daemon.runCLI(["resume", "signed"])
        XCTAssertEqual(resume.status, 0, resume.stderr)
        let done = try await waitFor("signed", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/mirror.bin")!.body.sha256Hex)
        let fetched = http.requests(for: "/mirror.bin").filter { $0.method == "GET" }
        XCTAssertEqual(fetched.count, 1, "\(fetched)")
        let range = fetched.first?.headers.first { $0.name.lowercased() == "range" }?.value ?? ""
        XCTAssertTrue(range.hasPrefix("bytes=") && !range.hasPrefix("bytes=0-"), "the new URL was asked for the rest only: \(range)")
    }

    func testAURLChangeIsRefusedNamingTheFieldAndTheValue() async throws {
        http.serve(path: "/a.bin", size: 1000, seed: 78)
        XCTAssertEqual(try daemon.runCLI(["add", "--id", "a", http.url("/a.bin")]).status, 0)
        _ = try await waitFor("a", .completed)
        XCTAssertEqual(try daemon.runCLI(["add", "--bundle", "--id", "b", http.url("/a.bin")]).status, 0)
        let refusals: [([String], Int32, [String])] = [
            (["set", "a", "--uri", "ftp://h/a.bin"], 2, ["uri", "'ftp://h/a.bin'", "http"]),
            (["set", "b", "--uri", http.url("/a.bin")], 2, ["uri", "'b'", "bundle", "--file"]),
            (["set", "nope", "--uri", http.url("/a.bin")], 1, ["'nope'"]),
        ]
        for (arguments, status, parts) in refusals {
            let result = try daemon.runCLI(arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
            for part in parts { XCTAssertTrue(result.stderr.contains(part), "\(arguments): \(part) not in \(result.stderr)") }
        }
        let empty = await assertFails(.invalidArgument) { try await client.setURI(id: "a", "") }
        XCTAssertTrue(empty?.message.contains("uri is empty") ?? false, "\(String(describing: empty))")
    }

    /// The options of one `stash set` are one request, applied whole: a good URL with licence
    /// headers the download cannot take (it has no licence server) changes nothing. The CLI
    /// sent a request per option, and the URL was changed before the headers were refused.
    func testOneSetWithARefusedOptionChangesNothing() async throws {
        http.serve(path: "/a.bin", size: 1000, seed: 79)
        XCTAssertEqual(try daemon.runCLI(["add", "--id", "a", http.url("/a.bin")]).status, 0)
        _ = try await waitFor("a", .completed)
        let result = try daemon.runCLI([
            "set", "a", "--uri", http.url("/b.bin"), "--rate-limit", "1M", "--header", "X-Token: 2", "--license-header", "Authorization: Bearer t",
        ])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("license_headers: 'a' has no licence server"), result.stderr)
        let kept = try await client.getDownload(id: "a")
        XCTAssertEqual(kept.uri, http.url("/a.bin"))
        XCTAssertEqual(kept.rateLimit, 0)
        XCTAssertEqual(kept.headers, [])
    }
}
