import Foundation
import StashClient
import StashTestSupport
import XCTest

/// `stash set ID --header` / `--clear-headers`, end to end: a real stashd fetching from a real
/// HTTP server takes a download's new headers on the transfers it starts from then on.
final class HeaderUpdateTests: DaemonTestCase {
    private func header(_ request: RecordedRequest, _ name: String) -> String? {
        request.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    func testARunningDownloadRestartsWithItsNewHeadersKeepingItsBytes() async throws {
        let size = 1 << 20
        var route = TestRoute(body: .pattern(size: size, seed: 91), etag: "\"h1\"")
        route.stallAfterBytes = size / 2
        route.stallTimes = 1
        http.serve(path: "/token.bin", route: route)
        let add = try daemon.runCLI(["add", "--id", "tok", "--header", "Authorization: Bearer old", "--header", "X-App: 7", http.url("/token.bin")])
        XCTAssertEqual(add.status, 0, add.stderr)
        let running = try await waitFor("tok", .downloading)
        try await eventually("the first half on disk") {
            ((try? FileManager.default.attributesOfItem(atPath: running.assetPath + ".part"))?[.size] as? Int ?? 0) >= size / 2
        }

        let events = try await client.events(ids: ["tok"])
        let set = try daemon.runCLI(["set", "tok", "--header", "authorization: Bearer new", "--json"])
        XCTAssertEqual(set.status, 0, set.stderr)
        // Subscribers are told: the record with its new headers, then its restart.
        var told: [String] = []
        for try await event in events {
            if case .settingsChanged(let download, let changed) = event.kind {
                XCTAssertEqual(download.headers.first?.value, "Bearer new")
                told.append(changed.joined())
            } else if case .stateChanged(let download, _) = event.kind, !told.isEmpty {
                told.append(download.state.name)
                break
            }
        }
        XCTAssertEqual(told, ["headers", "QUEUED"])
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(set.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(record["headers"] as? [String], ["authorization: Bearer new", "X-App: 7"])
        http.releaseStalls()
        let done = try await waitFor("tok", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/token.bin")!.body.sha256Hex)
        let fetched = http.requests(for: "/token.bin").filter { $0.method == "GET" }
        XCTAssertEqual(fetched.count, 2, "the first transfer and the one restarted on the new header")
        XCTAssertEqual(fetched.first.flatMap { header($0, "Authorization") }, "Bearer old")
        XCTAssertEqual(fetched.last.flatMap { header($0, "Authorization") }, "Bearer new")
        XCTAssertEqual(fetched.last.flatMap { header($0, "X-App") }, "7", "the other header is kept")
        let range = fetched.last.flatMap { header($0, "Range") } ?? ""
        XCTAssertTrue(range.hasPrefix("bytes=") && !range.hasPrefix("bytes=0-"), "the restart asked for the rest only: \(range)")

        let cleared = try daemon.runCLI(["set", "tok", "--clear-headers"])
        XCTAssertEqual(cleared.status, 0, cleared.stderr)
        let shown = try daemon.runCLI(["show", "tok"])
        XCTAssertFalse(shown.stdout.contains("Bearer"), shown.stdout)
    }

    func testBadHeadersAreRefusedNamingTheHeaderTheValueAndTheRule() async throws {
        http.serve(path: "/h.bin", size: 1000, seed: 92)
        XCTAssertEqual(try daemon.runCLI(["add", "--id", "h", http.url("/h.bin")]).status, 0)
        _ = try await waitFor("h", .completed)
        let big = "X-Big: " + String(repeating: "v", count: 100 * 1024)
        let refusals: [([String], Int32, [String])] = [
            (["set", "h", "--header", ": v"], 2, ["--header", "header name ''", "HTTP token"]),
            (["set", "h", "--header", "no colon"], 2, ["--header", "'no colon'", "'Name: value'"]),
            (["set", "h", "--header", big], 2, ["header 'X-Big'", "102400 bytes", "the limit is 8192"]),
            (["set", "h", "--license-header", "Authorization: t"], 2, ["license_headers", "'h' has no licence server"]),
            (["set", "nope", "--header", "X-A: 1"], 1, ["'nope'"]),
        ]
        for (arguments, status, parts) in refusals {
            let result = try daemon.runCLI(arguments)
            XCTAssertEqual(result.status, status, "\(arguments.prefix(3)): \(result.stderr)")
            for part in parts { XCTAssertTrue(result.stderr.contains(part), "\(part) not in \(result.stderr.prefix(500))") }
            XCTAssertLessThan(result.stderr.utf8.count, 2000, "a long value is cut")
        }
        // CR and LF cannot be typed into one argument as a header line; through the client they
        // reach the daemon, which refuses them.
        let injected = await assertFails(.invalidArgument) {
            try await client.setHeaders(id: "h", [HTTPHeader(name: "X-A", value: "1\r\nHost: evil")])
        }
        XCTAssertTrue(injected?.message.contains("'1\\r\\nHost: evil'") ?? false, "\(String(describing: injected))")
        let record = try await client.getDownload(id: "h")
        XCTAssertEqual(record.headers, [], "a refusal changes nothing")
    }

    /// `stash watch --json` prints a record line for each `stash set` of a watched download.
    func testWatchPrintsTheRecordOfEachSettingsChange() async throws {
        http.serve(path: "/w.bin", size: 1000, seed: 93)
        XCTAssertEqual(try daemon.runCLI(["add", "--id", "w", http.url("/w.bin")]).status, 0)
        _ = try await waitFor("w", .completed)
        let watch = try CLIProcess(["watch", "w", "--json", "--socket", daemon.socketPath])
        // With --json it prints nothing until a change: a new limit each round, until one
        // reaches it (the first may come before it has subscribed).
        var kilobytes = 1
        try await eventually("watch prints a changed rate limit") {
            kilobytes += 1
            XCTAssertEqual(try daemon.runCLI(["set", "w", "--rate-limit", "\(kilobytes)K"]).status, 0)
            return watch.waitForOutput(timeout: 0.05) { $0.contains(#""rateLimit":"#) }
        }
        XCTAssertEqual(try daemon.runCLI(["set", "w", "--header", "X-Token: t2"]).status, 0)
        XCTAssertTrue(watch.waitForOutput { $0.contains("X-Token: t2") && $0.contains(#""state":"COMPLETED""#) }, watch.stdout)
        watch.signal(SIGKILL)
    }
}
