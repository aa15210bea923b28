import Foundation
import StashClient
import StashTestSupport
import XCTest

/// What `stash wait`, `watch` and `add --wait` show while downloads change: JSON lines when
/// piped, bars on a terminal, and what Ctrl-C says.
final class CLIProgressTests: DaemonTestCase {
    private static let rank = ["QUEUED": 0, "PREPARING": 1, "DOWNLOADING": 2, "COMPLETED": 3]

    private func serveSlow(_ path: String, size: Int = 4_000_000, bytesPerSecond: Int = 400_000) {
        http.serve(path: path, size: size)
        http.update(path: path) { $0.bytesPerSecond = bytesPerSecond }
    }

    private func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The issue's case: piped, `add --bundle … --wait` printed PREPARING, QUEUED, PREPARING,
    /// DOWNLOADING, as the record read after the add was newer than the events waiting behind it.
    func testPipedAddWaitNeverGoesBack() throws {
        for round in 0..<4 {
            let urls = (0..<3).map { index -> String in
                http.serve(path: "/r\(round)/\(index).jpg", size: 150_000, seed: UInt64(round * 10 + index))
                return http.url("/r\(round)/\(index).jpg")
            }
            let result = try daemon.runCLI(["add", "--bundle", "--id", "r\(round)"] + urls + ["--wait"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let states = jsonLines(result.stdout).compactMap { $0["state"] as? String }
            XCTAssertEqual(states.last, "COMPLETED", result.stdout)
            for (earlier, later) in zip(states, states.dropFirst()) {
                XCTAssertLessThanOrEqual(Self.rank[earlier] ?? 99, Self.rank[later] ?? -1, "went back: \(states)")
            }
        }
    }

    func testPipedWaitShowsAPauseAtOnceWithoutSpeed() async throws {
        serveSlow("/slow")
        _ = try await client.addDownload(AddDownloadRequest(id: "slow", uri: http.url("/slow")))
        let wait = try CLIProcess(["wait", "slow", "--socket", daemon.socketPath])
        XCTAssertTrue(wait.waitForOutput { $0.contains(#""state":"DOWNLOADING""#) }, wait.stdout + wait.stderr)
        _ = try await client.pause(id: "slow")
        XCTAssertTrue(wait.waitForOutput(timeout: 2) { $0.contains(#""state":"PAUSED""#) }, wait.stdout)
        // Reports sent before the pause may follow it; none shows a speed or an ETA. The
        // cancel's events come after all of them, and end the command.
        try await client.cancel(id: "slow")
        XCTAssertEqual(wait.waitForExit(), 1, "a cancelled download ends wait with 1: \(wait.stderr)")
        let afterPause = jsonLines(wait.stdout).drop { $0["state"] as? String != "PAUSED" }
            .prefix { $0["state"] as? String != "REMOVING" }
        XCTAssertFalse(afterPause.isEmpty)
        for line in afterPause {
            XCTAssertEqual(line["state"] as? String, "PAUSED")
            XCTAssertEqual(line["speed"] as? Int, 0, "\(line)")
            XCTAssertTrue(line["remainingTime"] is NSNull, "\(line)")
        }
    }

    /// On a terminal, pausing every download redraws every bar at once, each with the title.
    func testBarsRedrawEveryStateChangeAtOnceAndShowTheTitle() async throws {
        for (id, title) in [("a", "First film"), ("b", "Second film")] {
            serveSlow("/\(id)")
            _ = try await client.addDownload(AddDownloadRequest(id: id, uri: http.url("/\(id)"), title: title))
        }
        let watch = try CLIProcess(["watch", "--socket", daemon.socketPath], terminal: true)
        XCTAssertTrue(watch.waitForOutput {
            Self.lastBar(of: "First film", in: $0)?.contains("DOWNLOADING") == true
                && Self.lastBar(of: "Second film", in: $0)?.contains("DOWNLOADING") == true
        }, watch.stdout)
        let paused = try await client.pauseAll()
        XCTAssertEqual(paused, 2)
        XCTAssertTrue(watch.waitForOutput(timeout: 1.5) {
            Self.lastBar(of: "First film", in: $0)?.hasSuffix("PAUSED") == true
                && Self.lastBar(of: "Second film", in: $0)?.hasSuffix("PAUSED") == true
        }, "bars after the pause: \(Self.lastBar(of: "First film", in: watch.stdout) ?? "none") / \(Self.lastBar(of: "Second film", in: watch.stdout) ?? "none")")
        XCTAssertFalse(Self.lastBar(of: "First film", in: watch.stdout)?.contains("ETA") ?? true, "no ETA for a paused download")
        watch.signal(SIGKILL)
    }

    /// The last bar drawn for a download: each redraw writes its lines after "\r" and a clear.
    private static func lastBar(of label: String, in output: String) -> String? {
        output.components(separatedBy: "\u{1B}[2K").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .last { $0.hasPrefix(label) }
    }

    /// stashd going away while a command follows it is "cannot be reached" (3), as at the start.
    func testLosingTheDaemonWhileWaitingExits3() async throws {
        serveSlow("/away")
        _ = try await client.addDownload(AddDownloadRequest(id: "away", uri: http.url("/away")))
        let wait = try CLIProcess(["wait", "away", "--socket", daemon.socketPath])
        XCTAssertTrue(wait.waitForOutput { $0.contains(#""state":"DOWNLOADING""#) }, wait.stdout + wait.stderr)
        XCTAssertEqual(daemon.terminate(), 0)
        XCTAssertEqual(wait.waitForExit(), 3, wait.stderr)
        XCTAssertTrue(wait.stderr.contains("connection to stashd closed"), wait.stderr)
    }

    func testCtrlCOnAddWaitSaysTheDownloadGoesOn() async throws {
        serveSlow("/long")
        let closedBefore = daemon.log().components(separatedBy: "connection closed").count - 1
        let add = try CLIProcess(["add", http.url("/long"), "--id", "long", "--wait", "--socket", daemon.socketPath])
        XCTAssertTrue(add.waitForOutput { $0.contains(#""state":"DOWNLOADING""#) }, add.stdout + add.stderr)
        add.signal(SIGINT)
        XCTAssertEqual(add.waitForExit(), 130, add.stderr)
        XCTAssertTrue(add.stderr.hasPrefix("stash: stopped waiting; stashd goes on with download long."), add.stderr)
        XCTAssertTrue(add.stderr.contains("`stash wait long`") && add.stderr.contains("`stash watch`"), add.stderr)
        // Once stashd has seen the command's connection close, the download still runs and
        // receives more bytes.
        try await eventually("stashd to see the command's connection close") {
            self.daemon.log().components(separatedBy: "connection closed").count - 1 >= closedBefore + 1
        }
        let atExit = try await client.getDownload(id: "long").downloadedBytes
        let download = try await waitUntil("long") { $0.state != .downloading || $0.downloadedBytes > atExit }
        XCTAssertEqual(download.state, .downloading, "the download goes on")
    }
}
