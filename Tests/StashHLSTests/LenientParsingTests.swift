import StashCore
import XCTest
@testable import StashHLS

/// What RFC 8216 forbids but players play: read as ffmpeg and hls.js read it, with a warning
/// for each line ignored and each value filled in. (PlaylistCorpusTests checks the same shapes
/// against ffprobe.)
final class LenientParsingTests: XCTestCase {
    let mediaBase = "https://cdn.example.com/show/ep1/v/index.m3u8"

    func media(_ text: String) throws -> MediaPlaylist { try parseMedia(text, baseURL: mediaBase) }

    func url(_ name: String) -> String { "https://cdn.example.com/show/ep1/v/" + name }

    // MARK: - EXT-X-TARGETDURATION

    func testAMissingTargetDurationIsTheLongestSegmentRoundedUp() throws {
        let playlist = try media("#EXTM3U\n#EXTINF:9.5,\na.ts\n#EXTINF:9.01,\nb.ts\n#EXTINF:4,\nc.ts\n#EXT-X-ENDLIST\n")
        XCTAssertEqual(playlist.targetDuration, 10)
        XCTAssertEqual(playlist.segments.count, 3)
        XCTAssertEqual(playlist.warnings, ["the media playlist has no EXT-X-TARGETDURATION; 10 s, its longest segment rounded up, is used"])
        let plan = try PackagePlan.make(masterURI: mediaBase, selection: nil, media: [mediaBase: playlist])
        let local = try XCTUnwrap(plan.playlists.first { $0.path == "video/index.m3u8" }?.text)
        XCTAssertTrue(local.contains("#EXT-X-TARGETDURATION:10\n"), "the package's playlist has the filled value:\n\(local)")

        XCTAssertEqual(try media("#EXTM3U\n#EXT-X-ENDLIST\n").targetDuration, 0, "nothing to fill it from; planning refuses the empty playlist")
    }

    /// The values these leniencies read are hostile too: Int64's ends, 0 and -1 in the
    /// media sequence, and the largest EXTINF, with no target duration to fill from.
    func testExtremeValuesInTheLenientPathsAreReadOrRefusedByName() throws {
        func sequence(_ value: String) throws -> MediaPlaylist {
            try media("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:\(value)\n#EXTINF:5,\na.ts\n#EXTINF:5,\nb.ts\n#EXT-X-ENDLIST\n")
        }
        for negative in ["-9223372036854775808", "-1"] {
            XCTAssertEqual(try sequence(negative).mediaSequence, 0, negative)
            XCTAssertTrue(try sequence(negative).warnings.contains { $0.contains("'\(negative)' is negative") }, negative)
        }
        XCTAssertEqual(try sequence("0").mediaSequence, 0)
        XCTAssertEqual(try sequence("9223372036854775807").mediaSequence, 9_223_372_036_854_775_807)
        for outside in ["-99999999999999999999", "99999999999999999999"] {
            assertRefused("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:\(outside)\n#EXTINF:5,\na.ts\n", .invalidAttribute, line: 2, mentions: "'\(outside)'")
        }
        assertRefused("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:18446744073709551615\n#EXTINF:5,\na.ts\n#EXTINF:5,\nb.ts\n",
                      .invalidAttribute, line: 6, mentions: "18446744073709551615 plus 1 segments exceeds 2^64")

        func longest(_ duration: String) throws -> MediaPlaylist {
            try media("#EXTM3U\n#EXTINF:\(duration),\na.ts\n#EXTINF:1,\nb.ts\n#EXT-X-ENDLIST\n")
        }
        XCTAssertEqual(try longest("86400").targetDuration, 86_400, "the longest allowed segment fills it")
        XCTAssertEqual(try longest("0").targetDuration, 1, "the other segment's 1 s")
        assertRefused("#EXTM3U\n#EXTINF:86400.5,\na.ts\n", .invalidDuration, line: 2, mentions: "limit of 86400 s")
        assertRefused("#EXTM3U\n#EXTINF:9223372036854775807,\na.ts\n", .invalidDuration, line: 2, mentions: "limit of 86400 s")
        assertRefused("#EXTM3U\n#EXTINF:1e308,\na.ts\n", .invalidDuration, line: 2, mentions: "'1e308'")
        assertRefused("#EXTM3U\n#EXTINF:-1,\na.ts\n", .invalidDuration, line: 2, mentions: "negative")
    }

