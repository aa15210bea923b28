import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// Add with replace of a bundle on a real daemon: every file is fetched again into
/// `assets/.replacing-ID`, the old folder staying whole and COMPLETED, and the two folders are
/// exchanged in one step once every new file is whole.
final class BundleReplaceTests: DaemonTestCase {
    private let names = ["p1.jpg", "p2.jpg", "p3.jpg"]

    private func body(_ index: Int, seed: UInt64) -> [UInt8] {
        (0..<(20_000 + index * 1000)).map { TestBody.patternByte(at: $0, seed: seed) }
    }

    private var folder: String { daemon.dataDir + "/assets/ch" }
    private var sibling: String { daemon.dataDir + "/assets/.replacing-ch" }

    private func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    private func serve(seed: UInt64) {
        for (index, name) in names.enumerated() { http.serve(path: "/" + name, body: body(index, seed: seed)) }
    }

    private var urls: [String] { names.map { http.url("/" + $0) } }

    /// A COMPLETED bundle "ch" of the three files with the bytes of seed 1.
    private func completedBundle() async throws {
        serve(seed: 1)
        _ = try await client.addDownload(AddDownloadRequest(id: "ch", uri: "", files: urls.map { BundleFileSpec(url: $0) }))
        try await waitFor("ch", .completed)
        for (index, name) in names.enumerated() { XCTAssertEqual(contents(folder + "/" + name), body(index, seed: 1), name) }
    }

    private func replaceFromCLI() throws {
        let result = try daemon.runCLI(["add", "--bundle", "--id", "ch", "--replace"] + urls)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("replacing: ch (COMPLETED)"), result.stdout)
    }

    private func assertOldCopy(_ label: String) {
        for (index, name) in names.enumerated() { XCTAssertEqual(contents(folder + "/" + name), body(index, seed: 1), "\(label): \(name)") }
    }

    func testABundleIsReplacedByTheServersNewBytes() async throws {
        try await completedBundle()
        serve(seed: 2)
        // The last file stalls until the test has looked at the old copy.
        http.update(path: "/p3.jpg") {
            $0.stallAfterBytes = 1000
            $0.stallTimes = 1
        }
        try replaceFromCLI()
        try await eventually("the new copy's last file is held") { self.http.stalledCount > 0 }
        assertOldCopy("while the new copy arrives")
        let during = try await client.getDownload(id: "ch")
        XCTAssertEqual(during.state, .completed)
        XCTAssertTrue(during.stateReason.hasPrefix("replacing:"), during.stateReason)
        XCTAssertTrue(exists(sibling), "the new copy goes into the sibling folder")

        http.releaseStalls()
        let replaced = try await waitUntil("ch") { $0.stateReason == "replaced by a new copy" }
        XCTAssertEqual(replaced.state, .completed)
        XCTAssertEqual(replaced.totalBytes, Int64((0..<3).map { body($0, seed: 2).count }.reduce(0, +)))
        for (index, name) in names.enumerated() { XCTAssertEqual(contents(folder + "/" + name), body(index, seed: 2), name) }
        try await eventually("the old copy deleted") { !self.exists(self.sibling) }
        XCTAssertFalse(exists(folder + "/.stash-new-copy.part"))
        let verify = try daemon.runCLI(["verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        // The registry holds the new copy: a restart finds it whole.
        try await daemon.restart()
        try await reconnect()
        let reloaded = try await client.getDownload(id: "ch")
        XCTAssertEqual(reloaded.state, .completed)
        XCTAssertEqual(reloaded.totalBytes, replaced.totalBytes)
    }

    func testAReplaceThatFailsHalfWayKeepsTheOldBundleComplete() async throws {
        try await completedBundle()
        serve(seed: 2)
        http.update(path: "/p2.jpg") { $0.alwaysStatus = 404 }
        try replaceFromCLI()
        let failed = try await waitUntil("ch") { $0.stateReason.hasPrefix("the replace failed") }
        XCTAssertEqual(failed.state, .completed)
        XCTAssertTrue(failed.stateReason.contains("file 'p2.jpg'"), failed.stateReason)
        XCTAssertTrue(failed.stateReason.contains("404"), failed.stateReason)
        try await eventually("the new copy deleted") { !self.exists(self.sibling) }
        assertOldCopy("after the failure")
        let verify = try daemon.runCLI(["verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }

    func testARestartMidReplaceKeepsTheOldBundle() async throws {
        try await completedBundle()
        serve(seed: 2)
        http.update(path: "/p3.jpg") {
            $0.stallAfterBytes = 1000
            $0.stallTimes = 1
        }
        try replaceFromCLI()
        try await eventually("the new copy's last file is held") { self.http.stalledCount > 0 }
        try await daemon.restart()
        try await reconnect()
        http.releaseStalls()
        let record = try await client.getDownload(id: "ch")
        XCTAssertEqual(record.state, .completed)
        XCTAssertTrue(record.stateReason.hasPrefix("a replace was under way when stashd stopped"), record.stateReason)
        try await eventually("the new copy deleted") { !self.exists(self.sibling) }
        assertOldCopy("after the restart")
    }

    /// A daemon with `replace` only would refuse it; the client says which feature is missing.
    func testTheClientRefusesADaemonWithoutTheFeature() async throws {
        try await completedBundle()
        let older = try OlderDaemonProxy(
            upstream: daemon.socketPath, socketPath: (daemon.socketPath as NSString).deletingLastPathComponent + "/older.sock",
            hiddenFeatures: ["replace-any"], unknownOps: { _ in false })
        defer { older.stop() }
        let oldClient = try await StashClient.connect(socketPath: older.socketPath)
        var request = AddDownloadRequest(id: "ch", uri: "", files: urls.map { BundleFileSpec(url: $0) })
        request.replace = true
        let refused = await assertFails(.unimplemented) { try await oldClient.addDownload(request) }
        XCTAssertTrue(refused?.message.contains("feature \"replace-any\"") ?? false, "\(String(describing: refused))")
        await oldClient.close()
        let record = try await client.getDownload(id: "ch")
        XCTAssertFalse(record.stateReason.hasPrefix("replacing"), "nothing was sent")
    }

    func testReplaceWithWaitExitsOnceTheNewCopyIsInPlaceOrSaysWhyItFailed() async throws {
        try await completedBundle()
        serve(seed: 2)
        let done = try daemon.runCLI(["add", "--bundle", "--id", "ch", "--replace", "--wait"] + urls)
        XCTAssertEqual(done.status, 0, done.stdout + done.stderr)
        XCTAssertTrue(done.stdout.contains("replaced: ch (COMPLETED)"), done.stdout)
        for (index, name) in names.enumerated() { XCTAssertEqual(contents(folder + "/" + name), body(index, seed: 2), name) }

        http.update(path: "/p3.jpg") { $0.alwaysStatus = 410 }
        let failed = try daemon.runCLI(["add", "--bundle", "--id", "ch", "--replace", "--wait"] + urls)
        XCTAssertEqual(failed.status, 1, failed.stdout + failed.stderr)
        XCTAssertTrue(failed.stderr.contains("download ch: the replace failed and the old copy is kept: file 'p3.jpg'"), failed.stderr)
        XCTAssertTrue(failed.stderr.contains("410"), failed.stderr)
        for (index, name) in names.enumerated() { XCTAssertEqual(contents(folder + "/" + name), body(index, seed: 2), "the copy of the first replace stays: \(name)") }
    }
}
