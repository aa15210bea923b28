import Foundation
import StashCore
import StashFetch
import StashKeys
import StashTestSupport
import XCTest

@testable import StashEngine

/// Licence expiry, renewal, retries and the playback window on the harness: a real engine and
/// licence manager, the licence server a `FakeLicenseServer`, time the manual clock's. Before
/// the clock moves, each test waits for the licence timer to sleep until the moment the rule
/// names, so a timer armed for the wrong moment fails the test rather than slowing it.
final class LicenseTimerTests: XCTestCase {
    private static let start = Date(timeIntervalSince1970: 2_000_000_000)
    private static let kid = Base64URL.encode(Array(0..<16))

    /// A COMPLETED protected download holding a licence acquired at the clock's start.
    private static func licensed(_ id: String, expiresIn: Int?, playbackDuration: TimeInterval? = nil) -> Download {
        var download = Download(id: id, uri: "http://h.test/\(id).m3u8", title: "", state: .completed, assetPath: "assets/\(id)", hls: HLSOptions())
        download.drm = DRMParams(licenseServer: FakeLicenseServer.url)
        download.hasDRM = true
        download.license = LicenseTerms(acquiredAt: start, expiresIn: expiresIn, playbackDuration: playbackDuration, kids: [kid])
        download.licenseKeyIDs = ["keys/0.key": kid]
        return download
    }

    /// A harness over `downloads` (their keys sealed), answered by a licence server that cannot be reached yet.
    private func start(_ downloads: [Download]) async throws -> (EngineHarness, FakeLicenseServer) {
        let harness = try await EngineHarness { dataDir, registry in
            try await registry.save(downloads)
            let keys = try KeyStore(directory: dataDir + "/keys")
            for download in downloads {
                try keys.write(asset: download.id, keyID: Download.licenseKeyStoreID(Self.kid), key: FakeLicenseServer.key)
            }
        }
        return (harness, FakeLicenseServer(harness))
    }

    /// Waits until the server has had `renewals` renewal requests, no renewal is under way,
    /// and what the last one changed is committed. In that order: a renewal is under way from
    /// before its request, so none under way after the request was seen means it ended; and
    /// the engine answers a record as committed (`Engine.get`), while the renewal's end is
    /// decided at once and committed a moment later.
    private func renewalsEnd(_ harness: EngineHarness, _ server: FakeLicenseServer, count renewals: Int, line: UInt = #line) async throws {
        try await harness.eventually("\(renewals) renewal(s) ended", line: line) {
            guard server.requests("renew").count == renewals else { return false }
            return await harness.engine.renewals().isEmpty
        }
        try await harness.settle()
    }

    /// Waits until the licence timer sleeps until `seconds` from now.
    private func timer(_ harness: EngineHarness, in seconds: TimeInterval, line: UInt = #line) async throws {
        try await harness.eventually("the licence timer wakes in \(seconds) s", line: line) { harness.clock.hasSleeper(wakingIn: seconds) }
    }

    func testALicenceExpiresAtItsLastSecondAndARenewalByAClientBringsItBack() async throws {
        let (harness, server) = try await start([Self.licensed("film", expiresIn: 100)])
        try await timer(harness, in: 80)
        harness.clock.advance(by: 80)
        try await renewalsEnd(harness, server, count: 1)
        try await timer(harness, in: 15)
        harness.clock.advance(by: 15)
        try await renewalsEnd(harness, server, count: 2)
        // The next try would be at 110 s: the expiry at 100 s comes first.
        try await timer(harness, in: 5)
        harness.clock.advance(by: 4)
        XCTAssertTrue(harness.clock.hasSleeper(wakingIn: 1), "the timer still sleeps until 100 s")
        try await harness.settle()
        let state = try await harness.stateOf("film")
        XCTAssertEqual(state, .completed, "valid until its last second")

        harness.clock.advance(by: 1)
        try await harness.eventually("LICENSE_EXPIRED at 100 s") { try await harness.stateOf("film") == .licenseExpired }
        let expired = try await harness.record("film")
        XCTAssertTrue(expired.stateReason.contains("expired"), expired.stateReason)
        let check = try await harness.engine.licenses.check("film")
        XCTAssertEqual(check.check.verdict, .licenseExpired)
        await assertFails(.failedPrecondition) { _ = try await harness.engine.licenses.playbackKey("film", keyID: "") }
        let export = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-license-export")
        await assertFails(.failedPrecondition) { _ = try await harness.engine.maintenance.export(ExportOrder(id: "film", dir: export + "/out", decrypt: true)) }

        server.set(.grant(expiresIn: 100, playbackDuration: nil))
        let renewed = try await harness.engine.licenses.renew("film")
        XCTAssertTrue(renewed.isValid)
        XCTAssertEqual(renewed.state, .completed)
        XCTAssertEqual(renewed.terms?.expiresAt, Self.start.addingTimeInterval(200))
        let current = try await harness.stateOf("film")
        XCTAssertEqual(current, .completed)
        await harness.stop()
    }

