import StashCrypto
import Foundation
import StashClient
import StashTestSupport
import XCTest

/// Protected HLS streams whose EXT-X-KEY names an `skd://` key id: a real daemon asks the test
/// licence server for the keys, keeps them sealed, and moves the download through the licence
/// states as the server grants, lets expire, refuses and acknowledges. The timing of expiry,
/// renewal, retries and the playback window is `LicenseTimerTests`' (the engine on a manual
/// clock); here is what needs the process, the socket and a real server.
final class LicenseTests: DaemonTestCase {
    /// The most verbose level, so the check that no key reaches the log covers every message.
    override var daemonArguments: [String] { ["--log-level", "trace"] }

    private static let keyID: [UInt8] = Array(0x10..<0x20)
    private static let key: [UInt8] = [0x3a, 0x91, 0x5c, 0x07, 0xe2, 0x48, 0xbd, 0x16, 0x6f, 0xa4, 0x29, 0xd3, 0x80, 0x5e, 0xc1, 0x72]

    private var licenses: LicenseServer!

    override func setUp() async throws {
        try await super.setUp()
        licenses = try LicenseServer.start()
        licenses.addKey(kid: Self.keyID, key: Self.key)
    }

    override func tearDown() async throws {
        licenses?.stop()
        try await super.tearDown()
    }

    /// The stream is made once for every test process (`HLSFixture.shared`): ffmpeg is the slow part. Its key URI carries the IV, so the
    /// package must write that IV into its playlist for a player to decrypt.
    private func serveStream() throws -> HLSFixture {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let stream = try HLSFixture.shared("skd-6s-uri-iv") {
            try HLSFixture.tsSKD(in: $0, seconds: 6, keyID: Self.keyID, key: Self.key, uriIV: true)
        }
        http.serveDirectory(stream.directory, at: "/skd")
        return stream
    }

    private func add(_ id: String, drm: DRMParams? = nil) async throws -> Download {
        let stream = try serveStream()
        let params = drm ?? DRMParams(licenseServer: licenses.licenseURL)
        // Forced: a test's downloads are of the same stream and each must be its own.
        return try await client.addDownload(AddDownloadRequest(id: id, uri: http.url("/skd/" + stream.masterPath), drm: params, force: true)).download
    }

    private func keyFolder(_ id: String) -> String { daemon.dataDir + "/keys/" + id }

