import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// Whatever takes stashd down while a download transfers, it cannot keep it in a restart loop:
/// after two unclean exits in a row during that download's transfer, it is FAILED at the
/// next start, and runs again only when resumed.
final class CrashLoopTests: DaemonTestCase {
    private func killWhileTransferring(_ id: String) async throws {
        _ = try await waitUntil(id) { $0.state == .downloading && $0.downloadedBytes > 0 }
        daemon.kill(signal: SIGKILL)
        daemon.waitForExit()
        try await daemon.restart()
        try await reconnect()
    }

    func testTwoUncleanExitsInARowWhileTransferringFailTheDownload() async throws {
        http.serve(path: "/slow.bin", size: 2_000_000, seed: 4, etag: "\"s\"")
        http.update(path: "/slow.bin") { $0.bytesPerSecond = 200_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "slow", uri: http.url("/slow.bin")))

        try await killWhileTransferring("slow")
        let afterOne = try await client.getDownload(id: "slow")
        XCTAssertNotEqual(afterOne.state, .failed, "one unclean exit is not a loop")

        try await killWhileTransferring("slow")
        let failed = try await client.getDownload(id: "slow")
        XCTAssertEqual(failed.state, .failed)
        XCTAssertTrue(failed.error?.message.contains("stopped uncleanly 2 times in a row") == true, "\(failed.error?.message ?? "")")
        // That it is not started again by itself is EngineSchedulingTests' (the harness sees
        // every transfer a start begins).

        http.update(path: "/slow.bin") { $0.bytesPerSecond = nil }
        _ = try await client.resume(id: "slow")
        let done = try await waitFor("slow", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/slow.bin")!.body.sha256Hex)
    }

    func testACleanStopBetweenCrashesStartsTheCountAgain() async throws {
        http.serve(path: "/slow.bin", size: 2_000_000, seed: 4, etag: "\"s\"")
        http.update(path: "/slow.bin") { $0.bytesPerSecond = 200_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "slow", uri: http.url("/slow.bin")))
        try await killWhileTransferring("slow")
        _ = try await waitUntil("slow") { $0.state == .downloading }
        try await daemon.restart()
        try await reconnect()
        try await killWhileTransferring("slow")
        let download = try await client.getDownload(id: "slow")
        XCTAssertNotEqual(download.state, .failed)
    }
}
