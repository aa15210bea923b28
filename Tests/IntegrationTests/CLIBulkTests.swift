import Foundation
import StashClient
import StashTestSupport
import XCTest

/// `cancel`, `resume` and `pause` over many downloads (`--all`, `--group`): what they take,
/// and the question before `cancel` deletes them.
final class CLIBulkTests: DaemonTestCase {
    /// Three completed downloads, the case of the issue (they were deleted without a word).
    private func addCompleted(group: String = "") async throws {
        for index in 0..<3 {
            http.serve(path: "/done\(index)", size: 1000 + index, seed: UInt64(index + 1))
            _ = try await client.addDownload(AddDownloadRequest(id: "done\(index)", uri: http.url("/done\(index)"), group: group))
            try await waitFor("done\(index)", .completed)
        }
    }

    private func ids() async throws -> [String] {
        try await client.allDownloads().map(\.id).sorted()
    }

    func testCancelAllRefusesWithoutATerminalOrYes() async throws {
        try await addCompleted()
        let refused = try daemon.runCLI(["cancel", "--all"])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.hasPrefix("stash: cancel --all would delete 3 download(s) (3 COMPLETED; "), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("add --yes"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("Usage:"), "a refusal is not a usage lesson: \(refused.stderr)")
        let left = try await ids()
        XCTAssertEqual(left, ["done0", "done1", "done2"], "nothing is cancelled")

        let yes = try daemon.runCLI(["cancel", "--all", "--yes"])
        XCTAssertEqual(yes.status, 0, yes.stderr)
        XCTAssertEqual(yes.stdout, "cancelled 3 download(s)\n")
        let none = try await ids()
        XCTAssertEqual(none, [])
        let nothing = try daemon.runCLI(["cancel", "--all"])
        XCTAssertEqual(nothing.status, 0, "nothing to delete, nothing to ask: \(nothing.stderr)")
    }

    func testCancelAllAsksOnATerminal() async throws {
        try await addCompleted()
        let declined = try CLIProcess(["cancel", "--all", "--socket", daemon.socketPath], terminal: true)
        XCTAssertTrue(declined.waitForOutput { $0.contains("Cancel 3 download(s) (3 COMPLETED; ") && $0.contains("? [y/N] ") }, declined.stdout)
        declined.type("n\n")
        XCTAssertEqual(declined.waitForExit(), 1, declined.stdout)
        XCTAssertTrue(declined.stdout.contains("stash: nothing cancelled"), declined.stdout)
        let left = try await ids()
        XCTAssertEqual(left.count, 3)

        let accepted = try CLIProcess(["cancel", "--all", "--socket", daemon.socketPath], terminal: true)
        XCTAssertTrue(accepted.waitForOutput { $0.contains("[y/N] ") }, accepted.stdout)
        accepted.type("y\n")
        XCTAssertEqual(accepted.waitForExit(), 0, accepted.stdout)
        XCTAssertTrue(accepted.stdout.contains("cancelled 3 download(s)"), accepted.stdout)
        let none = try await ids()
        XCTAssertEqual(none, [])
    }

    /// --group deletes as --all does, so it asks the same way.
    func testCancelGroupAsksAsAllDoes() async throws {
        try await addCompleted(group: "course/l1")
        let refused = try daemon.runCLI(["cancel", "--group", "course"])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.hasPrefix("stash: cancel --group course would delete 3 download(s)"), refused.stderr)
        let yes = try daemon.runCLI(["cancel", "--group", "course", "-y"])
        XCTAssertEqual(yes.stdout, "cancelled 3 download(s)\n", yes.stderr)
    }

    /// resume --all takes the PAUSED downloads; FAILED ones only with --failed; STOPPED never.
    func testResumeAllTakesFailedOnlyWithFailed() async throws {
        http.serve(path: "/gone", route: { var route = TestRoute(body: .bytes([])); route.alwaysStatus = 404; return route }())
        _ = try await client.addDownload(AddDownloadRequest(id: "failed", uri: http.url("/gone"), group: "g"))
        try await waitFor("failed", .failed)
        for id in ["paused", "stopped"] {
            http.serve(path: "/\(id)", size: 4_000_000)
            http.update(path: "/\(id)") { $0.bytesPerSecond = 200_000 }
            _ = try await client.addDownload(AddDownloadRequest(id: id, uri: http.url("/\(id)"), group: "g"))
        }
        _ = try await client.pause(id: "paused")
        _ = try await client.stop(id: "stopped", reason: "no Wi-Fi")

        let all = try daemon.runCLI(["resume", "--all"])
        XCTAssertEqual(all.stdout, "resumed 1 download(s)\n", all.stderr)
        var failed = try await client.getDownload(id: "failed")
        XCTAssertEqual(failed.state, .failed, "a failed download waits for --failed")
        let paused = try await client.getDownload(id: "paused")
        XCTAssertNotEqual(paused.state, .paused)

        _ = try await client.pause(id: "paused")
        let group = try daemon.runCLI(["resume", "--group", "g"])
        XCTAssertEqual(group.stdout, "resumed 1 download(s)\n", group.stderr)
        failed = try await client.getDownload(id: "failed")
        XCTAssertEqual(failed.state, .failed)

        http.serve(path: "/gone", size: 1000)
        let withFailed = try daemon.runCLI(["resume", "--all", "--failed"])
        XCTAssertEqual(withFailed.stdout, "resumed 1 download(s)\n", withFailed.stderr)
        try await waitFor("failed", .completed)
        let stopped = try await client.getDownload(id: "stopped")
        XCTAssertEqual(stopped.state, .stopped, "only its own resume starts a stopped download")

        let misused = try daemon.runCLI(["resume", "paused", "--failed"])
        XCTAssertEqual(misused.status, 2, misused.stderr)
        XCTAssertTrue(misused.stderr.contains("--failed applies to --all and --group"), misused.stderr)
    }
}
