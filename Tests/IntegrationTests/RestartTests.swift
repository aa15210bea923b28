import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// What survives a crash or a stop: the registry, partial files and their validators.
final class RestartTests: DaemonTestCase {
    /// Starts a throttled download, SIGKILLs stashd once some bytes are on disk, applies
    /// `change` to the server, restarts stashd and returns the finished record.
    private func killMidDownload(path: String, size: Int, change: (inout TestRoute) -> Void = { _ in }) async throws -> (Download, resumedFrom: Int64) {
        http.serve(path: path, size: size, seed: 3, etag: "\"one\"")
        http.update(path: path) { $0.bytesPerSecond = 1_000_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "k", uri: http.url(path)))
        _ = try await waitUntil("k") { $0.state == .downloading && $0.downloadedBytes > 300_000 }
        daemon.kill(signal: SIGKILL)
        daemon.waitForExit()
        let part = daemon.dataDir + "/assets/k" + path + ".part"
        let partSize = (try FileManager.default.attributesOfItem(atPath: part)[.size] as? NSNumber)?.int64Value ?? 0
        XCTAssertGreaterThan(partSize, 0, "the partial file survives the crash")
        http.update(path: path) { route in
            route.bytesPerSecond = nil
            change(&route)
        }
        try await daemon.restart()
        try await reconnect()
        let done = try await waitFor("k", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route(path)!.body.sha256Hex, "byte-identical")
        return (done, partSize)
    }

    func testKillMidDownloadThenRestartResumesWithRange() async throws {
        let (_, partSize) = try await killMidDownload(path: "/crash.bin", size: 3_000_000)
        let last = try XCTUnwrap(http.requests(for: "/crash.bin").last)
        XCTAssertEqual(last.header("Range"), "bytes=\(partSize)-", "the restart asks only for what is missing")
        XCTAssertEqual(last.header("If-Range"), "\"one\"")
    }

    func testRangeIgnoredRestartsFromZero() async throws {
        _ = try await killMidDownload(path: "/norange.bin", size: 3_000_000) { $0.honourRange = false }
        XCTAssertNotNil(http.requests(for: "/norange.bin").last?.header("Range"), "stash asked for a range, got the whole body")
    }

    func testChangedETagRestartsFromZero() async throws {
        _ = try await killMidDownload(path: "/changed.bin", size: 3_000_000) { route in
            route.etag = "\"two\""
            route.body = .pattern(size: 2_500_000, seed: 99)
        }
        let done = try await client.getDownload(id: "k")
        XCTAssertEqual(done.downloadedBytes, 2_500_000, "the new version, from zero, not appended to the old")
    }

    func testSIGTERMExitsZeroAndRestartResumes() async throws {
        http.serve(path: "/term.bin", size: 2_000_000, etag: "\"t\"")
        http.update(path: "/term.bin") { $0.bytesPerSecond = 1_000_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "t", uri: http.url("/term.bin")))
        _ = try await waitUntil("t") { $0.downloadedBytes > 200_000 }
        XCTAssertEqual(daemon.terminate(), 0)
        http.update(path: "/term.bin") { $0.bytesPerSecond = nil }
        try await daemon.restart()
        try await reconnect()
        let done = try await waitFor("t", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/term.bin")!.body.sha256Hex)
        XCTAssertNotNil(http.requests(for: "/term.bin").last?.header("Range"))
    }

    /// Downloads still QUEUED behind max-parallel when stashd stops start after the restart,
    /// whether it stopped cleanly or was killed.
    func testQueuedDownloadsStartAfterARestart() async throws {
        for signal in [SIGTERM, SIGKILL] {
            _ = try await client.setConfig([(key: "max-parallel", value: "1")])
            let ids = (0..<3).map { "q\(signal)-\($0)" }
            for id in ids {
                http.serve(path: "/\(id)", size: 400_000, seed: 9)
                http.update(path: "/\(id)") { $0.bytesPerSecond = 400_000 }
                _ = try await client.addDownload(AddDownloadRequest(id: id, uri: http.url("/\(id)")))
            }
            _ = try await waitUntil(ids[0]) { $0.state == .downloading }
            let queued = try await client.getDownload(id: ids[2])
            XCTAssertEqual(queued.state, .queued)
            if signal == SIGTERM {
                XCTAssertEqual(daemon.terminate(), 0)
            } else {
                daemon.kill(signal: SIGKILL)
                daemon.waitForExit()
            }
            for id in ids { http.update(path: "/\(id)") { $0.bytesPerSecond = nil } }
            try await daemon.restart()
            try await reconnect()
            for id in ids {
                let done = try await waitFor(id, .completed)
                XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/\(id)")!.body.sha256Hex, id)
            }
        }
    }

    func testPausedStaysPausedAcrossRestart() async throws {
        http.serve(path: "/p.bin", size: 2_000_000, etag: "\"p\"")
        http.update(path: "/p.bin") { $0.bytesPerSecond = 1_000_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "p", uri: http.url("/p.bin")))
        _ = try await waitUntil("p") { $0.downloadedBytes > 100_000 }
        _ = try await client.pause(id: "p")
        try await daemon.restart()
        try await reconnect()
        // Decided by the time the socket answers; that nothing starts it later is
        // EngineSchedulingTests' (the harness sees every transfer a start begins).
        let after = try await client.getDownload(id: "p")
        XCTAssertEqual(after.state, .paused)
    }

    func testCompletedFileMissingOnDiskIsNotReportedCompleted() async throws {
        http.serve(path: "/gone.bin", size: 10_000)
        _ = try await client.addDownload(AddDownloadRequest(id: "g", uri: http.url("/gone.bin")))
        let done = try await waitFor("g", .completed)
        XCTAssertEqual(daemon.terminate(), 0)
        try FileManager.default.removeItem(atPath: done.assetPath)
        try await daemon.restart()
        try await reconnect()
        let after = try await client.getDownload(id: "g")
        XCTAssertEqual(after.state, .failed)
        XCTAssertEqual(after.error?.kind, .storage)
        XCTAssertTrue(after.error?.message.contains("file missing on disk") ?? false, "\(String(describing: after.error))")
    }
}
