import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// Add with replace on a real daemon: the file is fetched again beside the old copy, which
/// stays readable at its path until one rename puts the new copy there; a replace the server
/// refuses leaves the old copy COMPLETED.
final class ReplaceTests: DaemonTestCase {
    private let old = (0..<50_000).map { TestBody.patternByte(at: $0, seed: 1) }
    private let new = (0..<80_000).map { TestBody.patternByte(at: $0, seed: 2) }

    private var path: String { daemon.dataDir + "/assets/movie/movie.bin" }

    private func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    private func completedMovie() async throws {
        http.serve(path: "/movie.bin", body: old)
        _ = try await client.addDownload(AddDownloadRequest(id: "movie", uri: http.url("/movie.bin")))
        try await waitFor("movie", .completed)
        XCTAssertEqual(contents(path), old)
    }

    func testAFileIsReplacedByNewContentAndTheOldIsReadableUntilTheSwap() async throws {
        try await completedMovie()
        // The new content stalls after its first bytes until the test has looked at the old copy.
        http.serve(path: "/movie.bin", route: TestRoute(body: .bytes(new)))
        http.update(path: "/movie.bin") {
            $0.stallAfterBytes = 1000
            $0.stallTimes = 1
        }
        var request = AddDownloadRequest(id: "movie", uri: http.url("/movie.bin"))
        request.replace = true
        let answer = try await client.addDownload(request)
        XCTAssertFalse(answer.created)
        XCTAssertEqual(answer.download.state, .completed)
        XCTAssertTrue(answer.download.stateReason.hasPrefix("replacing:"), answer.download.stateReason)

        // The new copy's first bytes are on their way (held in memory until it is whole: a
        // transfer from byte 0 makes its part file at its commit): the old copy is looked at
        // while the new one is held.
        try await eventually("the new copy's response is stalled") { self.http.stalledCount > 0 }
        XCTAssertEqual(contents(path), old, "the old copy is readable at its path while the new one arrives")
        let during = try await client.getDownload(id: "movie")
        XCTAssertEqual(during.state, .completed)
        XCTAssertEqual(during.totalBytes, Int64(old.count))
        http.releaseStalls()
        let replaced = try await waitUntil("movie") { $0.stateReason == "replaced by a new copy" }
        XCTAssertEqual(replaced.state, .completed)
        XCTAssertEqual(replaced.totalBytes, Int64(new.count))
        XCTAssertEqual(contents(path), new)
        XCTAssertFalse(exists(path + ".replacing"))
        XCTAssertFalse(exists(path + ".replacing.part"))
        let verify = try daemon.runCLI(["verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }

    func testAReplaceAnswered500LeavesTheOldCopy() async throws {
        try await completedMovie()
        http.update(path: "/movie.bin") { $0.alwaysStatus = 500 }
        let result = try daemon.runCLI(["add", http.url("/movie.bin"), "--replace"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("replacing: movie (COMPLETED)"), result.stdout)
        let failed = try await waitUntil("movie") { $0.stateReason.hasPrefix("the replace failed") }
        XCTAssertEqual(failed.state, .completed)
        XCTAssertTrue(failed.stateReason.contains("500"), failed.stateReason)
        XCTAssertEqual(failed.totalBytes, Int64(old.count))
        XCTAssertEqual(contents(path), old)
        XCTAssertFalse(exists(path + ".replacing.part"))
        let shown = try daemon.runCLI(["show", "movie"])
        XCTAssertTrue(shown.stdout.contains("the replace failed and the old copy is kept"), shown.stdout)
    }

    /// A daemon without the feature would answer the old copy as if it were renewed.
    func testTheClientRefusesADaemonWithoutTheFeature() async throws {
        try await completedMovie()
        let older = try OlderDaemonProxy(
            upstream: daemon.socketPath, socketPath: (daemon.socketPath as NSString).deletingLastPathComponent + "/older.sock",
            hiddenFeatures: ["replace"], unknownOps: { _ in false })
        defer { older.stop() }
        let oldClient = try await StashClient.connect(socketPath: older.socketPath)
        var request = AddDownloadRequest(id: "movie", uri: http.url("/movie.bin"))
        request.replace = true
        let refused = await assertFails(.unimplemented) { try await oldClient.addDownload(request) }
        XCTAssertTrue(refused?.message.contains("feature \"replace\"") ?? false, "\(String(describing: refused))")
        await oldClient.close()
        let cli = try DaemonProcess.run(
            executable: DaemonProcess.executableURL(named: "stash"), arguments: ["add", http.url("/movie.bin"), "--replace", "--socket", older.socketPath])
        XCTAssertNotEqual(cli.status, 0)
        XCTAssertTrue(cli.stderr.contains("feature \"replace\""), cli.stderr)
        let record = try await client.getDownload(id: "movie")
        XCTAssertFalse(record.stateReason.hasPrefix("replacing"), "nothing was sent")
    }
}