    func testARenewalStartsAt80PercentOfTheLicencesLifeAndTheDownloadNeverExpires() async throws {
        let (harness, server) = try await start([Self.licensed("film", expiresIn: 100)])
        server.set(.grant(expiresIn: 100, playbackDuration: nil))
        try await timer(harness, in: 80)
        harness.clock.advance(by: 79)
        XCTAssertTrue(harness.clock.hasSleeper(wakingIn: 1), "the timer still sleeps until 80 s")
        try await harness.settle()
        XCTAssertEqual(server.requests("renew"), [], "not before 80 % of the licence's life")
        harness.clock.advance(by: 1)
        try await renewalsEnd(harness, server, count: 1)
        XCTAssertEqual(server.requests("renew"), [80])
        let renewed = try await harness.record("film")
        XCTAssertEqual(renewed.license?.acquiredAt, Self.start.addingTimeInterval(80))
        XCTAssertEqual(renewed.license?.expiresAt, Self.start.addingTimeInterval(180))

        // The next renewal is at 80 % of the new licence: 160 s.
        try await timer(harness, in: 80)
        harness.clock.advance(by: 30)
        try await harness.settle()
        let state = try await harness.stateOf("film")
        XCTAssertEqual(state, .completed, "past the first licence's expiry, the renewed one holds")
        await harness.stop()
    }

    func testAFailedAutomaticRenewalIsTriedAgain15SecondsLaterAndARefusalIsFinal() async throws {
        let (harness, server) = try await start([Self.licensed("film", expiresIn: 1000)])
        try await timer(harness, in: 800)
        harness.clock.advance(by: 800)
        try await renewalsEnd(harness, server, count: 1)
        try await timer(harness, in: LicenseSchedule.retryInterval)
        harness.clock.advance(by: 14)
        XCTAssertTrue(harness.clock.hasSleeper(wakingIn: 1), "the timer still sleeps until 815 s")
        try await harness.settle()
        XCTAssertEqual(server.requests("renew"), [800], "not again before 15 s")
        harness.clock.advance(by: 1)
        try await renewalsEnd(harness, server, count: 2)
        XCTAssertEqual(server.requests("renew"), [800, 815])

        server.set(.refuse)
        try await timer(harness, in: LicenseSchedule.retryInterval)
        harness.clock.advance(by: LicenseSchedule.retryInterval)
        try await renewalsEnd(harness, server, count: 3)
        let refused = try await harness.record("film")
        XCTAssertEqual(refused.state, .drmExpired)
        XCTAssertTrue(refused.stateReason.contains("refused"), refused.stateReason)
        XCTAssertNotNil(refused.license?.refusedAt)
        harness.clock.advance(by: 10_000)
        try await harness.settle()
        XCTAssertEqual(server.requests("renew").count, 3, "a refused licence is not asked for again")
        await harness.stop()
    }

    /// A refused renewal is final until the licence headers change (a renewed token): then it
    /// is asked for again at once, and a grant makes the download COMPLETED again. Headers of a
    /// licence never refused ask nothing before its time.
    func testNewLicenceHeadersAskARefusedRenewalAgainAtOnce() async throws {
        let (harness, server) = try await start([Self.licensed("film", expiresIn: 1000)])
        let token = { (value: String) in HeaderChange(headers: [HTTPHeader(name: "Authorization", value: value)]) }
        let first = try await harness.engine.setLicenseHeaders(id: "film", token("Bearer 1"))
        XCTAssertEqual(first.drm?.headers, [HTTPHeader(name: "Authorization", value: "Bearer 1")])
        try await harness.settle()
        XCTAssertEqual(server.requests("renew"), [], "a licence never refused waits for its time")

        server.set(.refuse)
        try await timer(harness, in: 800)
        harness.clock.advance(by: 800)
        try await renewalsEnd(harness, server, count: 1)
        let refused = try await harness.record("film")
        XCTAssertEqual(refused.state, .drmExpired)
        XCTAssertEqual(refused.error?.httpStatus, 403)
        XCTAssertTrue(refused.stateReason.contains("stash set film --license-header 'Name: value'"), refused.stateReason)

        _ = try await harness.engine.setLicenseHeaders(id: "film", token("Bearer 2"))
        try await renewalsEnd(harness, server, count: 2)
        let again = try await harness.record("film")
        XCTAssertEqual(again.state, .drmExpired, "refused again")
        _ = try await harness.engine.setLicenseHeaders(id: "film", token("Bearer 2"))
        try await harness.settle()
        XCTAssertEqual(server.requests("renew").count, 2, "the same headers ask nothing")

        server.set(.grant(expiresIn: 1000, playbackDuration: nil))
        _ = try await harness.engine.setLicenseHeaders(id: "film", token("Bearer 3"))
        try await renewalsEnd(harness, server, count: 3)
        let renewed = try await harness.record("film")
        XCTAssertEqual(renewed.state, .completed)
        XCTAssertNil(renewed.license?.refusedAt)
        try await harness.restart()
        let stored = try await harness.record("film")
        XCTAssertEqual(stored.drm?.headers, [HTTPHeader(name: "Authorization", value: "Bearer 3")], "kept with its DRM parameters")
        await harness.stop()
    }

