import Foundation
import StashClient
import StashTestSupport
import XCTest

/// A download's own rate limit and the rate schedule, end to end: a real stashd fetching from
/// a real HTTP server, through the Swift client and the CLI.
final class RateLimitTests: DaemonTestCase {
    func testADownloadLimitedTo1MBsBesideAnUnlimitedOneKeepsItsRate() async throws {
        let limit: Int64 = 1 << 20
        let size = 4 << 20
        http.serve(path: "/limited.bin", size: size, seed: 65)
        http.serve(path: "/free.bin", size: 32 << 20, seed: 66)
        var limited = AddDownloadRequest(id: "limited", uri: http.url("/limited.bin"))
        limited.rateLimit = limit
        let (added, _) = try await client.addDownload(limited)
        XCTAssertEqual(added.rateLimit, limit)
        _ = try await client.addDownload(AddDownloadRequest(id: "free", uri: http.url("/free.bin")))

        let free = try await waitFor("free", .completed)
        let done = try await waitFor("limited", .completed)
        XCTAssertEqual(done.rateLimit, limit)
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/limited.bin")!.body.sha256Hex)
        // Measured from the record's own timestamps (added to completed, as the daemon's
        // clock saw them), which take in the connection and the first chunk the limiter lets
        // through at once. The upper bound is the tight one, 10 %: load on the machine can only
        // slow a transfer, never speed it past its limit. The lower bound is generous (50 %)
        // for that reason: a loaded 2-core machine may wake the paced transfer late.
        let seconds = try XCTUnwrap(done.completedAt).timeIntervalSince(done.createdAt)
        let rate = Double(size) / seconds
        XCTAssertLessThanOrEqual(rate, Double(limit) * 1.1, "\(size) bytes in \(seconds) s")
        XCTAssertGreaterThanOrEqual(rate, Double(limit) * 0.5, "\(size) bytes in \(seconds) s")
        // The unlimited one beside it was not held to the limit: eight times the bytes, done first.
        XCTAssertLessThan(try XCTUnwrap(free.completedAt), try XCTUnwrap(done.completedAt))
    }

    func testExtremeAndWrongRatesAreHandledByName() async throws {
        http.serve(path: "/slow.bin", size: 1000)
        var slowest = AddDownloadRequest(id: "slowest", uri: http.url("/slow.bin"))
        slowest.rateLimit = 1
        var fastest = AddDownloadRequest(id: "fastest", uri: http.url("/slow.bin"), force: true)
        fastest.rateLimit = .max
        let slow = try await client.addDownload(slowest).download
        let fast = try await client.addDownload(fastest).download
        XCTAssertEqual(slow.rateLimit, 1)
        XCTAssertEqual(fast.rateLimit, .max)
        _ = try await waitFor("fastest", .completed)
        var negative = AddDownloadRequest(id: "negative", uri: http.url("/slow.bin"), force: true)
        negative.rateLimit = -1
        let refused = await assertFails(.invalidArgument) { try await client.addDownload(negative) }
        XCTAssertTrue(refused?.message.contains("AddDownloadRequest.rate_limit") ?? false, "\(String(describing: refused))")
        try await client.cancel(id: "slowest")
    }

    func testTheCLIAddsWithALimitAndSetsAndShowsTheSchedule() async throws {
        http.serve(path: "/cli.bin", size: 1000)
        let add = try daemon.runCLI(["add", "--id", "cli", "--rate-limit", "500K", "--json", http.url("/cli.bin")])
        XCTAssertEqual(add.status, 0, add.stderr)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(add.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(record["rateLimit"] as? Int, 512_000)
        let show = try daemon.runCLI(["show", "cli"])
        XCTAssertTrue(show.stdout.contains("rate limit") && show.stdout.contains("(500K)"), show.stdout)
        let bad = try daemon.runCLI(["add", "--rate-limit", "fast", http.url("/cli.bin")])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--rate-limit") && bad.stderr.contains("'fast'") && bad.stderr.contains("500K"), bad.stderr)

        let schedule = try daemon.runCLI(["config", "set", "rate-schedule", "Mon-Sun 00:00-24:00 2M"])
        XCTAssertEqual(schedule.status, 0, schedule.stderr)
        XCTAssertEqual(schedule.stdout, "rate-schedule = Mon,Tue,Wed,Thu,Fri,Sat,Sun 00:00-24:00 2M\n")
        let info = try daemon.runCLI(["info", "--json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["rateLimitNow"] as? Int, 2 << 20)
        XCTAssertTrue(object["rateLimitChangesAt"] is NSNull, "a rule for every hour never changes")
        let text = try daemon.runCLI(["info"])
        XCTAssertTrue(text.stdout.contains("rate limit: ") && text.stdout.contains("(2M) now"), text.stdout)
        let wrong = try daemon.runCLI(["config", "set", "rate-schedule", "weekdays 9-18 1M"])
        XCTAssertNotEqual(wrong.status, 0)
        XCTAssertTrue(wrong.stderr.contains("rule 1") && wrong.stderr.contains("weekdays"), wrong.stderr)
        let kept = try daemon.runCLI(["config", "get", "rate-schedule"])
        XCTAssertEqual(kept.stdout, "Mon,Tue,Wed,Thu,Fri,Sat,Sun 00:00-24:00 2M\n", "a bad schedule changes nothing")
    }
}
