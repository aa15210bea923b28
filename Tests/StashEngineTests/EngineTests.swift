import Foundation
import Logging
import StashCore
import StashFetch
import StashKeys
import StashStore
import StashTestSupport
import XCTest

@testable import StashEngine

/// The engine on its own, without a daemon or a socket: a real registry, real fetch workers
/// and a real HTTP server, driven through the engine's API as the request dispatcher does.
final class EngineTests: XCTestCase {
    private var dataDir = ""
    private var http: TestHTTPServer!
    private var engine: Engine!

    override func setUp() async throws {
        dataDir = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-engine")
        http = try TestHTTPServer.start()
        engine = try await makeEngine()
    }

    override func tearDown() async throws {
        await engine?.shutdown()
        http?.stop()
        try? FileManager.default.removeItem(atPath: dataDir)
    }

    private func makeEngine(
        clock: WallClock = .system, config: DaemonConfig = DaemonConfig(), diskWatch: DiskWatchSettings = DiskWatchSettings()
    ) async throws -> Engine {
        let logger = Logger(label: "engine-test")
        let registry = try Registry(path: dataDir + "/stash.sqlite", logger: logger)
        let engine = Engine(
            dataDir: dataDir, socketPath: dataDir + "/unused.sock", registry: registry, fetch: FetchWorkers(logger: logger),
            keys: try KeyStore(directory: dataDir + "/keys"), config: config, logger: logger, clock: clock, diskWatch: diskWatch)
        try await engine.start()
        return engine
    }

