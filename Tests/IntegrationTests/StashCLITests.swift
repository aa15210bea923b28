import Foundation
import StashClient
import StashCrypto
import StashTestSupport
import XCTest

/// The `stash` command line against a real stashd: output formats and exit statuses.
final class StashCLITests: DaemonTestCase {

    private static let recordKeys: Set<String> = [
        "id", "uri", "title", "state", "progress", "downloadedBytes", "totalBytes", "speed", "remainingTime",
        "quality", "hasSubtitles", "hasDRM", "assetPath", "error", "createdAt", "completedAt", "priority",
    ]

    func testUnreachableDaemonExits3WithHint() throws {
        let path = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-none") + "/stashd.sock"
        let result = try DaemonProcess.run(executable: DaemonProcess.executableURL(named: "stash"), arguments: ["ls", "--socket", path])
        XCTAssertEqual(result.status, 3)
        XCTAssertTrue(result.stderr.hasPrefix("stash: cannot reach stashd at \(path)"), result.stderr)
        XCTAssertTrue(result.stderr.contains("start it with `stashd --socket \(path)`"), result.stderr)
    }

    /// At the default socket, the hint is the socket unit where the user units are installed
    /// (here ~/.config/systemd/user), and plain `stashd` where they are not.
    func testUnreachableDaemonNamesTheSocketUnitWhereItIsInstalled() throws {
        let home = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-home")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let runtime = home + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        // No system folder of this machine counts: XDG_DATA_DIRS points into the test's home.
        let environment = [
            "HOME": home, "XDG_RUNTIME_DIR": runtime, "XDG_CONFIG_HOME": "", "XDG_DATA_HOME": "", "XDG_DATA_DIRS": home + "/share",
            "STASH_SOCKET": "",
        ]
        let stash = try DaemonProcess.executableURL(named: "stash")
        let socket = runtime + "/stash/stashd.sock"
        // A machine with the units installed system-wide has no plain case to show.
        if !["/etc/systemd/user", "/usr/local/lib/systemd/user", "/usr/lib/systemd/user"].contains(where: { exists($0 + "/stashd.socket") }) {
            let plain = try DaemonProcess.run(executable: stash, arguments: ["ls"], environment: environment)
            XCTAssertEqual(plain.status, 3, plain.stderr)
            XCTAssertTrue(plain.stderr.contains("cannot reach stashd at \(socket)"), plain.stderr)
            XCTAssertTrue(plain.stderr.contains("start it with `stashd`"), plain.stderr)
        }
        try FileManager.default.createDirectory(atPath: home + "/.config/systemd/user", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: home + "/.config/systemd/user/stashd.socket", contents: Data()))
        let unit = try DaemonProcess.run(executable: stash, arguments: ["ls"], environment: environment)
        XCTAssertEqual(unit.status, 3, unit.stderr)
        XCTAssertTrue(unit.stderr.contains("cannot reach stashd at \(socket)"), unit.stderr)
        XCTAssertTrue(unit.stderr.contains("start it with `systemctl --user start stashd.socket`"), unit.stderr)
    }

    func testGlobalOptionsGoBeforeOrAfterTheCommand() async throws {
        http.serve(path: "/g", size: 1000)
        _ = try await client.addDownload(AddDownloadRequest(id: "g", uri: http.url("/g")))
        try await waitFor("g", .completed)
        let stash = try DaemonProcess.executableURL(named: "stash")
        let socket = daemon.socketPath
        for arguments in [
            ["--socket", socket, "--json", "ls"], ["--json", "ls", "--socket", socket], ["ls", "--json", "--socket=\(socket)"],
            ["--socket", socket, "ls", "--socket", socket, "--json"],
        ] {
            let result = try DaemonProcess.run(executable: stash, arguments: arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertEqual(try jsonLines(result.stdout).map { $0["id"] as? String }, ["g"], "\(arguments): \(result.stdout)")
        }
        // A command under a command group, with the options before, between and after.
        for arguments in [
            ["--json", "--socket", socket, "config", "get", "max-parallel"], ["config", "--json", "get", "max-parallel", "--socket", socket],
        ] {
            let result = try DaemonProcess.run(executable: stash, arguments: arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertEqual(try jsonLines(result.stdout).first?["max-parallel"] as? Int, 3, "\(arguments): \(result.stdout)")
        }
        let elsewhere = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-none") + "/stashd.sock"
        let conflict = try DaemonProcess.run(executable: stash, arguments: ["--socket", socket, "ls", "--socket", elsewhere])
        XCTAssertEqual(conflict.status, 2, conflict.stderr)
        XCTAssertTrue(conflict.stderr.hasPrefix("stash: --socket is given 2 times with different paths ('\(socket)', '\(elsewhere)')"), conflict.stderr)
        let unreachable = try DaemonProcess.run(executable: stash, arguments: ["--socket", elsewhere, "ls"])
        XCTAssertEqual(unreachable.status, 3, "the path given before the command is the one used: \(unreachable.stderr)")
        XCTAssertTrue(unreachable.stderr.contains(elsewhere), unreachable.stderr)
    }

    func testUsageErrorsExit2() throws {
        let missingURL = try daemon.runCLI(["add"])
        XCTAssertEqual(missingURL.status, 2, missingURL.stderr)
        XCTAssertTrue(missingURL.stderr.hasPrefix("stash: "), missingURL.stderr)
        let badState = try daemon.runCLI(["ls", "--state", "sleeping"])
        XCTAssertEqual(badState.status, 2, badState.stderr)
        let unknown = try daemon.runCLI(["frobnicate"])
        XCTAssertEqual(unknown.status, 2, unknown.stderr)
        let badURL = try daemon.runCLI(["add", "ftp://example.com/x"])
        XCTAssertEqual(badURL.status, 2, badURL.stderr)
        XCTAssertTrue(badURL.stderr.contains("ftp"), badURL.stderr)
    }

    func testStashdUsageErrorsExit2AsStashsDo() throws {
        let stashd = try DaemonProcess.executableURL(named: "stashd")
        for arguments in [["--frobnicate"], ["--log-level", "loud"], ["--max-parallel", "0"]] {
            let result = try DaemonProcess.run(executable: stashd, arguments: arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("stashd: "), result.stderr)
        }
        let help = try DaemonProcess.run(executable: stashd, arguments: ["--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        XCTAssertTrue(help.stdout.contains("2 usage error"), help.stdout)
    }

    /// A server the daemon could not use is a failure of the command (1), not a daemon that
    /// cannot be reached (3): nothing there says to start stashd.
    func testARemoteFailureExits1() throws {
        http.serve(path: "/missing.m3u8", route: { var route = TestRoute(body: .bytes([])); route.alwaysStatus = 404; return route }())
        let plan = try daemon.runCLI(["plan", http.url("/missing.m3u8")])
        XCTAssertEqual(plan.status, 1, plan.stderr)
        XCTAssertTrue(plan.stderr.contains("HTTP 404"), plan.stderr)
        XCTAssertFalse(plan.stderr.contains("stashd"), plan.stderr)
    }

    func testMistypedCommandsAndValuesSayWhatIsValid() throws {
        let mistyped = try daemon.runCLI(["lst"])
        XCTAssertEqual(mistyped.status, 2, mistyped.stderr)
        XCTAssertEqual(mistyped.stderr, "stash: 'lst' is not a command of 'stash'; did you mean 'stash ls'? (see 'stash --help')\n")
        let quality = try daemon.runCLI(["add", "--quality", "ultra", http.url("/a.m3u8")])
        XCTAssertEqual(quality.status, 2, quality.stderr)
        XCTAssertTrue(quality.stderr.hasPrefix("stash: --quality 'ultra' is not one of low, medium, high, auto\n"), quality.stderr)
        XCTAssertTrue(quality.stderr.contains("Usage: stash add "), "the usage of add, not of stash: \(quality.stderr)")
    }

    func testPlanOfSomethingElseSaysItIsNotAPlaylist() throws {
        // Bytes of a video (0xFF is never UTF-8), and a web page.
        http.serve(path: "/movie.mp4", route: TestRoute(body: .bytes([0x00, 0x00, 0x00, 0x18, 0xFF, 0xD8] + Array(repeating: 0x41, count: 994)), contentType: "video/mp4"))
        http.serve(path: "/page.m3u8", route: TestRoute(body: .bytes(Array("<!doctype html>\n<p>moved</p>\n".utf8)), contentType: "text/html"))
        let video = try daemon.runCLI(["plan", http.url("/movie.mp4")])
        XCTAssertEqual(video.status, 2, video.stderr)
        XCTAssertEqual(video.stderr, "stash: \(http.url("/movie.mp4")) is not a playlist: it does not start with #EXTM3U (the server sent 1000 bytes of video/mp4)\n")
        let page = try daemon.runCLI(["plan", http.url("/page.m3u8")])
        XCTAssertEqual(page.stderr, "stash: \(http.url("/page.m3u8")) is not a playlist: its first line is '<!doctype html>', not #EXTM3U (the server sent 29 bytes of text/html)\n")
    }

    /// --deep reads only the files that have a digest; the summary counts those.
    func testDeepVerifyCountsTheDigestsItChecked() throws {
        let body = (0..<2000).map { UInt8($0 % 251) }
        http.serve(path: "/d/0.jpg", body: body)
        for index in 1..<4 { http.serve(path: "/d/\(index).jpg", size: 1000 + index, seed: UInt64(index)) }
        let digest = SHA256.hex(SHA256.hash(body))
        let list = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-list") + "/pages.txt"
        defer { try? FileManager.default.removeItem(atPath: (list as NSString).deletingLastPathComponent) }
        let lines = ["\(http.url("/d/0.jpg"))\t0.jpg\t2000\t\(digest)"] + (1..<4).map { http.url("/d/\($0).jpg") }
        try lines.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let added = try daemon.runCLI(["add", "--bundle", "--id", "pages", "--from-file", list, "--wait"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let deep = try daemon.runCLI(["verify", "--deep"])
        XCTAssertEqual(deep.status, 0, deep.stdout + deep.stderr)
        XCTAssertTrue(deep.stdout.hasPrefix("0 finding(s) in 1 download(s), 4 file(s) checked, 1 of them by sha256 in "), deep.stdout)
        let json = try daemon.runCLI(["verify", "--deep", "--json"])
        let report = try XCTUnwrap(try jsonLines(json.stdout).first)
        XCTAssertEqual(report["filesChecked"] as? Int, 4)
        XCTAssertEqual(report["digestsChecked"] as? Int, 1)
        let shallow = try daemon.runCLI(["verify"])
        XCTAssertFalse(shallow.stdout.contains("sha256"), shallow.stdout)
    }

    func testShowPrintsAnHLSDownloadsChoiceAndSegments() throws {
        http.serve(path: "/hls/index.m3u8", body: Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg0.ts\n#EXTINF:2,\nseg1.ts\n#EXT-X-ENDLIST\n".utf8))
        for index in 0..<2 { http.serve(path: "/hls/seg\(index).ts", body: TestBody.mpegTS(size: 1880, seed: UInt64(index + 1))) }
        let add = try daemon.runCLI(["add", http.url("/hls/index.m3u8"), "--id", "h", "--quality", "medium", "--max-height", "720", "--wait"])
        XCTAssertEqual(add.status, 0, add.stderr)
        let show = try daemon.runCLI(["show", "h"])
        XCTAssertTrue(show.stdout.contains("\nhls: quality medium, at most 720 px high, no subtitles, default audio, 8 segments at once\n"), show.stdout)
        XCTAssertTrue(show.stdout.contains("\nsegments: 2 of 2 done\n"), show.stdout)
        let json = try XCTUnwrap(try jsonLines(try daemon.runCLI(["show", "h", "--json"]).stdout).first)
        XCTAssertEqual((json["hls"] as? [String: Any])?["maxHeight"] as? Int, 720)
        XCTAssertEqual(json["segmentsTotal"] as? Int, 2)
    }

    /// One sentence each: the URL once, curl's text once, the status once.
    func testErrorsSayEachThingOnce() throws {
        // Nothing listens on port 1: the connection is refused at every attempt.
        let refusedURL = "http://127.0.0.1:1/x"
        let refused = try daemon.runCLI(["add", refusedURL, "--id", "refused", "--wait", "--json"])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        let network = try XCTUnwrap(try jsonLines(refused.stdout).last?["error"] as? [String: Any])
        let message = try XCTUnwrap(network["message"] as? String)
        XCTAssertTrue(message.hasPrefix("Failed to connect to 127.0.0.1 port 1 "), message)
        XCTAssertTrue(message.hasSuffix(" (\(refusedURL)); gave up after 5 attempts"), message)
        XCTAssertEqual(message.components(separatedBy: "onnect").count, 2, "curl's text once: \(message)")

        http.serve(path: "/c/page.jpg", size: 500)
        http.serve(path: "/c/gone.jpg", route: { var route = TestRoute(body: .bytes([])); route.alwaysStatus = 404; return route }())
        let gone = http.url("/c/gone.jpg")
        let bundle = try daemon.runCLI(["add", "--bundle", "--id", "c", http.url("/c/page.jpg"), gone, "--wait"])
        XCTAssertEqual(bundle.status, 1, bundle.stderr)
        XCTAssertEqual(bundle.stderr, "stash: download c ended FAILED: http error: file 'gone.jpg': HTTP 404 Not Found from \(gone)\n")
        let show = try daemon.runCLI(["show", "c"])
        XCTAssertTrue(show.stdout.contains("\nerror: http error: file 'gone.jpg': HTTP 404 Not Found from \(gone)\n"), show.stdout)
    }

    func testHelpListsEveryCommandAndExits0() throws {
        let result = try DaemonProcess.run(executable: DaemonProcess.executableURL(named: "stash"), arguments: ["--help"])
        XCTAssertEqual(result.status, 0)
        for command in ["add", "ls", "show", "has", "pause", "resume", "cancel", "wait", "watch", "info", "config", "verify", "purge"] {
            XCTAssertTrue(result.stdout.contains("  \(command) "), "help lacks \(command):\n\(result.stdout)")
        }
    }

    func testABundleFromAListWithPathsThenVerifyAndPurge() throws {
        var lines = ["# a chapter", ""]
        for index in 0..<4 {
            http.serve(path: "/c/\(index).jpg", size: 10_000 + index, seed: UInt64(index + 1))
            lines.append(index == 3 ? http.url("/c/\(index).jpg") : "\(http.url("/c/\(index).jpg"))\tpages/p\(index).jpg\t\(10_000 + index)")
        }
        let list = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-list") + "/chapter.txt"
        defer { try? FileManager.default.removeItem(atPath: (list as NSString).deletingLastPathComponent) }
        try lines.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let added = try daemon.runCLI(["add", "--bundle", "--id", "ch1", "--title", "Chapter 1", "--from-file", list, "--wait", "--json"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let last = try XCTUnwrap(try jsonLines(added.stdout).last)
        XCTAssertEqual(last["state"] as? String, "COMPLETED")
        XCTAssertEqual(last["bundle"] as? Bool, true)
        XCTAssertEqual(last["filesDone"] as? Int, 4)
        XCTAssertEqual(last["filesTotal"] as? Int, 4)
        let folder = daemon.dataDir + "/assets/ch1"
        for index in 0..<3 { XCTAssertTrue(exists("\(folder)/pages/p\(index).jpg")) }
        XCTAssertTrue(exists("\(folder)/3.jpg"), "a line without a path takes the URL's file name")

        let show = try daemon.runCLI(["show", "ch1"])
        XCTAssertTrue(show.stdout.contains("files: 4 of 4 done"), show.stdout)
        XCTAssertTrue(show.stdout.contains("file: pages/p0.jpg done"), show.stdout)

        try FileManager.default.removeItem(atPath: "\(folder)/pages/p1.jpg")
        try FileManager.default.createDirectory(atPath: daemon.dataDir + "/assets/stray", withIntermediateDirectories: true)
        try Data(count: 100).write(to: URL(fileURLWithPath: daemon.dataDir + "/assets/stray/x"))
        let report = try daemon.runCLI(["verify", "--dry-run", "--repair"])
        XCTAssertEqual(report.status, 1, "findings left unrepaired exit 1")
        XCTAssertTrue(report.stdout.contains("missing-file [ch1] \(folder)/pages/p1.jpg"), report.stdout)
        XCTAssertTrue(report.stdout.contains("orphan-folder \(daemon.dataDir)/assets/stray"), report.stdout)
        let purge = try daemon.runCLI(["purge", "--json"])
        XCTAssertEqual(purge.status, 0, purge.stderr)
        let purged = try XCTUnwrap(try jsonLines(purge.stdout).first)
        XCTAssertEqual(purged["filesDeleted"] as? Int, 1)
        XCTAssertEqual(purged["bytesFreed"] as? Int, 100)
        let repair = try daemon.runCLI(["verify", "--repair"])
        XCTAssertEqual(repair.status, 0, repair.stdout)
        XCTAssertTrue(repair.stdout.contains("1 download(s) re-queued"), repair.stdout)
        let waited = try daemon.runCLI(["wait", "ch1", "--json"])
        XCTAssertEqual(waited.status, 0, waited.stderr)
        XCTAssertTrue(exists("\(folder)/pages/p1.jpg"))

        let refused = try daemon.runCLI(["add", "--bundle", "--id", "bad", http.url("/c/0.jpg"), http.url("/c/0.jpg")])
        XCTAssertEqual(refused.status, 2, "two files with the same name: \(refused.stderr)")
        XCTAssertTrue(refused.stderr.contains("files[1]"), refused.stderr)
        let info = try daemon.runCLI(["info"])
        XCTAssertTrue(info.stdout.contains("last verify: "), info.stdout)
    }

    func testAddWaitPrintsJSONRecordsAndExits0() throws {
        http.serve(path: "/file", size: 300_000)
        let result = try daemon.runCLI(["add", http.url("/file"), "--id", "cli-1", "--title", "A file", "--wait", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let records = try jsonLines(result.stdout)
        XCTAssertFalse(records.isEmpty)
        for record in records { XCTAssertEqual(Set(record.keys).subtracting(["stateReason"]), Self.recordKeys) }
        let last = try XCTUnwrap(records.last)
        XCTAssertEqual(last["id"] as? String, "cli-1")
        XCTAssertEqual(last["title"] as? String, "A file")
        XCTAssertEqual(last["state"] as? String, "COMPLETED")
        XCTAssertEqual(last["progress"] as? Int, 100)
        XCTAssertEqual(last["totalBytes"] as? Int, 300_000)
        XCTAssertTrue(last["error"] is NSNull)
        XCTAssertNotNil(last["completedAt"] as? String)

        let show = try daemon.runCLI(["show", "cli-1", "--json"])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertEqual(try jsonLines(show.stdout).first?["state"] as? String, "COMPLETED")

        let has = try daemon.runCLI(["has", "cli-1"])
        XCTAssertEqual(has.status, 0)
        XCTAssertEqual(has.stdout, "yes COMPLETED\n")
    }

    func testFailedDownloadExits1WithItsError() throws {
        http.serve(path: "/gone", route: { var route = TestRoute(body: .bytes([])); route.alwaysStatus = 404; return route }())
        let result = try daemon.runCLI(["add", http.url("/gone"), "--id", "gone", "--wait", "--json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("gone") && result.stderr.contains("FAILED"), result.stderr)
        let last = try XCTUnwrap(try jsonLines(result.stdout).last)
        XCTAssertEqual(last["state"] as? String, "FAILED")
        let error = try XCTUnwrap(last["error"] as? [String: Any])
        XCTAssertEqual(error["code"] as? String, "http")
        XCTAssertEqual(error["httpStatus"] as? Int, 404)

        let wait = try daemon.runCLI(["wait", "gone"])
        XCTAssertEqual(wait.status, 1)
    }

    func testHasMissingExits1() throws {
        let result = try daemon.runCLI(["has", "nothing-here"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "no\n")
    }

    func testFromFileListAndTable() throws {
        http.serve(path: "/one", size: 1000)
        http.serve(path: "/two", size: 2000)
        let list = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-list") + "/urls.txt"
        try "# two files\n\(http.url("/one"))\n\n   \n\(http.url("/two"))\n".write(toFile: list, atomically: true, encoding: .utf8)
        let add = try daemon.runCLI(["add", "--from-file", list, "--wait"])
        XCTAssertEqual(add.status, 0, add.stderr)
        let ls = try daemon.runCLI(["ls"])
        XCTAssertEqual(ls.status, 0, ls.stderr)
        let lines = ls.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, ls.stdout)
        XCTAssertTrue(lines[0].hasPrefix("ID  "), ls.stdout)
        XCTAssertTrue(lines[1].contains("COMPLETED") && lines[1].contains("100%"), ls.stdout)
        let json = try daemon.runCLI(["ls", "--json", "--state", "completed"])
        XCTAssertEqual(try jsonLines(json.stdout).count, 2)
    }

    func testConfigSetAndGet() throws {
        let set = try daemon.runCLI(["config", "set", "max-parallel", "5"])
        XCTAssertEqual(set.status, 0, set.stderr)
        let get = try daemon.runCLI(["config", "get", "max-parallel"])
        XCTAssertEqual(get.stdout, "5\n")
        let bad = try daemon.runCLI(["config", "set", "max-parallel", "0"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("max-parallel"), bad.stderr)
    }

    private func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try XCTUnwrap(object as? [String: Any], "not a JSON object: \(line)")
        }
    }
}