    func testADecimalTargetDurationIsRoundedUp() throws {
        for (text, seconds) in [("6.006", UInt64(7)), ("10.0", 10), (" 4.5", 5)] {
            let playlist = try media("#EXTM3U\n#EXT-X-TARGETDURATION:\(text)\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n")
            XCTAssertEqual(playlist.targetDuration, seconds, text)
            XCTAssertEqual(playlist.warnings, ["line 2: EXT-X-TARGETDURATION '\(text.trimmingCharacters(in: .whitespaces))' is not a whole number; \(seconds) s is used"])
        }
        XCTAssertEqual(try media("#EXTM3U\n#EXT-X-TARGETDURATION: 8\n#EXTINF:4,\na.ts\n").warnings, [], "spaces alone are no news")
        assertRefused("#EXTM3U\n#EXT-X-TARGETDURATION:-4.5\n", .invalidDuration, line: 2, mentions: "'-4.5'")
        assertRefused("#EXTM3U\n#EXT-X-TARGETDURATION:1e3\n", .invalidDuration, line: 2, mentions: "'1e3'")
        assertRefused("#EXTM3U\n#EXT-X-TARGETDURATION:86400.5\n", .invalidDuration, line: 2, mentions: "limit of 86400 s")
    }

    // MARK: - BANDWIDTH

    /// 720p at 3 Mb/s, 1080p with no BANDWIDTH, 360p at 1 Mb/s.
    let mixed = """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1280x720
        720.m3u8
        #EXT-X-STREAM-INF:RESOLUTION=1920x1080,AVERAGE-BANDWIDTH=5000000
        1080.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1000000,RESOLUTION=640x360
        360.m3u8
        """

    func chosen(_ text: String, _ options: HLSOptions) throws -> String {
        String(try parseMaster(text).select(options).variant.uri.split(separator: "/").last ?? "")
    }

    func testAnUnknownBandwidthRanksAfterEveryKnownOne() throws {
        let master = try parseMaster(mixed)
        XCTAssertEqual(master.variants.map(\.bandwidth), [3_000_000, nil, 1_000_000])
        XCTAssertEqual(master.warnings, [
            "line 4: EXT-X-STREAM-INF has no BANDWIDTH; the variant's bandwidth is unknown, and it is chosen only when no variant with a BANDWIDTH is left",
        ])
        XCTAssertEqual(try chosen(mixed, HLSOptions()), "720.m3u8", "auto takes the highest known, not the unknown")
        XCTAssertEqual(try chosen(mixed, HLSOptions(quality: .high)), "720.m3u8")
        XCTAssertEqual(try chosen(mixed, HLSOptions(quality: .low)), "360.m3u8")
        XCTAssertEqual(try chosen(mixed, HLSOptions(bandwidth: 2_000_000)), "360.m3u8")
        XCTAssertEqual(try chosen(mixed, HLSOptions(bandwidth: 10)), "360.m3u8", "the lowest known when all are above")
        XCTAssertEqual(try chosen(mixed, HLSOptions(maxHeight: 480)), "360.m3u8")
    }

    func testWithoutAnyBandwidthTheFirstListedIsChosen() throws {
        let none = "#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1280x720\n720.m3u8\n#EXT-X-STREAM-INF:RESOLUTION=640x360\n360.m3u8\n"
        for options in [HLSOptions(), HLSOptions(quality: .low), HLSOptions(quality: .high), HLSOptions(bandwidth: 1)] {
            XCTAssertEqual(try chosen(none, options), "720.m3u8", "\(options)")
        }
        XCTAssertEqual(try chosen(none, HLSOptions(maxHeight: 400)), "360.m3u8")
        XCTAssertEqual(try chosen(mixed, HLSOptions(maxHeight: 1080)), "720.m3u8")
    }

