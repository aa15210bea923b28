import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// Single-file downloads end to end: a real stashd, a real HTTP server, the Swift client.
final class DownloadTests: DaemonTestCase {
    func testDownloadIsSHA256ExactAndRecordIsComplete() async throws {
        http.serve(path: "/movie.mp4", size: 3_000_000, seed: 7, etag: "\"v1\"")
        let digest = http.route("/movie.mp4")!.body.sha256Hex
        let (added, created) = try await client.addDownload(
            AddDownloadRequest(id: "movie", uri: http.url("/movie.mp4"), title: "A movie", sha256: digest.uppercased()))
        XCTAssertTrue(created)
        XCTAssertEqual(added.state, .queued)
        let done = try await waitFor("movie", .completed)
        XCTAssertEqual(done.progressPercent, 100)
        XCTAssertEqual(done.downloadedBytes, 3_000_000)
        XCTAssertEqual(done.totalBytes, 3_000_000)
        XCTAssertEqual(done.title, "A movie")
        XCTAssertNotNil(done.completedAt)
        XCTAssertNil(done.error)
        XCTAssertEqual(done.assetPath, daemon.dataDir + "/assets/movie/movie.mp4")
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), digest)
        XCTAssertFalse(exists(done.assetPath + ".part"))
    }

    func testSHA256MismatchFailsAndKeepsNoFile() async throws {
        http.serve(path: "/f.bin", size: 100_000)
        _ = try await client.addDownload(AddDownloadRequest(id: "bad", uri: http.url("/f.bin"), sha256: String(repeating: "0", count: 64)))
        let failed = try await waitFor("bad", .failed)
        XCTAssertEqual(failed.error?.kind, .validation)
        XCTAssertTrue(failed.error?.message.contains("sha256") ?? false, "\(String(describing: failed.error))")
        XCTAssertFalse(exists(failed.assetPath))
        XCTAssertFalse(exists(failed.assetPath + ".part"))
    }

    func testRetryThenSuccess() async throws {
        http.serve(path: "/flaky", size: 200_000, etag: "\"f\"")
        http.update(path: "/flaky") { $0.failStatus = 503; $0.failTimes = 2 }
        _ = try await client.addDownload(AddDownloadRequest(id: "flaky", uri: http.url("/flaky")))
        let done = try await waitFor("flaky", .completed)
        XCTAssertEqual(http.requests(for: "/flaky").count, 3, "two 503s, then the body")
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/flaky")!.body.sha256Hex)
    }

    func testNotFoundFailsAtOnceWithTheStatus() async throws {
        http.serve(path: "/gone", size: 10)
        http.update(path: "/gone") { $0.alwaysStatus = 404 }
        _ = try await client.addDownload(AddDownloadRequest(id: "gone", uri: http.url("/gone")))
        let failed = try await waitFor("gone", .failed)
        XCTAssertEqual(failed.error?.kind, .http)
        XCTAssertEqual(failed.error?.httpStatus, 404)
        XCTAssertTrue(failed.error?.message.contains("404") ?? false)
        XCTAssertEqual(http.requests(for: "/gone").count, 1, "a 404 is not retried")
    }

    func testConnectionResetMidBodyResumesFromOffset() async throws {
        http.serve(path: "/reset", size: 1_000_000, etag: "\"r\"")
        http.update(path: "/reset") { $0.resetAfterBytes = 300_000; $0.resetTimes = 1 }
        _ = try await client.addDownload(AddDownloadRequest(id: "reset", uri: http.url("/reset")))
        let done = try await waitFor("reset", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/reset")!.body.sha256Hex)
        let requests = http.requests(for: "/reset")
        XCTAssertEqual(requests.count, 2)
        XCTAssertNotNil(requests.last?.header("Range"), "the retry asks for the rest only")
    }

    func testPauseAndResume() async throws {
        http.serve(path: "/slow", size: 2_000_000, etag: "\"s\"")
        http.update(path: "/slow") { $0.bytesPerSecond = 1_000_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "slow", uri: http.url("/slow")))
        _ = try await waitUntil("slow") { $0.downloadedBytes > 200_000 }
        let paused = try await client.pause(id: "slow")
        XCTAssertEqual(paused.state, .paused)
        // Once the transfer is torn down (the server's request ended) the record says what the
        // part file holds; the resume asks for the rest from there, so nothing moved meanwhile.
        // That no late report of the stopped transfer moves it is EngineSchedulingTests'.
        let part = paused.assetPath + ".part"
        let held = try await waitUntil("slow") { download in
            self.http.inFlightRequests == 0 && (try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int64) == download.downloadedBytes
        }
        XCTAssertEqual(held.state, .paused)
        http.update(path: "/slow") { $0.bytesPerSecond = nil }
        _ = try await client.resume(id: "slow")
        let done = try await waitFor("slow", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/slow")!.body.sha256Hex)
        XCTAssertEqual(http.requests(for: "/slow").last?.header("Range"), "bytes=\(held.downloadedBytes)-")
    }

    func testRapidPauseResumeNeverCorruptsTheFile() async throws {
        http.serve(path: "/flip", size: 3_000_000, seed: 11, etag: "\"f\"")
        http.update(path: "/flip") { $0.bytesPerSecond = 3_000_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "flip", uri: http.url("/flip")))
        _ = try await waitUntil("flip") { $0.downloadedBytes > 0 }
        for _ in 0..<10 {
            _ = try await client.pause(id: "flip")
            _ = try await client.resume(id: "flip")
            try await Task.sleep(nanoseconds: 30_000_000)
        }
        let done = try await waitFor("flip", .completed)
        XCTAssertEqual(try sha256Hex(ofFile: done.assetPath), http.route("/flip")!.body.sha256Hex)
    }

    func testCancelRemovesPartialFileAndRecord() async throws {
        http.serve(path: "/big", size: 4_000_000, etag: "\"b\"")
        http.update(path: "/big") { $0.bytesPerSecond = 500_000 }
        _ = try await client.addDownload(AddDownloadRequest(id: "big", uri: http.url("/big")))
        // Past the first 128 KiB, which a transfer from byte 0 keeps in memory before it makes
        // its part file (`PartFile.init(deferred:)`).
        let running = try await waitUntil("big") { $0.downloadedBytes > 300_000 }
        XCTAssertTrue(exists(running.assetPath + ".part"))
        try await client.cancel(id: "big")
        XCTAssertFalse(exists(running.assetPath + ".part"))
        XCTAssertFalse(exists(daemon.dataDir + "/assets/big"))
        await assertFails(.notFound) { try await self.client.getDownload(id: "big") }
        let has = try await client.hasDownload(id: "big")
        XCTAssertFalse(has.exists)
    }

    func testNeverMoreThanMaxParallelActive() async throws {
        _ = try await client.setConfig([(key: "max-parallel", value: "2")])
        let peak = try await downloadThrottled(count: 6, size: 300_000)
        XCTAssertLessThanOrEqual(peak, 2)
        XCTAssertGreaterThanOrEqual(peak, 1)
        XCTAssertLessThanOrEqual(http.peakInFlightRequests, 2, "the server never saw more than 2 transfers at once")
    }

    func testAddIsIdempotentAndBadInputIsRefused() async throws {
        http.serve(path: "/a", size: 1000)
        let first = try await client.addDownload(AddDownloadRequest(id: "same", uri: http.url("/a")))
        let again = try await client.addDownload(AddDownloadRequest(id: "same", uri: http.url("/a")))
        XCTAssertTrue(first.created)
        XCTAssertFalse(again.created)
        XCTAssertEqual(again.download.id, "same")
        let conflict = await assertFails(.alreadyExists) {
            try await self.client.addDownload(AddDownloadRequest(id: "same", uri: self.http.url("/other")))
        }
        XCTAssertTrue(conflict?.message.contains("same") ?? false)
        let scheme = await assertFails(.invalidArgument) {
            try await self.client.addDownload(AddDownloadRequest(uri: "ftp://example.org/x"))
        }
        XCTAssertTrue(scheme?.message.contains("ftp") ?? false)
        await assertFails(.invalidArgument) { try await self.client.addDownload(AddDownloadRequest(uri: "not a url")) }
        await assertFails(.invalidArgument) { try await self.client.addDownload(AddDownloadRequest(id: "../x", uri: self.http.url("/a"))) }
        await assertFails(.notFound) { try await self.client.getDownload(id: "nope") }
        await assertFails(.notFound) { try await self.client.pause(id: "nope") }
        // Without an id, the same URL is the download that holds it; forced, a new one.
        let held = try await client.addDownload(AddDownloadRequest(uri: http.url("/a")))
        XCTAssertEqual(held.download.id, "same")
        XCTAssertFalse(held.created)
        let generated = try await client.addDownload(AddDownloadRequest(uri: http.url("/a"), force: true))
        XCTAssertFalse(generated.download.id.isEmpty)
        XCTAssertNotEqual(generated.download.id, "same")
        let total = try await client.listDownloads().total
        XCTAssertEqual(total, 2)
    }

    func testListPagingAndStateFilter() async throws {
        _ = try await client.setConfig([(key: "max-parallel", value: "1")])
        for index in 0..<5 {
            http.serve(path: "/x\(index)", size: 10)
            _ = try await client.addDownload(AddDownloadRequest(id: "l\(index)", uri: http.url("/x\(index)")))
            _ = try? await client.pause(id: "l\(index)")
        }
        var seen: [String] = []
        var token = ""
        repeat {
            let page = try await client.listDownloads(pageSize: 2, pageToken: token)
            XCTAssertEqual(page.total, 5)
            XCTAssertLessThanOrEqual(page.downloads.count, 2)
            seen += page.downloads.map(\.id)
            token = page.nextPageToken
        } while !token.isEmpty
        XCTAssertEqual(seen, ["l0", "l1", "l2", "l3", "l4"])
        let completedOrPaused = try await client.allDownloads(states: [.paused, .completed])
        XCTAssertEqual(completedOrPaused.count, 5)
        await assertFails(.invalidArgument) { try await self.client.listDownloads(pageSize: 5000) }
    }

    func testEventsArriveInOrderWithSequenceNumbers() async throws {
        http.serve(path: "/ev", size: 500_000, etag: "\"e\"")
        http.update(path: "/ev") { $0.bytesPerSecond = 2_000_000 }
        let events = try await client.events(ids: ["ev"])
        _ = try await client.addDownload(AddDownloadRequest(id: "ev", uri: http.url("/ev")))
        var states: [DownloadState] = []
        var sequence: [UInt64] = []
        var sawProgress = false
        for try await event in events {
            sequence.append(event.seq)
            switch event.kind {
            case .stateChanged(let download, _):
                states.append(download.state)
                if download.state.isTerminal { break }
            case .progress:
                sawProgress = true
            case .removed, .license, .eventsLost, .exportProgress, .settingsChanged:
                break
            }
            if states.last?.isTerminal == true { break }
        }
        XCTAssertEqual(states, [.queued, .preparing, .downloading, .completed])
        XCTAssertTrue(sawProgress)
        XCTAssertEqual(sequence, sequence.sorted())
        XCTAssertEqual(Set(sequence).count, sequence.count)
    }

    /// A subscription for outcomes alone hears each download once, when it ends, and its
    /// removal: none of the states on the way, no progress.
    func testASubscriptionForOutcomesHearsOnlyThoseAndRemovals() async throws {
        http.serve(path: "/ok", size: 300_000)
        http.update(path: "/ok") { $0.bytesPerSecond = 2_000_000 }
        http.serve(path: "/gone", route: { var route = TestRoute(body: .bytes([])); route.alwaysStatus = 404; return route }())
        let events = try await client.events(states: [.completed, .failed])
        _ = try await client.addDownload(AddDownloadRequest(id: "ok", uri: http.url("/ok")))
        _ = try await client.addDownload(AddDownloadRequest(id: "gone", uri: http.url("/gone")))
        var heard: [String] = []
        for try await event in events {
            switch event.kind {
            case .stateChanged(let download, _):
                heard.append("\(download.id) \(download.state.name)")
                if heard.count == 2 { try await client.cancel(id: "ok") }
            case .removed(let id):
                heard.append("\(id) removed")
            case .progress, .license, .eventsLost, .exportProgress, .settingsChanged:
                heard.append("\(event.kind)")
            }
            if heard.count == 3 { break }
        }
        XCTAssertEqual(Set(heard.prefix(2)), ["ok COMPLETED", "gone FAILED"])
        XCTAssertEqual(heard.last, "ok removed")
    }

    func testStatsInfoAndConfig() async throws {
        http.serve(path: "/s", size: 50_000)
        _ = try await client.addDownload(AddDownloadRequest(id: "s", uri: http.url("/s")))
        try await waitFor("s", .completed)
        let stats = try await client.stats()
        XCTAssertEqual(stats.counts[.completed], 1)
        let info = try await client.systemInfo()
        XCTAssertEqual(info.dataDir, daemon.dataDir)
        XCTAssertEqual(info.bytesHeld, 50_000)
        XCTAssertEqual(info.downloadCount, 1)
        XCTAssertGreaterThan(info.diskTotal, 0)
        let config = try await client.setConfig([(key: "rate-limit", value: "123456")])
        XCTAssertEqual(config.rateLimit, 123_456)
        let error = await assertFails(.invalidArgument) { try await self.client.setConfig([(key: "max-parallel", value: "1000")]) }
        XCTAssertTrue(error?.message.contains("1...64") ?? false)
        try await daemon.restart()
        try await reconnect()
        let restored = try await client.config()
        XCTAssertEqual(restored.rateLimit, 123_456, "config survives a restart")
    }
}
