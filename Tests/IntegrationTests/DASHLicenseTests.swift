import Foundation
import StashClient
import StashTestSupport
import XCTest

/// A ClearKey CENC presentation (ffmpeg's dash muxer, then scripts/cenc-encrypt.py encrypting
/// with AES-CTR; the test writes its ContentProtection): the key comes from the test licence
/// server as for HLS, sealed, the segments stay encrypted on disk, GetPlaybackKey hands the key
/// to the owner, and both exports decrypt.
final class DASHLicenseTests: DaemonTestCase {
    private static let keyID: [UInt8] = Array(0x20..<0x30)
    private static let key: [UInt8] = [0x7c, 0x11, 0xe4, 0x52, 0x09, 0xab, 0x3d, 0x66, 0xf0, 0x2e, 0x81, 0x4b, 0xc5, 0x97, 0x18, 0xda]

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

    private func asset(_ id: String) -> String { daemon.dataDir + "/assets/" + id }

    /// The encrypted presentation with its ContentProtection, served at `/cenc`: its folder and
    /// the URL of its MPD.
    private func serveProtected() throws -> (directory: String, url: String) {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let directory = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-cenc") + "/cenc"
        let fixture = try DASHFixture.encrypted(in: directory, key: Self.key, keyID: Self.keyID)
        let plain = try String(contentsOfFile: directory + "/" + fixture.manifestPath, encoding: .utf8)
        let protected = plain.replacingOccurrences(
            of: "(<AdaptationSet[^>]*>)", with: "$1" + DASHFixture.contentProtection(keyID: Self.keyID), options: .regularExpression)
        try protected.write(toFile: directory + "/protected.mpd", atomically: true, encoding: .utf8)
        http.serveDirectory(directory, at: "/cenc")
        return (directory, http.url("/cenc/protected.mpd"))
    }

