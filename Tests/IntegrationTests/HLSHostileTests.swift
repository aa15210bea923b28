import Foundation
import StashClient
import StashTestSupport
import XCTest

/// Playlists and keys a hostile or broken server can send: each is refused with an error
/// that names the problem, within the limits, and nothing is kept.
final class HLSHostileTests: DaemonTestCase {
    /// Fewer retries, so a segment that keeps failing ends the download quickly.
    override var fixtureConfig: [(key: String, value: String)] {
        super.fixtureConfig + [(key: "retry-max-attempts", value: "2")]
    }

    private func serveText(_ path: String, _ text: String) {
        http.serve(path: path, body: Array(text.utf8))
    }

    private func media(_ lines: String, endList: Bool = true) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n" + lines + (endList ? "#EXT-X-ENDLIST\n" : "")
    }

    /// Adds `path` as an HLS download and waits until it FAILED; returns the error message.
    private func failure(_ id: String, _ path: String, file: StaticString = #filePath, line: UInt = #line) async throws -> String {
        _ = try await client.addDownload(AddDownloadRequest(id: id, uri: http.url(path), hls: HLSOptions()))
        let failed = try await waitFor(id, .failed, file: file, line: line)
        let message = failed.error?.message ?? ""
        XCTAssertEqual(failed.filesTotal, 0, "a refused playlist leaves no segments to fetch: \(message)", file: file, line: line)
        return message
    }

    private func assertMessage(_ message: String, contains expected: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(message.contains(expected), "'\(message)' does not mention '\(expected)'", file: file, line: line)
    }

    func testLivePlaylistIsRefused() async throws {
        serveText("/live.m3u8", media("#EXTINF:2,\ns0.ts\n", endList: false))
        let message = try await failure("live", "/live.m3u8")
        assertMessage(message, contains: "live streams are not supported")
    }

    func testMissingHeaderIsRefused() async throws {
        serveText("/noheader.m3u8", "#EXT-X-TARGETDURATION:2\n#EXTINF:2,\ns0.ts\n#EXT-X-ENDLIST\n")
        let message = try await failure("noheader", "/noheader.m3u8")
        assertMessage(message, contains: "must start with #EXTM3U")
    }

    func testOversizedPlaylistIsRefusedWithoutHoldingIt() async throws {
        let size = 16 * 1024 * 1024 + 1
        var body = Array("#EXTM3U\n#".utf8)
        body += [UInt8](repeating: UInt8(ascii: "x"), count: size - body.count)
        http.serve(path: "/huge.m3u8", body: body)
        let message = try await failure("huge", "/huge.m3u8")
        assertMessage(message, contains: "larger than 16777216 bytes")
    }

    func testTooManySegmentsAreRefused() async throws {
        let segments = String(repeating: "#EXTINF:1,\ns.ts\n", count: 100_001)
        serveText("/many.m3u8", media(segments))
        let message = try await failure("many", "/many.m3u8")
        assertMessage(message, contains: "100000")
    }

    func testAPlanOfManyHugeVariantsReadsOnlyItsByteBudget() async throws {
        // 12 variants of ~8 MB each (long segment names keep the parsing quick): 96 MB of
        // playlists, past the 64 MiB GetManifestInfo reads; the rest are estimated.
        let name = String(repeating: "n", count: 1000)
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for index in 0..<8_000 { text += "#EXTINF:4.000,\n\(name)-\(index).ts\n" }
        text += "#EXT-X-ENDLIST\n"
        let body = Array(text.utf8)
        var master = "#EXTM3U\n"
        for variant in 0..<12 {
            master += "#EXT-X-STREAM-INF:BANDWIDTH=\((variant + 1) * 100_000)\nv\(variant).m3u8\n"
            http.serve(path: "/huge/v\(variant).m3u8", body: body)
        }
        serveText("/huge/master.m3u8", master)

        let info = try await client.manifestInfo(uri: http.url("/huge/master.m3u8"))
        XCTAssertEqual(info.variants.count, 12)
        let read = (0..<12).filter { !http.requests(for: "/huge/v\($0).m3u8").isEmpty }.count
        XCTAssertEqual(read, (64 * 1024 * 1024 + body.count - 1) / body.count, "playlists are read until 64 MiB were read")
        for variant in info.variants {
            XCTAssertEqual(variant.duration, 32_000, accuracy: 0.001, "\(variant.uri): every variant gets the known duration")
            XCTAssertGreaterThan(variant.estimatedBytes, 0, "\(variant.uri) has an estimate")
        }
    }

    func testMasterThatPointsToItselfIsRefused() async throws {
        serveText("/loop.m3u8", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100000\nloop.m3u8\n")
        let message = try await failure("loop", "/loop.m3u8")
        assertMessage(message, contains: "is a master playlist itself")
    }

    func testNonHTTPURIsAnywhereAreRefused() async throws {
        let cases: [(String, String)] = [
            ("segment", media("#EXTINF:2,\nfile:///etc/passwd\n")),
            ("key", media("#EXT-X-KEY:METHOD=AES-128,URI=\"data:text/plain;base64,AAAAAAAAAAAAAAAAAAAAAA==\"\n#EXTINF:2,\ns0.ts\n")),
            ("map", media("#EXT-X-MAP:URI=\"ftp://example.com/init.mp4\"\n#EXTINF:2,\ns0.m4s\n")),
        ]
        for (name, text) in cases {
            serveText("/scheme-\(name).m3u8", text)
            let message = try await failure("scheme-\(name)", "/scheme-\(name).m3u8")
            assertMessage(message, contains: "is not http or https")
        }
        serveText("/rendition.m3u8", """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",LANGUAGE="en",NAME="English",URI="file:///etc/passwd"
            #EXT-X-STREAM-INF:BANDWIDTH=100000,SUBTITLES="s"
            v.m3u8

            """)
        let message = try await failure("scheme-rendition", "/rendition.m3u8")
        assertMessage(message, contains: "is not http or https")
    }

    func testNegativeAndAbsurdDurationsAreRefused() async throws {
        serveText("/negative.m3u8", media("#EXTINF:-2,\ns0.ts\n"))
        assertMessage(try await failure("negative", "/negative.m3u8"), contains: "EXTINF")
        serveText("/absurd.m3u8", media("#EXTINF:999999999,\ns0.ts\n"))
        assertMessage(try await failure("absurd", "/absurd.m3u8"), contains: "EXTINF")
    }

    /// Byte ranges no disk could hold fail at planning, naming the size and the limit, where
    /// they used to leave the download QUEUED for space forever. The wait is bounded: a daemon
    /// that holds it for space fails the test in seconds.
    func testAPackageNoDiskCouldHoldFailsAtPlanningNamingItsSize() async throws {
        http.serve(path: "/s.ts", size: 1_000)
        let cases = [
            // Two ranges whose sum saturates at Int64.max.
            ("saturated", "#EXT-X-BYTERANGE:5000000000000000000@0\n", "9223372036854775807 bytes"),
            // Each range far below Int64's end; the sum just past 1 PiB.
            ("petabyte", "#EXT-X-BYTERANGE:562949953421313@0\n", "1125899906842626 bytes"),
        ]
        for (id, range, size) in cases {
            let segment = "#EXTINF:2,\n" + range + "s.ts\n"
            serveText("/\(id).m3u8", media(segment + segment))
            _ = try await client.addDownload(AddDownloadRequest(id: id, uri: http.url("/\(id).m3u8"), hls: HLSOptions()))
            let failed = try await waitFor(id, .failed, timeout: 10)
            XCTAssertEqual(failed.error?.kind, .validation, id)
            let message = failed.error?.message ?? ""
            assertMessage(message, contains: "playlists' sizes add up to \(size)")
            assertMessage(message, contains: "limit of 1125899906842624 bytes")
            XCTAssertTrue(http.requests(for: "/s.ts").isEmpty, "\(id): no segment is fetched")
        }
    }

    func testKeyThatIsNotSixteenBytesIsRefused() async throws {
        http.serve(path: "/k17.key", body: [UInt8](repeating: 7, count: 17))
        http.serve(path: "/s0.ts", body: [UInt8](repeating: 1, count: 32))
        serveText("/badkey.m3u8", media("#EXT-X-KEY:METHOD=AES-128,URI=\"k17.key\"\n#EXTINF:2,\ns0.ts\n"))
        let message = try await failure("badkey", "/badkey.m3u8")
        assertMessage(message, contains: "is 17 bytes; an AES-128 key is exactly 16")
        let keyFolder = daemon.dataDir + "/keys/badkey"
        XCTAssertFalse(exists(keyFolder), "no key is stored for a refused key")
    }

    func testSegmentThatKeepsFailingFailsTheDownloadNamingIt() async throws {
        http.serve(path: "/ok0.ts", body: TestBody.mpegTS(size: 1000))
        http.serve(path: "/gone1.ts", route: { var route = TestRoute(body: .bytes([])); route.alwaysStatus = 404; return route }())
        serveText("/broken.m3u8", media("#EXTINF:2,\nok0.ts\n#EXTINF:2,\ngone1.ts\n"))
        _ = try await client.addDownload(AddDownloadRequest(id: "broken", uri: http.url("/broken.m3u8")))
        let failed = try await waitFor("broken", .failed)
        let message = failed.error?.message ?? ""
        assertMessage(message, contains: "video/seg00001.ts")
        assertMessage(message, contains: http.url("/gone1.ts"))
        assertMessage(message, contains: "404")
    }

    func testBadOptionsAreRefusedAtAdd() async throws {
        var options = HLSOptions()
        options.segmentConcurrency = 65
        let tooMany = await assertFails(.invalidArgument) {
            try await self.client.addDownload(AddDownloadRequest(uri: self.http.url("/x.m3u8"), hls: options))
        }
        XCTAssertTrue(tooMany?.message.contains("hls.segment_concurrency 65 is outside 1...64") ?? false, "\(String(describing: tooMany))")
        options = HLSOptions(subtitles: ["en", "all"])
        let mixed = await assertFails(.invalidArgument) {
            try await self.client.addDownload(AddDownloadRequest(uri: self.http.url("/x.m3u8"), hls: options))
        }
        XCTAssertTrue(mixed?.message.contains("'all' cannot be combined") ?? false, "\(String(describing: mixed))")
        let files = await assertFails(.invalidArgument) {
            try await self.client.addDownload(AddDownloadRequest(uri: "", files: [BundleFileSpec(url: self.http.url("/a"))], hls: HLSOptions()))
        }
        XCTAssertNotNil(files)
        let list = try await client.listDownloads()
        XCTAssertEqual(list.total, 0, "nothing refused is stored")
    }
}