    func testAnUnknownBandwidthIsShownAsUnknownAndThePackageStillNamesOne() throws {
        let master = try parseMaster(mixed)
        let playlist = try parseMedia("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\na.ts\n#EXT-X-ENDLIST\n", baseURL: master.variants[1].uri)
        let info = ManifestInfo(master: master, media: [master.variants[1].uri: playlist])
        XCTAssertEqual(info.variants.map(\.bandwidth), [3_000_000, nil, 1_000_000])
        XCTAssertEqual(info.variants[1].estimatedBytes, 6_250_000, "AVERAGE-BANDWIDTH x 10 s / 8")

        // The package's master must have a BANDWIDTH: the source's average when it has one, else 0.
        let selection = RenditionSelection(variant: master.variants[1])
        let plan = try PackagePlan.make(masterURI: base, selection: selection, media: [master.variants[1].uri: playlist])
        XCTAssertTrue(plan.playlists[0].text.contains("#EXT-X-STREAM-INF:BANDWIDTH=5000000,AVERAGE-BANDWIDTH=5000000,RESOLUTION=1920x1080\n"),
                      plan.playlists[0].text)
        XCTAssertEqual(plan.estimatedBytes, 6_250_000)
        let bare = try PackagePlan.make(masterURI: base, selection: RenditionSelection(variant: Variant(uri: master.variants[1].uri, bandwidth: nil)),
                                        media: [master.variants[1].uri: playlist])
        XCTAssertTrue(bare.playlists[0].text.contains("#EXT-X-STREAM-INF:BANDWIDTH=0\n"), bare.playlists[0].text)
        XCTAssertNil(bare.estimatedBytes, "nothing to estimate from")
    }

    // MARK: - EXT-X-MEDIA-SEQUENCE

    func testANegativeMediaSequenceNumbersTheSegmentsFromZero() throws {
        let clear = try media("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-MEDIA-SEQUENCE:-3\n#EXTINF:5,\na.ts\n#EXTINF:5,\nb.ts\n#EXT-X-ENDLIST\n")
        XCTAssertEqual(clear.mediaSequence, 0)
        XCTAssertEqual(clear.segments.map(\.sequenceNumber), [0, 1])
        XCTAssertEqual(clear.warnings, ["line 3: EXT-X-MEDIA-SEQUENCE '-3' is negative; the segments are numbered from 0"])

        // Explicit IVs (the attribute or the skd:// URI's) do not depend on the number.
        let iv = "A0A1A2A3A4A5A6A7A8A9AAABACADAEAF"
        for key in ["METHOD=AES-128,URI=\"k\",IV=0x\(iv)", "METHOD=AES-128,URI=\"skd://00112233445566778899aabbccddeeff:0x\(iv)\""] {
            let encrypted = try media("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-MEDIA-SEQUENCE:-3\n#EXT-X-KEY:\(key)\n#EXTINF:5,\na.ts\n")
            XCTAssertEqual(encrypted.segments[0].key?.iv?.count, 16, key)
        }
    }

    func testANegativeMediaSequenceWithAnImplicitIVIsRefused() {
        assertRefused("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-MEDIA-SEQUENCE:-3\n#EXTINF:5,\na.ts\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n#EXTINF:5,\nb.ts\n",
                      .invalidIV, line: 8, mentions: "EXT-X-KEY of line 6, which has no IV")
        assertRefused("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:-3\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n#EXTINF:5,\na.ts\n",
                      .invalidIV, line: 5, mentions: "EXT-X-MEDIA-SEQUENCE is '-3' (line 2)")
        assertRefused("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:-\n", .invalidAttribute, line: 2, mentions: "'-' must be a decimal integer")
        assertRefused("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:--3\n", .invalidAttribute, line: 2, mentions: "'--3'")
        assertRefused("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:-123456789012345678901\n", .invalidAttribute, line: 2, mentions: "decimal integer")
    }

    // MARK: - Stray lines

