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
}
