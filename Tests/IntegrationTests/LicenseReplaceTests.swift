import Foundation
import StashClient
import StashTestSupport
import XCTest

/// Add with replace of an HLS stream with DRM on a real daemon and the test licence server:
/// the new copy's licence is asked for as an add asks for it, its keys sealed beside the old
/// copy's, which keeps its licence and keys until the exchange; after it the new licence is
/// the download's and the old one is released. A replace that ends without the exchange keeps
/// the old copy with its licence, and deletes the new keys.
final class LicenseReplaceTests: DaemonTestCase {
    private static let keyID: [UInt8] = Array(0x10..<0x20)
    private static let key: [UInt8] = [0x3a, 0x91, 0x5c, 0x07, 0xe2, 0x48, 0xbd, 0x16, 0x6f, 0xa4, 0x29, 0xd3, 0x80, 0x5e, 0xc1, 0x72]

    private var licenses: LicenseServer!
    private var stream: HLSFixture!

    override func setUp() async throws {
        try await super.setUp()
        licenses = try LicenseServer.start()
        licenses.addKey(kid: Self.keyID, key: Self.key)
        licenses.expiresIn = 3600
    }

    override func tearDown() async throws {
        licenses?.stop()
        try await super.tearDown()
    }

    /// Adds the licensed stream as `id` and waits until it is COMPLETED with its licence.
    private func addLicensed(_ id: String) async throws -> Download {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        stream = try HLSFixture.shared("skd-6s-uri-iv") {
            try HLSFixture.tsSKD(in: $0, seconds: 6, keyID: Self.keyID, key: Self.key, uriIV: true)
        }
        http.serveDirectory(stream.directory, at: "/skd")
        _ = try await client.addDownload(AddDownloadRequest(
            id: id, uri: http.url("/skd/" + stream.masterPath), drm: DRMParams(licenseServer: licenses.licenseURL), force: true))
        let done = try await waitFor(id, .completed)
        XCTAssertEqual(done.license?.kids.count, 1)
        XCTAssertEqual(sealedEntries(id).count, 1)
        return done
    }

    /// Starts the replace of `id` with its first segment held until `http.releaseStalls()`.
    private func replaceHeld(_ id: String) async throws {
        http.update(path: "/skd/" + (stream.variants[0].path as NSString).deletingLastPathComponent + "/seg000.ts") {
            $0.stallAfterBytes = 100
            $0.stallTimes = 1
        }
        try await replace(id)
        try await eventually("the new package's first segment is held") { self.http.stalledCount > 0 }
    }

    private func replace(_ id: String) async throws {
        var request = AddDownloadRequest(id: id, uri: http.url("/skd/" + stream.masterPath), drm: DRMParams(licenseServer: licenses.licenseURL))
        request.replace = true
        _ = try await client.addDownload(request)
    }

    private func sealedEntries(_ id: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: daemon.dataDir + "/keys/" + id)) ?? []
    }

    func testTheNewCopyGetsItsOwnLicenceAndTheOldOneIsReleased() async throws {
        let old = try await addLicensed("film")
        licenses.expiresIn = 7200
        try await replaceHeld("film")
        let during = try await client.getDownload(id: "film")
        XCTAssertEqual(during.state, .completed)
        XCTAssertEqual(during.license, old.license, "the old copy keeps its licence until the exchange")
        XCTAssertEqual(licenses.requests(action: "acquire").count, 2, "the new copy asks for its licence as an add does")
        XCTAssertEqual(sealedEntries("film").count, 2, "the new key is sealed beside the old one")
        let playing = try await client.playbackKey(id: "film")
        XCTAssertEqual(playing.key, Self.key)
        http.releaseStalls()

        let replaced = try await waitUntil("film") { $0.stateReason == "replaced by a new copy" }
        XCTAssertEqual(replaced.state, .completed)
        XCTAssertNotEqual(replaced.license, old.license, "the new licence is the download's")
        let status = try await client.checkLicense(id: "film")
        XCTAssertGreaterThan(status.check.licenseSecondsLeft ?? 0, 3600, "the new licence's terms (7200 s)")
        try await eventually("the old licence is released") { self.licenses.requests(action: "release").count == 1 }
        XCTAssertEqual(licenses.requests(action: "release").first?.kids, [Self.keyID])
        try await eventually("one key, under its own id") { self.sealedEntries("film").count == 1 }
        let key1 = try await client.playbackKey(id: "film").key
        XCTAssertEqual(key1, Self.key)
        let exported = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export") + "/film"
        _ = try await client.export(id: "film", to: exported, decrypt: true)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: exported + "/master.m3u8"), stream.variants[0].frameCount)

        // The licence the record names is the one that survives a restart.
        try await daemon.restart()
        try await reconnect()
        let reloaded = try await client.getDownload(id: "film")
        XCTAssertEqual(reloaded.license?.acquiredAt, replaced.license?.acquiredAt)
        XCTAssertEqual(reloaded.license?.expiresAt, replaced.license?.expiresAt)
        let key2 = try await client.playbackKey(id: "film").key
        XCTAssertEqual(key2, Self.key)
    }

    func testARefusedLicenceKeepsTheOldCopyWithItsLicence() async throws {
        let old = try await addLicensed("kept")
        licenses.requiredHeader = (name: "Authorization", value: "Bearer new")
        try await replace("kept")
        let failed = try await waitUntil("kept") { $0.stateReason.hasPrefix("the replace failed") }
        XCTAssertEqual(failed.state, .completed)
        XCTAssertTrue(failed.stateReason.contains("403"), failed.stateReason)
        XCTAssertEqual(failed.license, old.license)
        XCTAssertEqual(sealedEntries("kept").count, 1)
        let key3 = try await client.playbackKey(id: "kept").key
        XCTAssertEqual(key3, Self.key)
        XCTAssertTrue(licenses.requests(action: "release").isEmpty)
    }

    func testACancelOrARestartKeepsTheOldCopyAndDeletesTheNewKeys() async throws {
        let old = try await addLicensed("held")
        try await replaceHeld("held")
        try await client.cancel(id: "held")
        let cancelled = try await waitUntil("held") { $0.stateReason.hasPrefix("the replace was cancelled") }
        XCTAssertEqual(cancelled.license, old.license)
        try await eventually("the new key is deleted") { self.sealedEntries("held").count == 1 }
        http.releaseStalls()

        try await replaceHeld("held")
        XCTAssertEqual(sealedEntries("held").count, 2)
        try await daemon.restart()
        try await reconnect()
        let discarded = try await waitUntil("held") { $0.stateReason.hasPrefix("a replace was under way") }
        XCTAssertEqual(discarded.state, .completed)
        XCTAssertEqual(discarded.license, old.license)
        try await eventually("the new key is deleted") { self.sealedEntries("held").count == 1 }
        let key4 = try await client.playbackKey(id: "held").key
        XCTAssertEqual(key4, Self.key)
        XCTAssertTrue(licenses.requests(action: "release").isEmpty)
    }
}