    private func sealedEntries(_ id: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: keyFolder(id))) ?? []
    }

    private func exportDir(_ name: String) throws -> String {
        try DaemonProcess.makeTemporaryDirectory(prefix: "stash-license-export") + "/" + name
    }

    private func waitForState(_ id: String, _ state: DownloadState, timeout: TimeInterval = 30) async throws -> Download {
        try await waitUntil(id, timeout: timeout) { $0.state == state }
    }

    func testLicensedDownloadExportsDecodesAndServesItsKey() async throws {
        let stream = try serveStream()
        let certificate = try TestCertificate.make(in: try DaemonProcess.makeTemporaryDirectory(prefix: "stash-cert"), format: .der)
        licenses.serveCertificate(certificate)
        licenses.requiredHeader = (name: "X-App-Token", value: "t0ken")
        licenses.expiresIn = 3600
        let drm = DRMParams(
            licenseServer: licenses.licenseURL, headers: [HTTPHeader(name: "X-App-Token", value: "t0ken")],
            contentID: "episode-7", certificateURL: licenses.certificateURL)
        let added = try await add("film", drm: drm)
        XCTAssertTrue(added.hasDRM)
        XCTAssertEqual(added.drm, drm)
        let done = try await waitFor("film", .completed)
        XCTAssertEqual(done.license?.kids.count, 1)

        let acquired = licenses.requests(action: "acquire")
        XCTAssertEqual(acquired.count, 1, "one licence request for the stream's one key")
        XCTAssertEqual(acquired.first?.kids, [Self.keyID])
        XCTAssertEqual(acquired.first?.contentID, "episode-7")
        XCTAssertEqual(acquired.first?.certificateSHA256, SHA256.hex(SHA256.hash(Array(certificate))),
                       "the certificate's SHA-256 goes with the request")
        XCTAssertFalse(http.requests.contains { $0.path.hasSuffix(".key") }, "no key is fetched from the stream's server")

        let status = try await client.checkLicense(id: "film")
        XCTAssertTrue(status.isValid)
        XCTAssertEqual(status.state, .completed)
        XCTAssertGreaterThan(status.check.licenseSecondsLeft ?? 0, 3500)

        // Sealed at rest, 0600, never in the clear on disk or in the log.
        let sealed = sealedEntries("film")
        XCTAssertEqual(sealed.count, 1)
        let sealedPath = keyFolder("film") + "/" + sealed[0]
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: sealedPath)[.posixPermissions] as? Int, 0o600)
        XCTAssertNil(try Data(contentsOf: URL(fileURLWithPath: sealedPath)).range(of: Data(Self.key)))

        let clear = try exportDir("clear")
        _ = try await client.export(id: "film", to: clear, decrypt: true)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: clear + "/master.m3u8"), stream.variants[0].frameCount)
        // A wrong IV garbles only a segment's first block, which a decoder shrugs off: check
        // the MPEG-TS sync bytes of the first two packets instead.
        let segment = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clear + "/video/seg00000.ts")))
        XCTAssertEqual([segment[0], segment[188]], [0x47, 0x47], "decrypted with the IV the skd:// URI gave")
        let packaged = try exportDir("packaged")
        _ = try await client.export(id: "film", to: packaged)
        let playlist = try String(contentsOfFile: packaged + "/video/index.m3u8", encoding: .utf8)
        XCTAssertTrue(playlist.contains("IV=0x" + (stream.variants[0].ivHex ?? "?").uppercased()), playlist)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: packaged + "/master.m3u8"), stream.variants[0].frameCount)
        // One file, decrypted with the licence's key: the pictures of the clear package.
        let film = try exportDir("film") + ".mkv"
        let one = try await client.export(id: "film", toFile: film)
        XCTAssertEqual(one.tracks.map(\.kind), [.video, .audio])
        XCTAssertEqual(try MediaProbe.videoFrameHashes(of: film), try MediaProbe.videoFrameHashes(of: clear + "/master.m3u8"))

        let playback = try await client.playbackKey(id: "film")
        XCTAssertEqual(playback.key, Self.key)
        let byHex = try await client.playbackKey(id: "film", keyID: Self.keyID.map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(byHex.key, Self.key)
        await assertFails(.notFound) { try await self.client.playbackKey(id: "film", keyID: String(repeating: "ab", count: 16)) }
        let afterPlayback = try await client.checkLicense(id: "film")
        XCTAssertNotNil(afterPlayback.terms?.firstPlaybackAt, "the first key handed out starts playback")

        let log = daemon.log()
        let hex = Self.key.map { String(format: "%02x", $0) }.joined()
        for form in [hex, hex.uppercased(), Data(Self.key).base64EncodedString(), base64url(Self.key)] {
            XCTAssertFalse(log.contains(form), "the key (as \(form)) never reaches the log, even at trace level")
        }

        try await client.cancel(id: "film")
        XCTAssertFalse(exists(keyFolder("film")), "removing the asset deletes its keys")
    }

    /// FairPlay-style `skd://someuri`: the licence server is asked for the key by the UTF-8
    /// bytes of "someuri" (base64url `c29tZXVyaQ`), and the key decrypts the stream.
    func testAnOpaqueSKDKeyIDIsAskedForAsItsUTF8Bytes() async throws {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let root = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-skd-opaque")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let stream = try HLSFixture.tsSKD(in: root + "/skd", seconds: 4, opaqueKeyID: "someuri", key: Self.key)
        let playlist = try String(contentsOfFile: stream.directory + "/" + stream.variants[0].path, encoding: .utf8)
        XCTAssertTrue(playlist.contains("URI=\"skd://someuri\""), playlist)
        http.serveDirectory(stream.directory, at: "/opaque")
        let kid = Array("someuri".utf8)
        licenses.addKey(kid: kid, key: Self.key)

        let request = AddDownloadRequest(id: "fairplay", uri: http.url("/opaque/" + stream.masterPath), drm: DRMParams(licenseServer: licenses.licenseURL))
        _ = try await client.addDownload(request)
        let done = try await waitFor("fairplay", .completed)
        XCTAssertEqual(done.license?.kids, ["c29tZXVyaQ"])
        let acquired = try XCTUnwrap(licenses.requests(action: "acquire").last)
        XCTAssertEqual(acquired.kids, [kid])
        XCTAssertTrue(String(decoding: acquired.body, as: UTF8.self).contains(#""kids":["c29tZXVyaQ"]"#))

        let clear = try exportDir("opaque")
        _ = try await client.export(id: "fairplay", to: clear, decrypt: true)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: clear + "/master.m3u8"), stream.variants[0].frameCount)
        for spelling in ["someuri", "c29tZXVyaQ", ""] {
            let playback = try await client.playbackKey(id: "fairplay", keyID: spelling)
            XCTAssertEqual(playback.key, Self.key, spelling)
            XCTAssertEqual(playback.keyID, "c29tZXVyaQ", spelling)
        }
    }

    func testWrongHeaderIsALicenseErrorAndNoKeyIsStored() async throws {
        licenses.requiredHeader = (name: "Authorization", value: "Bearer right")
        let events = try await client.events(ids: ["denied"])
        _ = try await add("denied", drm: DRMParams(
            licenseServer: licenses.licenseURL, headers: [HTTPHeader(name: "Authorization", value: "Bearer wrong")]))
        let failed = try await waitFor("denied", .failed)
        let message = failed.error?.message ?? ""
        XCTAssertTrue(message.contains("licence server") && message.contains("403"), message)
        XCTAssertEqual(failed.error?.httpStatus, 403)
        XCTAssertTrue(sealedEntries("denied").isEmpty, "no key is stored")
        var sawError = false
        for try await event in events {
            if case .license(let license) = event.kind, license.kind == .error {
                XCTAssertTrue(license.message.contains("403"), license.message)
                sawError = true
                break
            }
        }
        XCTAssertTrue(sawError, "a LicenseError event")
    }

    /// A renewal refused with 401 (the app's token expired) left the download DRM_EXPIRED for
    /// good: new licence headers (`stash set ID --license-header`) ask again at once with them,
    /// and the granted renewal makes it COMPLETED again.
    func testARenewalRefusedWith401IsAskedAgainWithNewLicenceHeaders() async throws {
        licenses.requiredHeader = (name: "Authorization", value: "Bearer one")
        licenses.expiresIn = 3600
        _ = try await add("token", drm: DRMParams(
            licenseServer: licenses.licenseURL, headers: [HTTPHeader(name: "Authorization", value: "Bearer one")]))
        _ = try await waitFor("token", .completed)
        licenses.requiredHeader = (name: "Authorization", value: "Bearer two")
        licenses.wrongHeaderStatus = 401
        let refused = await assertFails(.permissionDenied) { try await self.client.renewLicense(id: "token") }
        XCTAssertTrue(refused?.message.contains("401") ?? false, refused?.message ?? "")
        let expired = try await client.getDownload(id: "token")
        XCTAssertEqual(expired.state, .drmExpired)
        XCTAssertEqual(expired.error?.httpStatus, 401)
        XCTAssertTrue(expired.stateReason.contains("stash set token --license-header 'Name: value'"), expired.stateReason)

        let set = try daemon.runCLI(["set", "token", "--license-header", "authorization: Bearer two", "--json"])
        XCTAssertEqual(set.status, 0, set.stderr)
        // Still DRM_EXPIRED, which `waitFor` takes as an end, until the renewal asked again
        // with the new token is answered.
        _ = try await waitUntil("token") { $0.state == .completed }
        let renewals = licenses.requests(action: "renew")
        XCTAssertEqual(renewals.count, 2, "the refused renewal and the one with the new token")
        XCTAssertEqual(renewals.last?.header("Authorization"), "Bearer two")
        let playback = try await client.playbackKey(id: "token")
        XCTAssertEqual(playback.key, Self.key, "the key reaches a player again")
        let shown = try daemon.runCLI(["show", "token"])
        XCTAssertTrue(shown.stdout.contains("authorization: Bearer two"), shown.stdout)
        XCTAssertFalse(shown.stdout.contains("Bearer one"), "the header of that name is replaced: \(shown.stdout)")

        // A renewal asked again that the server refuses (a revoked key) leaves it DRM_EXPIRED.
        licenses.revoke(kid: Self.keyID)
        _ = await assertFails(.permissionDenied) { try await self.client.renewLicense(id: "token") }
        _ = try await waitFor("token", .drmExpired)
        XCTAssertEqual(try daemon.runCLI(["set", "token", "--license-header", "X-Extra: 1"]).status, 0)
        try await eventually("the renewal asked again is refused") { self.licenses.requests(action: "renew").count == 4 }
        let still = try await client.getDownload(id: "token")
        XCTAssertEqual(still.state, .drmExpired)
        let none = try daemon.runCLI(["set", "token", "--license-header", "Bad Name: 1"])
        XCTAssertEqual(none.status, 2, none.stderr)
        XCTAssertTrue(none.stderr.contains("'Bad Name'") && none.stderr.contains("HTTP token"), none.stderr)
    }

    /// A segment lost after the licence ran out is fetched again by `verify --repair` without
    /// asking the licence server, and the download goes back to LICENSE_EXPIRED, whole.
    func testRepairRestoresAnExpiredDownloadsFilesAndItStaysExpired() async throws {
        licenses.expiresIn = 2
        _ = try await add("lapsed")
        _ = try await waitFor("lapsed", .completed)
        licenses.stop()
        _ = try await waitForState("lapsed", .licenseExpired, timeout: 20)
        let folder = daemon.dataDir + "/assets/lapsed"
        let segment = try XCTUnwrap(FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }
            .first { $0.hasSuffix(".ts") })
        let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + segment))
        try FileManager.default.removeItem(atPath: folder + "/" + segment)

        let report = try await client.verify(repair: true)
        XCTAssertEqual(report.requeued, 1)
        XCTAssertEqual(report.findings.map(\.kind), [.missingFile])
        XCTAssertEqual(report.findings.map(\.repaired), [true])
        // Back where it was once the file is there again: COMPLETED lasts until the licence check.
        let back = try await waitUntil("lapsed") { $0.state == .licenseExpired && $0.filesDone == $0.filesTotal }
        XCTAssertNotNil(back.completedAt)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + segment)), bytes)
        let clean = try await client.verify()
        XCTAssertEqual(clean.findings, [])
    }

    func testRevokedRenewalIsDRMExpired() async throws {
        _ = try await add("revoked")
        _ = try await waitFor("revoked", .completed)
        licenses.revoke(kid: Self.keyID)
        let error = await assertFails(.permissionDenied) { try await self.client.renewLicense(id: "revoked") }
        XCTAssertTrue(error?.message.contains("403") ?? false, error?.message ?? "")
        let download = try await client.getDownload(id: "revoked")
        XCTAssertEqual(download.state, .drmExpired)
        XCTAssertTrue(download.stateReason.contains("refused"), download.stateReason)
        // The terms the server granted are still in time, but it has refused them since: no
        // key may reach a player.
        let refused = await assertFails(.failedPrecondition) { try await self.client.playbackKey(id: "revoked") }
        XCTAssertTrue(refused?.message.contains("refused") ?? false, refused?.message ?? "")
    }

    /// A refusal is kept with the licence: a repair that fetches a lost segment again must not
    /// bring the download back COMPLETED, nor its keys back to players (it did, when only the
    /// state remembered the refusal).
    func testARefusedLicenceStaysRefusedThroughARepair() async throws {
        _ = try await add("refused")
        _ = try await waitFor("refused", .completed)
        licenses.revoke(kid: Self.keyID)
        await assertFails(.permissionDenied) { try await self.client.renewLicense(id: "refused") }
        _ = try await waitForState("refused", .drmExpired)
        let folder = daemon.dataDir + "/assets/refused"
        let segments = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".ts") }
        let lost = try XCTUnwrap(segments.sorted().first, "segments under \(folder)")
        // Lost while the daemon is down: the start finds it and fails the download, which a
        // repair may then fetch again.
        XCTAssertEqual(daemon.terminate(), 0)
        try FileManager.default.removeItem(atPath: folder + "/" + lost)
        try await daemon.restart()
        try await reconnect()
        _ = try await waitForState("refused", .failed)

        let repaired = try await client.verify(repair: true)
        XCTAssertEqual(repaired.requeued, 1, "\(repaired)")
        let settled = try await waitForState("refused", .drmExpired)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/" + lost), "the lost segment is fetched again")
        XCTAssertTrue(settled.stateReason.contains("refused"), settled.stateReason)
        let status = try await client.checkLicense(id: "refused")
        XCTAssertEqual(status.check.verdict, .refused)
        await assertFails(.failedPrecondition) { try await self.client.playbackKey(id: "refused") }
    }

    func testReleaseWhileServerDownReachesItOnceAfterRestart() async throws {
        _ = try await add("gone")
        _ = try await waitFor("gone", .completed)
        licenses.stop()
        let released = try await client.releaseLicense(id: "gone")
        XCTAssertEqual(released.state, .licenseExpired)
        XCTAssertNil(released.terms)
        XCTAssertTrue(sealedEntries("gone").isEmpty, "the keys are deleted at once")

        try await daemon.restart()
        try await reconnect()
        try licenses.restart()
        // That an acknowledged release is never sent again, however much time passes, is
        // LicenseOutboxTests' (on a manual clock).
        try await waitForRequests(action: "release", count: 1)
        XCTAssertEqual(licenses.requests(action: "release").first?.kids, [Self.keyID])

        // A new licence brings the download back.
        let again = try await client.downloadLicense(id: "gone")
        XCTAssertTrue(again.isValid)
        XCTAssertEqual(again.state, .completed)
        XCTAssertEqual(sealedEntries("gone").count, 1)
    }

    func testCancelReleasesTheLicenceAndAServerThatIsDownIsToldLater() async throws {
        _ = try await add("given-back")
        _ = try await waitFor("given-back", .completed)
        try await client.cancel(id: "given-back")
        try await waitForRequests(action: "release", count: 1)
        XCTAssertEqual(licenses.requests(action: "release").first?.kids, [Self.keyID])
        XCTAssertTrue(sealedEntries("given-back").isEmpty, "its keys are gone with it")

        _ = try await add("later")
        _ = try await waitFor("later", .completed)
        licenses.stop()
        try await client.cancel(id: "later")
        await assertFails(.notFound) { try await self.client.getDownload(id: "later") }
        try await daemon.restart()
        try await reconnect()
        try licenses.restart()
        // Recorded requests survive the server's restart: the first release is still counted.
        try await waitForRequests(action: "release", count: 2)
    }

    /// Waits until the licence server has had `count` requests of `action`.
    private func waitForRequests(action: String, count: Int) async throws {
        let deadline = Date().addingTimeInterval(30)
        while licenses.requests(action: action).count < count, Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        XCTAssertEqual(licenses.requests(action: action).count, count, "\(action) requests")
    }

    func testLicenseBeforeTheDownloadStarts() async throws {
        let stream = try serveStream()
        _ = try await client.setConfig([(key: "max-parallel", value: "1")])
        // A slot taken by a slow download keeps "early" QUEUED while its licence is asked for.
        http.serve(path: "/slow", route: {
            var route = TestRoute(body: .bytes(Array(repeating: 7, count: 400_000)))
            route.bytesPerSecond = 100_000
            return route
        }())
        _ = try await client.addDownload(AddDownloadRequest(id: "slow", uri: http.url("/slow")))
        _ = try await client.addDownload(AddDownloadRequest(
            id: "early", uri: http.url("/skd/" + stream.masterPath), drm: DRMParams(licenseServer: licenses.licenseURL)))
        let status = try await client.downloadLicense(id: "early")
        XCTAssertTrue(status.isValid)
        XCTAssertEqual(status.terms?.kids.count, 1)
        _ = try await waitFor("early", .completed)
        XCTAssertEqual(licenses.requests(action: "acquire").count, 1, "planning uses the licence already held")
    }

    func testASlowLicenceServerIsWaitedFor() async throws {
        licenses.delaySeconds = 1.5
        _ = try await add("slow-licence")
        let done = try await waitFor("slow-licence", .completed)
        XCTAssertEqual(done.license?.kids.count, 1)
        XCTAssertEqual(licenses.requests(action: "acquire").count, 1, "a slow answer is not a failure to retry")
    }

    func testHostileLicenceAnswersFailClearly() async throws {
        let cases: [(String, (LicenseServer) -> Void, String)] = [
            ("malformed", { $0.malformedJSON = true }, "JSON"),
            ("short-key", { $0.addKey(kid: Self.keyID, key: Array(Self.key.prefix(8))) }, "8 bytes"),
            ("refused", { $0.refuseStatus = 403 }, "403"),
        ]
        for (id, setUp, expected) in cases {
            licenses.stop()
            licenses = try LicenseServer.start()
            licenses.addKey(kid: Self.keyID, key: Self.key)
            setUp(licenses)
            _ = try await add(id)
            let failed = try await waitFor(id, .failed)
            XCTAssertTrue(failed.error?.message.contains(expected) ?? false, "\(id): \(failed.error?.message ?? "")")
            XCTAssertTrue(sealedEntries(id).isEmpty, "\(id): no key stored")
        }
    }

    func testBadCertificateFailsTheLicence() async throws {
        let expired = try TestCertificate.makeExpired(in: try DaemonProcess.makeTemporaryDirectory(prefix: "stash-cert"))
        licenses.serveCertificate(expired)
        _ = try await add("old-cert", drm: DRMParams(licenseServer: licenses.licenseURL, certificateURL: licenses.certificateURL))
        let failed = try await waitFor("old-cert", .failed)
        XCTAssertTrue(failed.error?.message.contains("expired") ?? false, failed.error?.message ?? "")
        XCTAssertTrue(licenses.requests(action: "acquire").isEmpty, "no licence is asked for with a bad certificate")

        licenses.serveCertificate(Array("not a certificate".utf8))
        _ = try await add("junk-cert", drm: DRMParams(licenseServer: licenses.licenseURL, certificateURL: licenses.certificateURL))
        let junk = try await waitFor("junk-cert", .failed)
        XCTAssertTrue(junk.error?.message.contains("certificate") ?? false, junk.error?.message ?? "")
    }

    func testSKDKeysWithoutDRMParametersAndBadParametersAreRefused() async throws {
        let stream = try serveStream()
        _ = try await client.addDownload(AddDownloadRequest(id: "no-drm", uri: http.url("/skd/" + stream.masterPath)))
        let failed = try await waitFor("no-drm", .failed)
        XCTAssertTrue(failed.error?.message.contains("--license-server") ?? false, failed.error?.message ?? "")

        let bad: [(DRMParams, String)] = [
            (DRMParams(licenseServer: "ftp://licence.example/"), "drm.license_server"),
            (DRMParams(licenseServer: licenses.licenseURL, certificateURL: "not a url"), "drm.certificate_url"),
            (DRMParams(licenseServer: licenses.licenseURL, contentID: String(repeating: "c", count: 2000)), "drm.content_id"),
        ]
        for (drm, field) in bad {
            let error = await assertFails(.invalidArgument) {
                try await self.client.addDownload(AddDownloadRequest(uri: self.http.url("/skd/" + stream.masterPath), drm: drm))
            }
            XCTAssertTrue(error?.message.contains(field) ?? false, error?.message ?? "")
        }
        await assertFails(.failedPrecondition) { try await self.client.checkLicense(id: "no-drm") }
    }

    func testLicenseCLI() async throws {
        _ = try await add("cli")
        _ = try await waitFor("cli", .completed)
        let check = try daemon.runCLI(["license", "check", "cli", "--json"])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(check.stdout.contains("\"valid\":true"), check.stdout)
        let release = try daemon.runCLI(["license", "release", "--all"])
        XCTAssertEqual(release.status, 0, release.stderr)
        XCTAssertTrue(release.stdout.contains("released 1 licence"), release.stdout)
        // Acknowledged before the command returned, so nothing is left in the outbox to send
        // again (LicenseOutboxTests).
        XCTAssertEqual(licenses.requests(action: "release").count, 1)
        XCTAssertTrue(sealedEntries("cli").isEmpty, "released keys are deleted")
        let after = try daemon.runCLI(["license", "check", "cli"])
        XCTAssertEqual(after.status, 1, "an invalid licence exits 1: \(after.stdout)")
        let get = try daemon.runCLI(["license", "get", "cli"])
        XCTAssertEqual(get.status, 0, get.stderr)
        XCTAssertTrue(get.stdout.contains("valid"), get.stdout)
    }

    /// A licence server that is down is a failed command (1), not a daemon that cannot be
    /// reached (3).
    func testLicenseGetWithTheServerDownExits1() async throws {
        _ = try await add("down")
        _ = try await waitFor("down", .completed)
        licenses.stop()
        let get = try daemon.runCLI(["license", "get", "down"])
        XCTAssertEqual(get.status, 1, get.stderr)
        XCTAssertTrue(get.stderr.hasPrefix("stash: "), get.stderr)
        XCTAssertFalse(get.stderr.contains("start it with"), get.stderr)
        XCTAssertTrue(get.stderr.hasPrefix("stash: the acquire request to the licence server failed: "), get.stderr)
        XCTAssertEqual(get.stderr.components(separatedBy: licenses.licenseURL).count, 2, "the server's URL once: \(get.stderr)")
    }

    private func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
