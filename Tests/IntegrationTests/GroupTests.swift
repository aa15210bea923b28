import Foundation
import StashClient
import StashCore
import StashTestSupport
import StashWire
import XCTest

/// App data travels with a download as given; groups filter lists and add up.
final class GroupTests: DaemonTestCase {
    func testAppDataAndGroupRoundTripAndSurviveARestart() async throws {
        http.serve(path: "/p1.jpg", size: 2000)
        let appData = Array(#"{"series":"One Piece","chapter":12}"#.utf8) + [0, 255, 1]
        let added = try await client.addDownload(AddDownloadRequest(
            id: "p1", uri: http.url("/p1.jpg"), appData: appData, group: "one-piece/chapter-12"))
        XCTAssertEqual(added.download.appData, appData)
        XCTAssertEqual(added.download.group, "one-piece/chapter-12")
        try await waitFor("p1", .completed)
        try await daemon.restart()
        try await reconnect()
        let after = try await client.getDownload(id: "p1")
        XCTAssertEqual(after.appData, appData, "returned as given, bytes and all")
        XCTAssertEqual(after.group, "one-piece/chapter-12")
    }

    func testBadAppDataAndGroupsAreRefusedNamingTheLimit() async throws {
        let big = await assertFails(.invalidArgument) {
            try await self.client.addDownload(AddDownloadRequest(uri: self.http.url("/x"), appData: [UInt8](repeating: 1, count: 65_537)))
        }
        XCTAssertTrue(big?.message.contains("65537") ?? false, big?.message ?? "")
        XCTAssertTrue(big?.message.contains("65536") ?? false, big?.message ?? "")
        for bad in ["a//b", "../x", "a/./b", "/lead", "trail/", "sp ace"] {
            let error = await assertFails(.invalidArgument) {
                try await self.client.addDownload(AddDownloadRequest(uri: self.http.url("/x"), group: bad))
            }
            XCTAssertTrue(error?.message.contains("group") ?? false, "\(bad): \(error?.message ?? "")")
        }
        await assertFails(.invalidArgument) { try await self.client.listDownloads(group: "a//b") }
    }

    func testAGroupListsItselfAndTheGroupsUnderItWithTotals() async throws {
        for (index, group) in ["one-piece/chapter-1", "one-piece/chapter-2", "one-piece-2/chapter-1", "naruto"].enumerated() {
            http.serve(path: "/g\(index)", size: 1000 * (index + 1))
            _ = try await client.addDownload(AddDownloadRequest(id: "g\(index)", uri: http.url("/g\(index)"), group: group))
        }
        for index in 0..<4 { try await waitFor("g\(index)", .completed) }

        let series = try await client.listDownloads(group: "one-piece")
        XCTAssertEqual(series.downloads.map(\.id), ["g0", "g1"], "one-piece-2 is another group")
        XCTAssertEqual(series.total, 2)
        XCTAssertEqual(series.totals.bytesDownloaded, 3000)
        XCTAssertEqual(series.totals.bytesTotal, 3000)
        XCTAssertEqual(series.totals.filesDone, 2)
        XCTAssertEqual(series.totals.states, [.completed: 2])
        let chapter = try await client.listDownloads(group: "one-piece/chapter-2")
        XCTAssertEqual(chapter.downloads.map(\.id), ["g1"])
        let paged = try await client.listDownloads(pageSize: 1, group: "one-piece")
        XCTAssertEqual(paged.downloads.count, 1)
        XCTAssertEqual(paged.totals.bytesDownloaded, 3000, "totals cover every page")
        let all = try await client.listDownloads()
        XCTAssertEqual(all.total, 4)

        let ls = try daemon.runCLI(["ls", "--group", "one-piece"])
        XCTAssertEqual(ls.status, 0, ls.stderr)
        let last = ls.stdout.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(last.hasPrefix("group one-piece: 2 download(s)"), ls.stdout)
        XCTAssertTrue(last.contains("2 of 2 file(s) done") && last.contains("2 COMPLETED"), last)
        let json = try daemon.runCLI(["ls", "--group", "one-piece", "--json"])
        XCTAssertTrue(json.stdout.contains(#""totals""#), json.stdout)
        XCTAssertTrue(json.stdout.contains(#""group":"one-piece\/chapter-1""#) || json.stdout.contains(#""group":"one-piece/chapter-1""#), json.stdout)
    }

    func testPauseResumeAndCancelTakeAGroup() async throws {
        for (index, group) in ["s/a", "s/b", "other"].enumerated() {
            http.serve(path: "/slow\(index)", size: 5_000_000)
            http.update(path: "/slow\(index)") { $0.bytesPerSecond = 200_000 }
            _ = try await client.addDownload(AddDownloadRequest(id: "s\(index)", uri: http.url("/slow\(index)"), group: group))
        }
        let pause = try daemon.runCLI(["pause", "--group", "s"])
        XCTAssertEqual(pause.status, 0, pause.stderr)
        XCTAssertEqual(pause.stdout, "paused 2 download(s)\n")
        let states = try await (0..<3).asyncMap { try await self.client.getDownload(id: "s\($0)").state }
        XCTAssertEqual(states[0], .paused)
        XCTAssertEqual(states[1], .paused)
        XCTAssertNotEqual(states[2], .paused, "another group is left alone")
        let resume = try daemon.runCLI(["resume", "--group", "s/a"])
        XCTAssertEqual(resume.stdout, "resumed 1 download(s)\n", resume.stderr)
        let cancel = try daemon.runCLI(["cancel", "--group", "s", "--yes"])
        XCTAssertEqual(cancel.stdout, "cancelled 2 download(s)\n", cancel.stderr)
        let left = try await client.listDownloads()
        XCTAssertEqual(left.downloads.map(\.id), ["s2"])
        let both = try daemon.runCLI(["pause", "s2", "--group", "s"])
        XCTAssertEqual(both.status, 2, "an id and --group together are a usage error")
        let empty = try daemon.runCLI(["cancel", "--group", "", "--yes"])
        XCTAssertEqual(empty.status, 2, "an empty group is a usage error, not every download")
        XCTAssertTrue(empty.stderr.contains("--all for every download"), empty.stderr)
        let remaining = try await client.listDownloads()
        XCTAssertEqual(remaining.total, 1)
    }

    /// Slow downloads in `s`, under it, next to it (`s-2`, which `s` does not take) and elsewhere.
    private func addSlowGroupDownloads() async throws {
        for (id, group) in [("top", "s"), ("under", "s/a"), ("next", "s-2"), ("other", "other")] {
            http.serve(path: "/\(id)", size: 5_000_000)
            http.update(path: "/\(id)") { $0.bytesPerSecond = 200_000 }
            _ = try await client.addDownload(AddDownloadRequest(id: id, uri: http.url("/\(id)"), group: group))
        }
    }

    private func states(_ ids: [String]) async throws -> [DownloadState] {
        try await ids.asyncMap { try await self.client.getDownload(id: $0).state }
    }

    func testGroupOperationsOverTheWireChangeExactlyTheGroupAndThoseUnderIt() async throws {
        XCTAssertTrue(client.daemonInfo.features.contains("group-ops"), "\(client.daemonInfo.features)")
        try await addSlowGroupDownloads()
        let top = try await waitUntil("top") { $0.downloadedBytes > 0 }

        let paused = try await client.pauseGroup("s")
        XCTAssertEqual(paused, 2)
        let afterPause = try await states(["top", "under", "next", "other"])
        XCTAssertEqual(Array(afterPause[0...1]), [.paused, .paused])
        XCTAssertFalse(afterPause[2...].contains(.paused), "s-2 and other are left alone: \(afterPause)")
        let again = try await client.pauseGroup("s")
        XCTAssertEqual(again, 0, "nothing of s is left to pause")

        let resumed = try await client.resumeGroup("s/a")
        XCTAssertEqual(resumed, 1)
        let afterResume = try await states(["top", "under"])
        XCTAssertEqual(afterResume[0], .paused, "s is above s/a, not under it")
        XCTAssertNotEqual(afterResume[1], .paused)

        // Bytes under 128 KiB are kept in memory until the transfer stops, then written to
        // the part file on a disk queue: it may come a moment after the pause's answer.
        try await eventually("a paused download keeps its bytes in \(top.assetPath).part") { self.exists(top.assetPath + ".part") }
        let folders = ["top", "under"].map { daemon.dataDir + "/assets/" + $0 }
        let cancelled = try await client.cancelGroup("s")
        XCTAssertEqual(cancelled, 2)
        for folder in folders { XCTAssertFalse(exists(folder), "\(folder) is deleted with its download") }
        for id in ["top", "under"] {
            await assertFails(.notFound) { try await self.client.getDownload(id: id) }
        }
        let left = try await client.listDownloads()
        XCTAssertEqual(left.downloads.map(\.id), ["next", "other"])
        let none = try await client.cancelGroup("s")
        XCTAssertEqual(none, 0, "a group with no download is not an error")
    }

    func testResumeGroupTakesFailedOnlyWhenAskedAndNeverStopped() async throws {
        http.serve(path: "/held", size: 5_000_000)
        http.update(path: "/held") { $0.bytesPerSecond = 100_000 }
        http.serve(path: "/stopped", size: 5_000_000)
        http.update(path: "/stopped") { $0.bytesPerSecond = 100_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "held", uri: http.url("/held"), group: "lessons/l1"))
        _ = try await client.addDownload(AddDownloadRequest(id: "stopped", uri: http.url("/stopped"), group: "lessons/l2"))
        // No route: the server answers 404 and the download fails.
        _ = try await client.addDownload(AddDownloadRequest(id: "broken", uri: http.url("/nowhere"), group: "lessons"))
        _ = try await waitFor("broken", .failed)
        _ = try await client.pause(id: "held")
        _ = try await client.stop(id: "stopped", reason: "metered network")

        let paused = try await client.resumeGroup("lessons")
        XCTAssertEqual(paused, 1, "only the PAUSED one")
        let first = try await states(["held", "broken", "stopped"])
        XCTAssertNotEqual(first[0], .paused)
        XCTAssertEqual(first[1], .failed)
        XCTAssertEqual(first[2], .stopped)

        let failed = try await client.resumeGroup("lessons", includeFailed: true)
        XCTAssertEqual(failed, 1, "the FAILED one now")
        let stopped = try await client.getDownload(id: "stopped")
        XCTAssertEqual(stopped.state, .stopped, "only its own resume lifts a stop")
        XCTAssertEqual(stopped.stateReason, "metered network")
    }

    func testBadEmptyGroupsAndMisplacedIncludeFailedAreRefusedNamingFieldAndValue() async throws {
        for (operation, every) in [("pause", "PauseAll"), ("resume", "ResumeAll"), ("cancel", "CancelAll")] {
            let error = await assertFails(.invalidArgument) {
                switch operation {
                case "pause": return try await self.client.pauseGroup("")
                case "resume": return try await self.client.resumeGroup("", includeFailed: true)
                default: return try await self.client.cancelGroup("")
                }
            }
            let message = error?.message ?? ""
            XCTAssertTrue(message.contains("group ''") && message.contains("use \(every) for every download"), message)
        }
        for bad in ["a//b", "../x", "sp ace", String(repeating: "g", count: 1025)] {
            let error = await assertFails(.invalidArgument) { try await self.client.cancelGroup(bad) }
            let message = error?.message ?? ""
            XCTAssertTrue(message.contains("group"), message)
            XCTAssertTrue(bad.count > 1024 ? message.contains("1025") && message.contains("1024") : message.contains("'\(bad)'"), message)
        }

        // The Swift client sends include_failed only with ResumeGroup; another client may not.
        http.serve(path: "/kept", size: 1000)
        _ = try await client.addDownload(AddDownloadRequest(id: "kept", uri: http.url("/kept"), group: "g"))
        _ = try await waitFor("kept", .completed)
        let socket = try RawSocket(path: daemon.socketPath)
        socket.send(Request(id: 1, op: .hello(HelloRequest(clientName: "raw"))))
        XCTAssertNil(try socket.readResponse().result.failure)
        for (id, op) in [(UInt64(2), StashWire.Operation.pauseGroup(GroupRequest(group: "g", includeFailed: true))),
                         (3, .cancelGroup(GroupRequest(group: "g", includeFailed: true)))] {
            socket.send(Request(id: id, op: op))
            let response = try socket.readResponse()
            XCTAssertEqual(response.id, id)
            let error = try XCTUnwrap(response.result.failure, op.name)
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertTrue(error.message.contains("include_failed is true") && error.message.contains(op.name), error.message)
        }
        let kept = try await client.getDownload(id: "kept")
        XCTAssertEqual(kept.state, .completed, "a refused CancelGroup cancels nothing")
    }

    /// Against a daemon from before `group-ops`, the command line sends one request per
    /// download of the group and says the same as with one that has them.
    func testTheCommandLineFallsBackToOneRequestPerDownloadOnAnOlderDaemon() async throws {
        let groupOps: @Sendable (StashWire.Operation) -> Bool = {
            switch $0 {
            case .pauseGroup, .resumeGroup, .cancelGroup: true
            default: false
            }
        }
        let older = try OlderDaemonProxy(
            upstream: daemon.socketPath, socketPath: (daemon.socketPath as NSString).deletingLastPathComponent + "/older.sock",
            hiddenFeatures: ["group-ops"], unknownOps: groupOps)
        defer { older.stop() }

        // What an older daemon is: no group-ops in Hello, and PauseGroup answered UNIMPLEMENTED.
        let socket = try RawSocket(path: older.socketPath)
        socket.send(Request(id: 1, op: .hello(HelloRequest(clientName: "raw"))))
        guard case .success(.hello(let hello)) = try socket.readResponse().result else { return XCTFail("no Hello answer") }
        XCTAssertFalse(hello.features.contains("group-ops"), "\(hello.features)")
        XCTAssertTrue(hello.features.contains("downloads"), "\(hello.features)")
        socket.send(Request(id: 2, op: .pauseGroup(GroupRequest(group: "s"))))
        let refused = try XCTUnwrap(try socket.readResponse().result.failure)
        XCTAssertEqual(refused.code, .unimplemented)
        XCTAssertTrue(refused.message.contains("stashd \(StashVersion.daemon)") && refused.message.contains("upgrade stashd"), refused.message)

        try await addSlowGroupDownloads()
        let run = { (arguments: [String]) in
            try DaemonProcess.run(executable: DaemonProcess.executableURL(named: "stash"), arguments: arguments + ["--socket", older.socketPath])
        }
        let pause = try run(["pause", "--group", "s"])
        XCTAssertEqual(pause.status, 0, pause.stderr)
        XCTAssertEqual(pause.stdout, "paused 2 download(s)\n", pause.stderr)
        let paused = try await states(["top", "under", "next", "other"])
        XCTAssertEqual(Array(paused[0...1]), [.paused, .paused])
        XCTAssertFalse(paused[2...].contains(.paused), "s-2 and other are left alone: \(paused)")

        let resume = try run(["resume", "--group", "s/a"])
        XCTAssertEqual(resume.stdout, "resumed 1 download(s)\n", resume.stderr)
        let resumed = try await states(["top", "under"])
        XCTAssertEqual(resumed[0], .paused, "s is above s/a, not under it")
        XCTAssertNotEqual(resumed[1], .paused)

        let cancel = try run(["cancel", "--group", "s", "--yes"])
        XCTAssertEqual(cancel.stdout, "cancelled 2 download(s)\n", cancel.stderr)
        let left = try await client.listDownloads()
        XCTAssertEqual(left.downloads.map(\.id), ["next", "other"])
    }

    func testTheCommandLineAddsWithAGroupAndAppData() throws {
        http.serve(path: "/cli.jpg", size: 500)
        let add = try daemon.runCLI(["add", http.url("/cli.jpg"), "--id", "c", "--group", "lessons/l1", "--app-data", #"{"lesson":1}"#, "--wait", "--json"])
        XCTAssertEqual(add.status, 0, add.stderr)
        let show = try daemon.runCLI(["show", "c", "--json"])
        XCTAssertTrue(show.stdout.contains(#""appData":"{\"lesson\":1}""#), show.stdout)
    }
}

extension Sequence {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var values: [T] = []
        for element in self { values.append(try await transform(element)) }
        return values
    }
}