    /// The machine offline: the renewal waits without asking, and starts once a host can be reached.
    func testARenewalDueWhileOfflineStartsWhenTheNetworkIsBack() async throws {
        let (harness, server) = try await start([Self.licensed("film", expiresIn: 100)])
        server.set(.grant(expiresIn: 100, playbackDuration: nil))
        harness.setOnline(false)
        try await timer(harness, in: 80)
        harness.clock.advance(by: 80)
        try await timer(harness, in: LicenseSchedule.offlineRecheck)
        XCTAssertEqual(server.requests, [], "no request while offline")
        harness.setOnline(true)
        harness.clock.advance(by: LicenseSchedule.offlineRecheck)
        try await renewalsEnd(harness, server, count: 1)
        let state = try await harness.stateOf("film")
        XCTAssertEqual(state, .completed)
        await harness.stop()
    }

    /// The licence lapses while the segments are fetched: COMPLETED lasts only until the timer
    /// looks, at once, not until the next renewal try.
    func testALicenceThatRunsOutDuringTheDownloadExpiresAsItCompletes() async throws {
        let playlist = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:2
            #EXT-X-KEY:METHOD=AES-128,URI="skd://000102030405060708090a0b0c0d0e0f"
            #EXTINF:2.0,
            seg0.ts
            #EXTINF:2.0,
            seg1.ts
            #EXT-X-ENDLIST

            """
        let harness = try await EngineHarness()
        let server = FakeLicenseServer(harness) { request in
            guard request.url == "http://h.test/film.m3u8" else { throw DownloadError(.network, "\(request.url) cannot be reached") }
            return FetchedBody(bytes: Array(playlist.utf8), effectiveURL: request.url, contentType: "application/vnd.apple.mpegurl")
        }
        server.set(.grant(expiresIn: 100, playbackDuration: nil))
        _ = try await harness.engine.add(AddRequest(
            id: "film", uri: "http://h.test/film.m3u8", hls: HLSOptions(),
            drm: DRMParams(licenseServer: FakeLicenseServer.url)))
        let segments = ["http://h.test/seg0.ts", "http://h.test/seg1.ts"]
        try await harness.eventually("the segments are fetched") { Set(harness.fetch.runningURLs) == Set(segments) }
        XCTAssertEqual(server.requests("acquire"), [0])

        // Past the licence's end, the renewal at 80 s having failed.
        server.set(.unreachable)
        try await timer(harness, in: 80)
        harness.clock.advance(by: 101)
        try await renewalsEnd(harness, server, count: 1)
        let running = try await harness.stateOf("film")
        XCTAssertTrue(running.isActive, "still fetching when the licence runs out: \(running.name)")
        for segment in segments { try await harness.complete(segment) }
        try await harness.eventually("COMPLETED") { try await harness.stateOf("film") == .completed }
        try await timer(harness, in: LicenseSchedule.minimumDelay)
        harness.clock.advance(by: LicenseSchedule.minimumDelay)
        try await harness.eventually("LICENSE_EXPIRED") { try await harness.stateOf("film") == .licenseExpired }
        let expired = try await harness.record("film")
        XCTAssertNotNil(expired.completedAt, "it completed first")
        XCTAssertEqual(expired.filesDone, expired.filesTotal)
        XCTAssertTrue(expired.stateReason.contains("expired"), expired.stateReason)
        await harness.stop()
    }

    func testThePlaybackWindowOpensWithTheFirstKeyAndEndsInDRMExpired() async throws {
        let (harness, _) = try await start([Self.licensed("show", expiresIn: nil, playbackDuration: 10)])
        let before = try await harness.engine.licenses.check("show")
        XCTAssertEqual(before.check.playbackSecondsLeft, 10, "the whole window until the first playback")
        let key = try await harness.engine.licenses.playbackKey("show", keyID: "")
        XCTAssertEqual(key.key, FakeLicenseServer.key)
        XCTAssertEqual(key.playbackSecondsLeft, 10)
        let started = try await harness.record("show")
        XCTAssertEqual(started.license?.firstPlaybackAt, Self.start)

        try await timer(harness, in: 10)
        harness.clock.advance(by: 9)
        XCTAssertTrue(harness.clock.hasSleeper(wakingIn: 1), "the timer still sleeps until the window's end")
        try await harness.settle()
        let during = try await harness.engine.licenses.check("show")
        XCTAssertEqual(during.state, .completed)
        XCTAssertEqual(during.check.playbackSecondsLeft, 1)
        harness.clock.advance(by: 1)
        try await harness.eventually("DRM_EXPIRED when the window ends") { try await harness.stateOf("show") == .drmExpired }
        let ended = try await harness.engine.licenses.check("show")
        XCTAssertEqual(ended.check.verdict, .playbackExpired)
        let refused = await assertFails(.failedPrecondition) { _ = try await harness.engine.licenses.playbackKey("show", keyID: "") }
        XCTAssertTrue(refused?.message.contains("playback window") ?? false, refused?.message ?? "")
        await harness.stop()
    }

    @discardableResult
    private func assertFails(
        _ code: StashError.Code, file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> Void
    ) async -> StashError? {
        do {
            try await body()
            XCTFail("succeeded; expected \(code)", file: file, line: line)
        } catch let error as StashError {
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
            return error
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
        return nil
    }

    private func holdsKey(_ harness: EngineHarness, _ id: String) throws -> Bool {
        try KeyStore(directory: harness.dataDir + "/keys").exists(asset: id, keyID: Download.licenseKeyStoreID(Self.kid))
    }

    /// A release while the timer's renewal waits for the server: the renewal's answer, coming
    /// after, brings back neither the keys nor the licence, and the server is told of the
    /// release again (it has just granted the keys). It used to seal them and make the
    /// download COMPLETED again.
    func testARenewalAnsweredAfterAReleaseBringsNothingBack() async throws {
        let (harness, server) = try await start([Self.licensed("film", expiresIn: 1000)])
        server.set(.grant(expiresIn: 1000, playbackDuration: nil))
        let renewal = server.hold("renew")
        try await timer(harness, in: 800)
        harness.clock.advance(by: 800)
        await renewal.arrived()

        let released = try await harness.engine.licenses.release("film")
        XCTAssertEqual(released.state, .licenseExpired)
        XCTAssertFalse(try holdsKey(harness, "film"))
        XCTAssertEqual(server.requests("release").count, 1)

        renewal.open()
        try await renewalsEnd(harness, server, count: 1)
        let after = try await harness.record("film")
        XCTAssertEqual(after.state, .licenseExpired)
        XCTAssertNil(after.license)
        XCTAssertFalse(try holdsKey(harness, "film"), "the renewal's keys are not sealed")
        try await harness.eventually("the release is sent again") { server.requests("release").count == 2 }
        await harness.stop()
    }

    /// A renewal that ends while a release waits for the server: the release gives up the
    /// renewed licence (the same keys). It used to find other terms than it started with and
    /// do nothing, leaving the keys and COMPLETED.
    func testAReleaseOutlastingARenewalReleasesTheRenewedLicence() async throws {
        let (harness, server) = try await start([Self.licensed("film", expiresIn: 1000)])
        server.set(.grant(expiresIn: 1000, playbackDuration: nil))
        let telling = server.hold("release")
        let licenses = harness.engine.licenses
        let release = Task { try await licenses.release("film") }
        await telling.arrived()
        try await timer(harness, in: 800)
        harness.clock.advance(by: 800)
        try await renewalsEnd(harness, server, count: 1)
        let renewed = try await harness.record("film")
        XCTAssertEqual(renewed.license?.acquiredAt, Self.start.addingTimeInterval(800), "renewed")

        telling.open()
        let released = try await release.value
        XCTAssertEqual(released.state, .licenseExpired)
        let after = try await harness.record("film")
        XCTAssertNil(after.license)
        XCTAssertFalse(try holdsKey(harness, "film"))
        await harness.stop()
    }
}
