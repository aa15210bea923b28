import Foundation
import StashClient
import StashTestSupport
import XCTest

/// `stash add --from-file --wait` follows the downloads it added from their answers and the
/// event stream: reading each record again cost a round trip per URL, one after the other.
final class CLIAddWaitTests: DaemonTestCase {
    /// Requests are logged at trace level, op and all.
    override var daemonArguments: [String] { ["--log-level", "trace"] }

    func testAddWaitReadsNoRecordAgain() async throws {
        var urls: [String] = []
        for index in 0..<5 {
            http.serve(path: "/list\(index)", size: 20_000 + index, seed: UInt64(index + 1))
            urls.append(http.url("/list\(index)"))
        }
        let list = daemon.dataDir + "/urls.txt"
        try (urls.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let added = try daemon.runCLI(["add", "--from-file", list, "--wait"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let downloads = try await client.allDownloads()
        XCTAssertEqual(downloads.count, 5)
        XCTAssertTrue(downloads.allSatisfy { $0.state == .completed }, "\(downloads.map(\.state.name))")
        let log = daemon.log()
        XCTAssertEqual(log.components(separatedBy: "AddDownload").count - 1, 5, "the log names each request's op")
        XCTAssertEqual(log.components(separatedBy: "GetDownload").count - 1, 0, "add --wait read a record it had from its add")
    }

    /// `--quiet` prints nothing but errors: the exit status says whether all completed, and a
    /// failed download is named on stderr.
    func testQuietAddWaitPrintsNothingButAFailure() async throws {
        http.serve(path: "/quiet0", size: 10_000, seed: 3)
        http.serve(path: "/quiet1", size: 12_000, seed: 4)
        let list = daemon.dataDir + "/quiet.txt"
        try [http.url("/quiet0"), http.url("/quiet1")].joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let quiet = try daemon.runCLI(["add", "--from-file", list, "--wait", "--quiet"])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stdout, "")
        XCTAssertEqual(quiet.stderr, "")
        let loud = try daemon.runCLI(["add", http.url("/quiet0"), "--force", "--id", "again", "--wait"])
        XCTAssertEqual(loud.status, 0, loud.stderr)
        XCTAssertFalse(loud.stdout.isEmpty, "without --quiet the add and its changes are printed")

        let failed = try daemon.runCLI(["add", http.url("/missing"), "--id", "gone", "--wait", "-q"])
        XCTAssertEqual(failed.status, 1)
        XCTAssertEqual(failed.stdout, "")
        XCTAssertTrue(failed.stderr.contains("download gone ended FAILED"), failed.stderr)
        let waited = try daemon.runCLI(["wait", "gone", "again", "-q"])
        XCTAssertEqual(waited.status, 1)
        XCTAssertEqual(waited.stdout, "")
        XCTAssertTrue(waited.stderr.contains("download gone ended FAILED"), waited.stderr)
    }

    /// A quiet wait hears outcomes alone. For a download the add found already there, its
    /// record was read after the stream opened, so an outcome cannot be placed before or after
    /// it: the record is read again when one comes, and the wait ends on what it says. Here the
    /// record read is QUEUED and the outcome comes from DOWNLOADING, a step the wait never heard.
    func testQuietAddWaitOfADownloadAlreadyThereEndsWithItsOutcome() async throws {
        _ = try await client.setConfig([(key: "max-parallel", value: "1")])
        http.serve(path: "/ahead", size: 600_000, seed: 5)
        http.update(path: "/ahead") { $0.bytesPerSecond = 1_000_000 }
        http.serve(path: "/there", size: 50_000, seed: 6)
        _ = try await client.addDownload(AddDownloadRequest(id: "ahead", uri: http.url("/ahead")))
        try await waitFor("ahead", .downloading)
        _ = try await client.addDownload(AddDownloadRequest(id: "there", uri: http.url("/there")))
        let readsBefore = daemon.log().components(separatedBy: "GetDownload").count
        let quiet = try daemon.runCLI(["add", http.url("/there"), "--id", "there", "--wait", "-q"])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stdout, "")
        XCTAssertEqual(daemon.log().components(separatedBy: "GetDownload").count - readsBefore, 1, "the outcome was checked against the record")
        let record = try await client.getDownload(id: "there")
        XCTAssertEqual(record.state, .completed)
    }

    /// `stash wait --quiet` asks for outcomes alone, and reads the record again when one comes.
    func testQuietWaitHearsOutcomesAlone() async throws {
        http.serve(path: "/slowly", size: 600_000, seed: 7)
        http.update(path: "/slowly") { $0.bytesPerSecond = 1_000_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "slowly", uri: http.url("/slowly")))
        let readsBefore = daemon.log().components(separatedBy: "GetDownload").count
        let waited = try daemon.runCLI(["wait", "slowly", "-q"])
        XCTAssertEqual(waited.status, 0, waited.stderr)
        XCTAssertEqual(waited.stdout, "")
        let log = daemon.log()
        XCTAssertTrue(log.contains("filter-ids=1 filter-states=4"), "the wait subscribed for the four outcomes:\n\(log.suffix(3000))")
        XCTAssertEqual(log.components(separatedBy: "GetDownload").count - readsBefore, 2, "read at the start and again at its outcome")
        let record = try await client.getDownload(id: "slowly")
        XCTAssertEqual(record.state, .completed)
    }
}