    func testStrayLinesInAMediaPlaylistAreSkippedAsPlayersSkipThem() throws {
        let playlist = try media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:5
            stray-before.ts
            #EXTINF:4.0,
            s0.ts
            stray.ts
            #EXTINF:3.0,
            #EXTINF:4.5,
            s1.ts
            #EXTINF:5.0,
            #EXT-X-ENDLIST
            """)
        XCTAssertEqual(playlist.segments.map(\.uri), [url("s0.ts"), url("s1.ts")])
        XCTAssertEqual(playlist.segments.map(\.duration), [4.0, 4.5])
        XCTAssertEqual(playlist.segments.map(\.sequenceNumber), [0, 1], "a skipped line takes no sequence number")
        XCTAssertEqual(playlist.warnings, [
            "line 3: 'stray-before.ts' is not preceded by EXTINF; it is ignored, as players ignore it",
            "line 6: 'stray.ts' is not preceded by EXTINF; it is ignored, as players ignore it",
            "line 7: EXTINF has no segment URI after it; the EXTINF of line 8 replaces it",
            "line 10: EXTINF has no segment URI after it; it is ignored, as players ignore it",
        ])
    }

    func testStrayLinesInAMasterAreSkippedAsPlayersSkipThem() throws {
        let master = try parseMaster("""
            #EXTM3U
            orphan.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=500000
            #EXT-X-STREAM-INF:BANDWIDTH=900000
            360.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000
            """)
        XCTAssertEqual(master.variants.map(\.bandwidth), [900_000])
        XCTAssertEqual(master.warnings, [
            "line 2: 'orphan.m3u8' is not preceded by EXT-X-STREAM-INF; it is ignored, as players ignore it",
            "line 3: EXT-X-STREAM-INF has no URI line before the next EXT-X-STREAM-INF (line 4); it is ignored",
            "line 6: EXT-X-STREAM-INF has no URI line after it; it is ignored",
        ])
    }

    func testWarningsAreBoundedPerPlaylist() throws {
        let strays = (0..<1000).map { "stray\($0).ts\n" }.joined()
        let playlist = try media("#EXTM3U\n#EXT-X-TARGETDURATION:1\n" + strays + "#EXTINF:1,\na.ts\n")
        XCTAssertEqual(playlist.segments.count, 1)
        XCTAssertEqual(playlist.warnings.count, PlaylistWarnings.perPlaylist + 1)
        XCTAssertEqual(playlist.warnings.last, "980 more warning(s) not shown")
    }

    // MARK: - EXTINF and the header

    func testEXTINFTakesTheNumberBeforeIPTVAttributes() throws {
        let playlist = try media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXTINF:10.0 tvg-id="news.1" tvg-name="News, HD" group-title="News",News HD
            a.ts
            #EXTINF:7.5\ttvg-id="x",Title
            b.ts
            #EXTINF: 4.0 ,
            c.ts
            #EXTINF:2
            d.ts
            """)
        XCTAssertEqual(playlist.segments.map(\.duration), [10, 7.5, 4, 2])
        XCTAssertEqual(playlist.warnings, [])
        assertRefused("#EXTM3U\n#EXTINF:-1 tvg-id=\"x\",Live\na.ts\n", .invalidDuration, line: 2, mentions: "'-1' is negative")
        assertRefused("#EXTM3U\n#EXTINF:tvg-id=\"x\",Live\na.ts\n", .invalidDuration, line: 2, mentions: "'tvg-id=\"x\"'")
    }

    func testTheHeaderMayHaveSpacesAfterIt() throws {
        XCTAssertEqual(try media("#EXTM3U  \r\n#EXT-X-TARGETDURATION:1\r\n#EXTINF:1,\r\na.ts\r\n").segments.count, 1)
        XCTAssertEqual(try media("\u{FEFF}#EXTM3U\t\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\na.ts\n").segments.count, 1)
        assertRefused("#EXTM3U x-tvg-url=\"guide.xml\"\n", .missingHeader, line: 1, mentions: "x-tvg-url")
    }
}
