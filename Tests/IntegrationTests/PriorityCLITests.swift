import Foundation
import StashClient
import StashTestSupport
import XCTest

/// Priority and queue order through the `stash` command line on a real stashd, with one slot
/// (`--max-parallel 1`) held by a download the test server stalls.
final class PriorityCLITests: DaemonTestCase {
    override var daemonArguments: [String] { ["--max-parallel", "1"] }

    private func cli(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try daemon.runCLI(arguments)
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", file: file, line: line)
        return result.stdout
    }

    private func queue() throws -> [String] {
        try cli(["ls", "--queue", "--json"]).split(separator: "\n").map { line in
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try XCTUnwrap(record["id"] as? String)
        }
    }

    func testPriorityMovesAndPreemptionFromTheCommandLine() async throws {
        // With a validator, so that a transfer resumes with a range request.
        var slow = TestRoute(body: .pattern(size: 2_000_000, seed: 3), etag: "\"run-1\"")
        slow.stallAfterBytes = 100_000
        slow.stallTimes = 2
        http.serve(path: "/run", route: slow)
        for id in ["a", "b", "c"] { http.serve(path: "/\(id)", size: 1000) }
        // It holds the slot once it has taken it, until the stalls are released.
        var held = TestRoute(body: .pattern(size: 200_000, seed: 4))
        held.stallAfterBytes = 1000
        held.stallTimes = 1
        http.serve(path: "/low", route: held)

        _ = try cli(["add", http.url("/run"), "--id", "run"])
        // Bytes reach the registry every 2 s of progress, which a stall stops: the state says it runs.
        _ = try await waitFor("run", .downloading)
        for id in ["a", "b", "c"] { _ = try cli(["add", http.url("/\(id)"), "--id", id]) }
        _ = try cli(["add", http.url("/low"), "--id", "low", "--priority", "low"])
        XCTAssertEqual(try queue(), ["a", "b", "c", "low"], "first come first served, low last")

        _ = try cli(["move", "c", "--top"])
        _ = try cli(["move", "a", "--after", "b"])
        XCTAssertEqual(try queue(), ["c", "b", "a", "low"])
        let text = try cli(["ls", "--queue"])
        XCTAssertTrue(text.contains("PRIORITY") && text.contains("normal") && text.contains("low"), text)

        // Refusals name the id and the state; nothing moves.
        let refusals: [([String], Int32, [String])] = [
            (["move", "nope", "--top"], 1, ["'nope'"]),
            (["move", "run", "--top"], 1, ["'run' is DOWNLOADING", "QUEUED"]),
            (["move", "a", "--before", "a"], 2, ["'a'", "itself"]),
            (["move", "a", "--after", "run"], 1, ["'run' is DOWNLOADING"]),
            (["move", "a", "--top", "--bottom"], 2, ["one of --top, --bottom"]),
            (["set", "a", "--priority", "urgent"], 2, ["'urgent'", "high, normal or low"]),
            (["add", http.url("/x"), "--priority", "soon"], 2, ["'soon'"]),
        ]
        for (arguments, status, parts) in refusals {
            let result = try daemon.runCLI(arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
            for part in parts { XCTAssertTrue(result.stderr.contains(part), "\(arguments): \(part) not in \(result.stderr)") }
        }
        XCTAssertEqual(try queue(), ["c", "b", "a", "low"])

        // Order and priority survive a restart (the slow one is interrupted and resumes first).
        try await daemon.restart()
        try await reconnect()
        _ = try await waitUntil("run") { $0.state.isActive }
        XCTAssertEqual(try queue(), ["c", "b", "a", "low"])
        let shown = try cli(["show", "low"])
        XCTAssertTrue(shown.contains("priority") && shown.contains("low"), shown)

        // Raised to high, it takes the stalled one's slot; that one waits with its bytes.
        let set = try cli(["set", "low", "--priority", "high", "--json"])
        XCTAssertTrue(set.contains("\"priority\":\"high\""), set)
        _ = try await waitFor("low", .downloading)
        let run = try await waitUntil("run") { $0.state == .queued && $0.downloadedBytes > 0 }
        XCTAssertEqual(run.stateReason, "waiting: high-priority download 'low' took its slot")
        XCTAssertGreaterThanOrEqual(run.downloadedBytes, 100_000, "its part file stays and counts")
        http.releaseStalls()
        for id in ["low", "run", "c", "b", "a"] { _ = try await waitFor(id, .completed) }
        let last = try XCTUnwrap(http.requests(for: "/run").last)
        let range = try XCTUnwrap(last.header("Range"), "the resumed transfer asks for the rest")
        XCTAssertNotEqual(range, "bytes=0-")
    }
}