    /// Polls `condition` (calling `step` between tries) for up to 20 s of real time.
    private func eventually(
        _ what: String, step: () -> Void = {}, file: StaticString = #filePath, line: UInt = #line, _ condition: () async throws -> Bool
    ) async throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try await condition() { return }
            step()
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        XCTFail("never: \(what)", file: file, line: line)
    }

    /// The states a subscriber is told of, until `id` reaches `final`.
    private func states(of id: String, until final: DownloadState, in events: EventSubscription) async -> [DownloadState] {
        var seen: [DownloadState] = []
        for await event in events {
            guard case .stateChanged(let download, _) = event.kind, download.id == id else { continue }
            seen.append(download.state)
            if download.state == final { break }
        }
        return seen
    }

    func testABundleGoesThroughItsStatesAndEveryFileIsTheSource() async throws {
        for index in 0..<3 { http.serve(path: "/p\(index).bin", size: 20_000 + index, seed: UInt64(index + 1)) }
        let events = await engine.subscribe(ids: ["b"], minProgressStep: 0, minIntervalMs: 0, replayFrom: 0)
        let specs = (0..<3).map { BundleFileSpec(url: http.url("/p\($0).bin"), path: "pages/\($0).bin") }
        let (added, created) = try await engine.add(AddRequest(id: "b", uri: "", files: specs, title: "chapter", sha256: "", headers: []))
        XCTAssertTrue(created)
        XCTAssertEqual(added.state, .queued)
        let seen = await states(of: "b", until: .completed, in: events)
        XCTAssertEqual(seen.first, .queued)
        XCTAssertEqual(seen.last, .completed)
        XCTAssertTrue(seen.contains(.preparing) || seen.contains(.downloading), "\(seen)")
        let done = try await engine.get(id: "b")
        XCTAssertEqual(done.filesDone, 3)
        for index in 0..<3 {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dataDir + "/assets/b/pages/\(index).bin"))
            XCTAssertEqual(bytes.count, 20_000 + index)
            XCTAssertEqual(bytes.first, TestBody.patternByte(at: 0, seed: UInt64(index + 1)))
        }
    }

    func testAPausedDownloadStaysPausedAcrossAnEngineRestartAndCompletesWhenResumed() async throws {
        // Slow enough that the pause comes while it transfers (200 KB/s: a quarter second).
        var route = TestRoute(body: .pattern(size: 50_000, seed: 1))
        route.bytesPerSecond = 200_000
        http.serve(path: "/f.bin", route: route)
        _ = try await engine.pause(id: try await engine.add(AddRequest(id: "f", uri: http.url("/f.bin"))).download.id)
        await engine.shutdown()
        engine = try await makeEngine()
        let restored = try await engine.get(id: "f")
        XCTAssertEqual(restored.state, .paused, "a paused download stays paused")
        let events = await engine.subscribe(ids: ["f"], minProgressStep: 0, minIntervalMs: 0, replayFrom: 0)
        _ = try await engine.resume(id: "f")
        let seen = await states(of: "f", until: .completed, in: events)
        XCTAssertEqual(seen.last, .completed)
        let done = try await engine.get(id: "f")
        XCTAssertEqual(done.downloadedBytes, 50_000)
    }

    /// Licence timers on a clock the test moves: a renewal at 80 % of a 1,000 s licence, then
    /// the lapse of the renewed one while its server is gone, in well under a second.
    func testPastTheWatchLimitAStatPassFindsADeletedFileAndInfoSaysSo() async throws {
        await engine.shutdown()
        engine = try await makeEngine(diskWatch: DiskWatchSettings(limit: 0, pollInterval: 0.1))
        http.serve(path: "/w.bin", size: 5000, seed: 4)
        _ = try await engine.add(AddRequest(id: "w", uri: http.url("/w.bin"), files: []))
        try await eventually("w completes") { try await self.engine.get(id: "w").state == .completed }
        let info = try await engine.maintenance.systemInfo()
        XCTAssertTrue(info.warnings.contains { $0.contains("1 complete download(s) could not be watched") }, "\(info.warnings)")

        try FileManager.default.removeItem(atPath: dataDir + "/assets/w/w.bin")
        try await eventually("the stat pass finds the file gone") { try await self.engine.get(id: "w").state == .failed }
        let failed = try await engine.get(id: "w")
        XCTAssertTrue(failed.stateReason.contains("assets/w/w.bin"), failed.stateReason)
    }

    func testEventsAreStampedWithTheEnginesClock() async throws {
        let manual = ManualClock(start: Date(timeIntervalSince1970: 2_000_000_000))
        await engine.shutdown()
        engine = try await makeEngine(clock: manual.clock)
        http.serve(path: "/t.bin", size: 1000, seed: 9)
        let events = await engine.subscribe(ids: ["t"], minProgressStep: 0, minIntervalMs: 0, replayFrom: 0)
        _ = try await engine.add(AddRequest(id: "t", uri: http.url("/t.bin"), files: []))
        for await event in events {
            XCTAssertEqual(event.time, manual.now, "\(event.kind)")
            if case .stateChanged(let download, _) = event.kind, download.state == .completed { break }
        }
        let done = try await engine.get(id: "t")
        XCTAssertEqual(done.completedAt, manual.now)
        XCTAssertEqual(done.createdAt, manual.now, "added at the engine's time, not the wall clock's")
    }

    func testLicenceRenewalAndExpiryFollowTheClockWithoutSleeping() async throws {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let manual = ManualClock()
        await engine.shutdown()
        var config = DaemonConfig()
        config.retryMaxAttempts = 1
        engine = try await makeEngine(clock: manual.clock, config: config)
        let keyID: [UInt8] = Array(0x10..<0x20)
        let licenses = try LicenseServer.start()
        defer { licenses.stop() }
        licenses.addKey(kid: keyID, key: Array(0x30..<0x40))
        licenses.expiresIn = 1000
        let stream = try HLSFixture.tsSKD(in: dataDir + "/fixture", seconds: 4, keyID: keyID, key: Array(0x30..<0x40), uriIV: true)
        http.serveDirectory(stream.directory, at: "/skd")

        let events = await engine.subscribe(ids: ["lic"], minProgressStep: 0, minIntervalMs: 0, replayFrom: 0)
        _ = try await engine.add(AddRequest(id: "lic", uri: http.url("/skd/" + stream.masterPath),
                                 drm: DRMParams(licenseServer: licenses.licenseURL)))
        let seen = await states(of: "lic", until: .completed, in: events)
        XCTAssertEqual(seen.last, .completed)
        XCTAssertEqual(licenses.requests(action: "renew").count, 0)

        manual.advance(by: 799)
        try await eventually("renewed at 80 %", step: { manual.advance(by: 1) }) {
            licenses.requests(action: "renew").count == 1
        }
        let renewed = try await engine.get(id: "lic")
        XCTAssertEqual(renewed.state, .completed)

        licenses.stop()
        manual.advance(by: 950)
        try await eventually("lapsed with its server gone", step: { manual.advance(by: 1) }) {
            try await engine.get(id: "lic").state == .licenseExpired
        }
        let lapsed = try await engine.get(id: "lic")
        XCTAssertTrue(lapsed.stateReason.contains("expired"), lapsed.stateReason)
    }

    /// A download that does not fit waits outside the queue, and is looked at again when the
    /// storage recheck comes due on the clock, not before.
    func testADownloadHeldForSpaceIsLookedAtAgainWhenTheRecheckIsDue() async throws {
        let manual = ManualClock()
        await engine.shutdown()
        var config = DaemonConfig()
        config.storageReserve = 1 << 50
        engine = try await makeEngine(clock: manual.clock, config: config)
        http.serve(path: "/held.bin", size: 10_000)
        _ = try await engine.add(AddRequest(id: "held", uri: http.url("/held.bin")))
        try await eventually("held for space") {
            try await engine.get(id: "held").stateReason.contains("insufficient storage")
        }
        try await eventually("the recheck sleeps on the engine's clock") { manual.sleeperCount > 0 }
        manual.advance(by: EngineState.storageRecheckInterval)
        // The recheck ran (it is asleep again) and found no more space.
        try await eventually("the recheck is armed again") { manual.sleeperCount > 0 }
        let stillHeld = try await engine.get(id: "held")
        XCTAssertEqual(stillHeld.state, .queued)
        XCTAssertTrue(stillHeld.stateReason.contains("insufficient storage"), stillHeld.stateReason)
        _ = try await engine.setConfig([(key: "storage-reserve", value: "0")])
        let waiting = try await engine.get(id: "held")
        XCTAssertEqual(waiting.state, .queued, "a held download waits for the recheck, not for the next schedule")
        try await eventually("started and completed once the recheck came", step: { manual.advance(by: 1) }) {
            try await engine.get(id: "held").state == .completed
        }
    }
}