    private func sealedEntries(_ id: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: daemon.dataDir + "/keys/" + id)) ?? []
    }

    /// A replace of a CENC download asks for its own licence and seals the key beside the old
    /// copy's (under the replace's prefix), so the old copy keeps a working key until the swap.
    func testAReplaceSealsItsKeyBesideTheOldCopysUntilTheSwap() async throws {
        let (_, url) = try serveProtected()
        let drm = DRMParams(licenseServer: licenses.licenseURL)
        _ = try await client.addDownload(AddDownloadRequest(id: "movie", uri: url, drm: drm))
        _ = try await waitFor("movie", .completed)
        XCTAssertEqual(sealedEntries("movie").count, 1)
        http.update(path: "/cenc/chunk-stream1-00001.m4s") {
            $0.stallAfterBytes = 100
            $0.stallTimes = 1
        }
        var request = AddDownloadRequest(id: "movie", uri: url, drm: drm)
        request.replace = true
        _ = try await client.addDownload(request)
        try await eventually("the new copy's first segment is held") { self.http.stalledCount > 0 }
        XCTAssertEqual(sealedEntries("movie").count, 2, "the new key is sealed beside the old one")
        let during = try await client.playbackKey(id: "movie").key
        XCTAssertEqual(during, Self.key)
        http.releaseStalls()
        let replaced = try await waitUntil("movie") { $0.stateReason == "replaced by a new copy" }
        XCTAssertEqual(replaced.state, .completed)
        try await eventually("one key, under its own id") { self.sealedEntries("movie").count == 1 }
        let after = try await client.playbackKey(id: "movie").key
        XCTAssertEqual(after, Self.key)
        let out = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export")
        _ = try await client.export(id: "movie", to: out + "/clear", decrypt: true)
        XCTAssertEqual(try DASHFixture.decodedFrames(manifest: out + "/clear/manifest.mpd"), DASHFixture.frameCount)
    }

    /// Licence renewal and release run for DASH as for HLS: short terms are renewed by the
    /// daemon itself before they run out, and `stash license release` and a cancel each tell
    /// the server through the outbox, naming the key id of the MPD's `cenc:default_KID`.
    func testShortTermsAreRenewedAndAReleaseAndACancelReachTheServer() async throws {
        let (_, url) = try serveProtected()
        let drm = DRMParams(licenseServer: licenses.licenseURL)
        licenses.expiresIn = 3
        _ = try await client.addDownload(AddDownloadRequest(id: "short", uri: url, drm: drm))
        _ = try await waitFor("short", .completed)
        let acquired = Date()
        try await eventually("renewed twice, each before its term ran out", timeout: .seconds(20)) { self.licenses.requests(action: "renew").count >= 2 }
        XCTAssertGreaterThan(Date().timeIntervalSince(acquired), 3, "the first term is over")
        XCTAssertEqual(licenses.requests(action: "renew").map(\.kids), [[Self.keyID], [Self.keyID]])
        let renewed = try await client.getDownload(id: "short")
        XCTAssertEqual(renewed.state, .completed, renewed.stateReason)
        let key = try await client.playbackKey(id: "short").key
        XCTAssertEqual(key, Self.key)

        licenses.expiresIn = 3600
        let released = try await client.releaseLicense(id: "short")
        XCTAssertEqual(released.state, .licenseExpired)
        XCTAssertTrue(sealedEntries("short").isEmpty, "released keys are deleted")
        try await eventually("the release reaches the server") { self.licenses.requests(action: "release").count == 1 }
        XCTAssertEqual(licenses.requests(action: "release").first?.kids, [Self.keyID])
        await assertFails(.failedPrecondition) { try await self.client.playbackKey(id: "short") }

        _ = try await client.addDownload(AddDownloadRequest(id: "cancelled", uri: url, drm: drm, force: true))
        _ = try await waitFor("cancelled", .completed)
        XCTAssertEqual(sealedEntries("cancelled").count, 1)
        try await client.cancel(id: "cancelled")
        try await eventually("the cancel's release reaches the server") { self.licenses.requests(action: "release").count == 2 }
        XCTAssertEqual(licenses.requests(action: "release").last?.kids, [Self.keyID])
        XCTAssertTrue(sealedEntries("cancelled").isEmpty, "its keys are gone with it")
    }

    func testClearKeyCENCKeysComeFromTheLicenceServer() async throws {
        let (directory, url) = try serveProtected()

        let info = try await client.manifestInfo(uri: url)
        XCTAssertEqual(info.variants.map(\.encryption), [["CENC"], ["CENC"]])

        // Without DRM parameters the download says what it needs, and fetches no segment.
        _ = try await client.addDownload(AddDownloadRequest(id: "bare", uri: url))
        let refused = try await waitFor("bare", .failed)
        XCTAssertTrue(refused.error?.message.contains("--drm-type clearkey --license-server") ?? false, "\(String(describing: refused.error))")

        let drm = DRMParams(licenseServer: licenses.licenseURL)
        _ = try await client.addDownload(AddDownloadRequest(id: "movie", uri: url, drm: drm, force: true))
        let done = try await waitFor("movie", .completed)
        XCTAssertTrue(done.hasDRM)
        XCTAssertEqual(done.filesDone, done.filesTotal)
        // The segments are kept as served: encrypted.
        let served = try Data(contentsOf: URL(fileURLWithPath: directory + "/chunk-stream1-00001.m4s"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: asset("movie") + "/video/seg00000.m4s")), served)
        XCTAssertNotEqual(served, try Data(contentsOf: URL(fileURLWithPath: directory + "/clear-chunk-stream1-00001.m4s")))
        XCTAssertThrowsError(try DASHFixture.decodedFrames(manifest: asset("movie") + "/manifest.mpd"), "ffmpeg decodes no CENC sample without its key")
        let manifest = try String(contentsOfFile: asset("movie") + "/manifest.mpd", encoding: .utf8)
        XCTAssertTrue(manifest.contains("cenc:default_KID=\"20212223-2425-2627-2829-2a2b2c2d2e2f\""), manifest)
        // The key is sealed, never in the asset folder or the log, and the owner gets it.
        let sealed = try FileManager.default.contentsOfDirectory(atPath: daemon.dataDir + "/keys/movie")
        XCTAssertEqual(sealed.count, 1)
        let keyHex = Self.key.map { String(format: "%02x", $0) }.joined()
        XCTAssertFalse(daemon.log().contains(keyHex))
        let playback = try await client.playbackKey(id: "movie")
        XCTAssertEqual(playback.key, Self.key)

        // Decrypted to a folder: clear segments and an MPD without ContentProtection, which
        // ffmpeg decodes without a key, without a decoder error, to every frame.
        let out = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export")
        let clear = try await client.export(id: "movie", to: out + "/clear", decrypt: true)
        XCTAssertTrue(clear.decrypted)
        XCTAssertEqual(clear.files, done.filesTotal + 1)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: out + "/clear/video/seg00000.m4s")).count, served.count, "the boxes keep their sizes")
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/clear/video/seg00000.m4s")), served)
        let clearManifest = try String(contentsOfFile: out + "/clear/manifest.mpd", encoding: .utf8)
        XCTAssertFalse(clearManifest.contains("ContentProtection"), clearManifest)
        XCTAssertEqual(try DASHFixture.decodedFrames(manifest: out + "/clear/manifest.mpd"), DASHFixture.frameCount)
        // The decrypted video is the source's, frame for frame.
        XCTAssertEqual(
            try DASHFixture.frameHashes(
                initialization: directory + "/clear-init-stream1.m4s", segments: (1...3).map { directory + "/clear-chunk-stream1-0000\($0).m4s" }),
            try DASHFixture.frameHashes(initialization: out + "/clear/video/init.m4s", segments: (0..<3).map { out + "/clear/video/seg0000\($0).m4s" }))
        // To one file, decrypted as it is remuxed.
        let file = try await client.export(id: "movie", toFile: out + "/movie.mkv")
        XCTAssertTrue(file.decrypted)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: out + "/movie.mkv"), DASHFixture.frameCount)
        let copy = try await client.export(id: "movie", to: out + "/copy")
        XCTAssertEqual(copy.files, done.filesTotal + 1)

        // A segment whose senc lies about its samples stops the export, which leaves nothing;
        // a scheme other than 'cenc' is refused by name. Each is served as a copy of the
        // presentation (the disk watch would fail a download whose files were changed).
        let lying = try await tamperedCopy(of: directory, as: "lying", file: "chunk-stream1-00002.m4s", box: "senc", at: 8) { [$0[0], $0[1], $0[2], $0[3] ^ 1] }
        let broken = await assertFails(.failedPrecondition) { try await self.client.export(id: lying, to: out + "/lying", decrypt: true) }
        XCTAssertTrue(broken?.message.contains("video/seg00001.m4s: the senc of track 1 lists a sample_count") ?? false, "\(String(describing: broken))")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/lying"))
        let cbcs = try await tamperedCopy(of: directory, as: "cbcs", file: "init-stream1.m4s", box: "schm", at: 8) { _ in Array("cbcs".utf8) }
        let unimplemented = await assertFails(.unimplemented) { try await self.client.export(id: cbcs, toFile: out + "/cbcs.mkv") }
        XCTAssertTrue(unimplemented?.message.contains("scheme 'cbcs'") ?? false, "\(String(describing: unimplemented))")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/cbcs.mkv"))
    }

    /// Serves a copy of the presentation in `directory` whose `file` has the four bytes `at`
    /// past the start of its first `box` type replaced by `change` of them, and downloads it
    /// as `id`, which it returns once COMPLETED.
    private func tamperedCopy(of directory: String, as id: String, file: String, box: String, at: Int,
                              _ change: ([UInt8]) -> [UInt8]) async throws -> String {
        let copy = directory + "-" + id
        try FileManager.default.copyItem(atPath: directory, toPath: copy)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: copy + "/" + file)))
        let type = Array(box.utf8)
        let start = try XCTUnwrap((0..<bytes.count - 4).first { Array(bytes[$0..<$0 + 4]) == type }) + at
        bytes.replaceSubrange(start..<start + 4, with: change(Array(bytes[start..<start + 4])))
        try Data(bytes).write(to: URL(fileURLWithPath: copy + "/" + file))
        http.serveDirectory(copy, at: "/" + id)
        _ = try await client.addDownload(AddDownloadRequest(id: id, uri: http.url("/" + id + "/protected.mpd"), drm: DRMParams(licenseServer: licenses.licenseURL)))
        _ = try await waitFor(id, .completed)
        return id
    }
}
