import Foundation
import StashClient
import StashTestSupport
import XCTest

/// Add with replace of an HLS stream on a real daemon: the playlists are read again with the
/// record's choice, the new package is fetched beside the old one, and swapped in whole.
final class PackageReplaceTests: DaemonTestCase {
    func testAnHLSStreamIsReplacedByTheServersLongerStream() async throws {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let short = try HLSFixture.shared("ts-aes128-6s") { try HLSFixture.tsAES128(in: $0, seconds: 6) }
        let long = try HLSFixture.shared("ts-aes128") { try HLSFixture.tsAES128(in: $0) }
        http.serveDirectory(short.directory, at: "/ts")
        let url = http.url("/ts/" + short.masterPath)
        let options = HLSOptions(quality: .medium, subtitles: ["en"])
        _ = try await client.addDownload(AddDownloadRequest(id: "movie", uri: url, hls: options))
        let old = try await waitFor("movie", .completed)
        XCTAssertGreaterThanOrEqual(old.filesTotal, short.variants[1].segmentCount)

        // The server now has the whole stream; the first segment stalls while the test looks.
        http.serveDirectory(long.directory, at: "/ts")
        http.update(path: "/ts/v1/seg000.ts") {
            $0.stallAfterBytes = 100
            $0.stallTimes = 1
        }
        let result = try daemon.runCLI(["add", url, "--id", "movie", "--quality", "medium", "--subtitles", "en", "--replace"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        try await eventually("the new package's first segment is held") { self.http.stalledCount > 0 }
        let during = try await client.getDownload(id: "movie")
        XCTAssertEqual(during.state, .completed)
        XCTAssertEqual(during.filesTotal, old.filesTotal, "the record is the old package's until the exchange")
        XCTAssertTrue(exists(daemon.dataDir + "/assets/.replacing-movie/master.m3u8"), "the playlists are written beside the old package")
        http.releaseStalls()

        let replaced = try await waitUntil("movie") { $0.stateReason == "replaced by a new copy" }
        XCTAssertEqual(replaced.state, .completed)
        XCTAssertGreaterThan(replaced.filesTotal, old.filesTotal)
        try await eventually("the old package deleted") { !self.exists(self.daemon.dataDir + "/assets/.replacing-movie") }
        let exported = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-export") + "/movie"
        _ = try await client.export(id: "movie", to: exported)
        XCTAssertEqual(try HLSFixture.decodedFrames(playlist: exported + "/master.m3u8"), long.variants[1].frameCount, "the new package plays with its key")
        let verify = try daemon.runCLI(["verify", "--deep"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }
}
