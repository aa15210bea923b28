import Foundation
import StashClient
import StashCore
import StashTestSupport
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
    }

    func testTheCommandLineAddsWithAGroupAndAppData() throws {
        http.serve(path: "/cli.jpg", size: 500)
        let add = try daemon.runCLI(["add", http.url("/cli.jpg"), "--id", "c", "--group", "lessons/l1", "--app-data", #"{"lesson":1}"#, "--wait", "--json"])
        XCTAssertEqual(add.status, 0, add.stderr)
        let show = try daemon.runCLI(["show", "c", "--json"])
        XCTAssertTrue(show.stdout.contains(#""appData":"{\"lesson\":1}""#), show.stdout)
    }
}

private extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var values: [T] = []
        for element in self { values.append(try await transform(element)) }
        return values
    }
}
