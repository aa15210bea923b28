import Foundation
import StashClient
import StashTestSupport
import XCTest

/// Numbers past Int64 from a playlist, a server's headers or a client's request: each used to
/// trap, and the ones stored with the download trapped again at every start. Each case leaves
/// a daemon that answers and starts again.
final class HostileNumbersTests: DaemonTestCase {
    override var fixtureConfig: [(key: String, value: String)] {
        super.fixtureConfig + [(key: "retry-max-attempts", value: "2")]
    }

    private func media(_ lines: String) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n" + lines + "#EXT-X-ENDLIST\n"
    }

    /// Restarts stashd (SIGTERM, then a start on the same data dir) and checks it answers.
    private func assertRestarts(file: StaticString = #filePath, line: UInt = #line) async throws {
        try await daemon.restart()
        try await reconnect()
        let listed = try await client.listDownloads()
        XCTAssertFalse(listed.downloads.isEmpty, file: file, line: line)
    }

    func testByteRangePastInt64FailsTheDownloadAndTheDaemonRestarts() async throws {
        http.serve(path: "/offset.m3u8", body: Array(media("#EXTINF:2,\n#EXT-X-BYTERANGE:100@9223372036854775800\ns.ts\n").utf8))
        _ = try await client.addDownload(AddDownloadRequest(id: "offset", uri: http.url("/offset.m3u8"), hls: HLSOptions()))
        let failed = try await waitFor("offset", .failed)
        XCTAssertTrue(failed.error?.message.contains("100@9223372036854775800") == true, "\(failed.error?.message ?? "")")
        try await assertRestarts()
        let after = try await client.getDownload(id: "offset")
        XCTAssertEqual(after.state, .failed)
    }

    func testByteRangesSummingPastInt64DoNotTrap() async throws {
        http.serve(path: "/s.ts", size: 1_000)
        let twice = "#EXTINF:2,\n#EXT-X-BYTERANGE:5000000000000000000@0\ns.ts\n"
        http.serve(path: "/sum.m3u8", body: Array(media(twice + twice).utf8))
        _ = try await client.addDownload(AddDownloadRequest(id: "sum", uri: http.url("/sum.m3u8"), hls: HLSOptions()))
        // 10^19 bytes do not fit any disk: the download fails at planning (HLSHostileTests
        // checks the message).
        let failed = try await waitFor("sum", .failed, timeout: 10)
        XCTAssertEqual(failed.totalBytes, Int64.max, "the playlist's sizes saturate")
        try await assertRestarts()
    }

    func testHugeRetryAfterDoesNotTrapAtStartOrLater() async throws {
        var route = TestRoute(body: .pattern(size: 10_000, seed: 5))
        route.failStatus = 503
        route.failTimes = 1_000
        route.retryAfterSeconds = 99_999_999_999_999_999
        http.serve(path: "/busy.bin", route: route)
        _ = try await client.addDownload(AddDownloadRequest(id: "busy", uri: http.url("/busy.bin")))
        let failed = try await waitFor("busy", .failed)
        XCTAssertTrue(failed.error?.message.contains("503") == true, "\(failed.error?.message ?? "")")
        try await assertRestarts()
    }

    /// A bundle may declare up to 4 PiB (BundleRules), but no download above 1 PiB ever
    /// starts: it fails naming its size and the limit instead of waiting for space forever.
    func testABundleDeclaringMoreThanAPetabyteFailsInsteadOfWaiting() async throws {
        let files = (0..<4).map { BundleFileSpec(url: http.url("/p\($0)"), path: "p\($0)", size: 1 << 50) }
        _ = try await client.addDownload(AddDownloadRequest(id: "peta", uri: "", files: files))
        let failed = try await waitFor("peta", .failed, timeout: 10)
        XCTAssertEqual(failed.error?.kind, .validation)
        let message = failed.error?.message ?? ""
        XCTAssertTrue(message.contains("files' sizes add up to 4503599627370496 bytes") && message.contains("limit of 1125899906842624 bytes"), message)
        XCTAssertTrue(http.requests(for: "/p0").isEmpty, "nothing is fetched")
        try await assertRestarts()
        let after = try await client.getDownload(id: "peta")
        XCTAssertEqual(after.state, .failed, "and stays FAILED after a restart")
    }

    func testBundleSizesPastTheLimitAreRefusedNamingTheField() async throws {
        let huge: Int64 = 5_000_000_000_000_000_000
        let error = await assertFails(.invalidArgument) {
            try await client.addDownload(AddDownloadRequest(id: "big", uri: "", files: [
                BundleFileSpec(url: http.url("/a"), path: "a", size: huge), BundleFileSpec(url: http.url("/b"), path: "b", size: huge),
            ]))
        }
        XCTAssertTrue(error?.message.contains("files[0]") == true && error?.message.contains("size 5000000000000000000") == true,
                      "\(error?.message ?? "")")
        await assertFails(.notFound) { try await client.getDownload(id: "big") }
    }
}
