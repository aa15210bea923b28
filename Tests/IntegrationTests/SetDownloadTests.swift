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
}
