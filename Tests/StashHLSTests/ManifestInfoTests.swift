import StashCore
import XCTest
@testable import StashHLS

final class ManifestInfoTests: XCTestCase {
    let master = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="en",NAME="English",DEFAULT=YES,URI="a/en.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="fr",NAME="Français",FORCED=YES,URI="s/fr.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=800000,AVERAGE-BANDWIDTH=600000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",FRAME-RATE=25,AUDIO="aud"
        enc.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720
        ranges.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=4000000
        missing.m3u8
        """
    let encrypted = """
        #EXTM3U
        #EXT-X-TARGETDURATION:10
        #EXTINF:10,
        clear.ts
        #EXT-X-KEY:METHOD=AES-128,URI="k1"
        #EXTINF:10,
        a.ts
        #EXT-X-KEY:METHOD=NONE
        #EXTINF:5,
        b.ts
        #EXT-X-KEY:METHOD=AES-128,URI="k2"
        #EXTINF:5,
        c.ts
        #EXT-X-ENDLIST
        """
    let ranges = """
        #EXTM3U
        #EXT-X-TARGETDURATION:10
        #EXT-X-MAP:URI="all.mp4",BYTERANGE="700@0"
        #EXTINF:10,
        #EXT-X-BYTERANGE:5000@700
        all.mp4
        #EXTINF:10,
        #EXT-X-BYTERANGE:3000
        all.mp4
        #EXTINF:10,
        #EXT-X-BYTERANGE:2000
        all.mp4
        #EXT-X-ENDLIST
        """

    func uri(_ name: String) -> String { "https://cdn.example.com/show/ep1/\(name)" }

    func testVariantsFromMasterAndMediaPlaylists() throws {
        let media = [uri("enc.m3u8"): try parseMedia(encrypted, baseURL: uri("enc.m3u8")),
                     uri("ranges.m3u8"): try parseMedia(ranges, baseURL: uri("ranges.m3u8"))]
        let info = ManifestInfo(master: try parseMaster(master), media: media)
        XCTAssertEqual(info.variants.count, 3)
        XCTAssertEqual(info.duration, 30)

        let enc = info.variants[0]
        XCTAssertEqual(enc.encryption, ["NONE", "AES-128"])
        XCTAssertEqual(enc.duration, 30)
        XCTAssertFalse(enc.sizeIsExact)
        XCTAssertEqual(enc.estimatedBytes, 600_000 * 30 / 8, "AVERAGE-BANDWIDTH preferred")
        XCTAssertEqual(enc.codecs, ["avc1.4d401e", "mp4a.40.2"])
        XCTAssertEqual(enc.height, 360)
        XCTAssertEqual(enc.frameRate, 25)

        let exact = info.variants[1]
        XCTAssertEqual(exact.encryption, ["NONE"])
        XCTAssertTrue(exact.sizeIsExact)
        XCTAssertEqual(exact.estimatedBytes, 700 + 5000 + 3000 + 2000)

        // Not fetched: as long as the others, priced by BANDWIDTH.
        let missing = info.variants[2]
        XCTAssertEqual(missing.encryption, [])
        XCTAssertEqual(missing.duration, 30)
        XCTAssertEqual(missing.estimatedBytes, 4_000_000 * 30 / 8)
        XCTAssertFalse(missing.sizeIsExact)

        XCTAssertEqual(info.audio, [ManifestInfo.RenditionInfo(groupID: "aud", language: "en", name: "English", isDefault: true,
                                                               uri: uri("a/en.m3u8"))])
        XCTAssertEqual(info.subtitles, [ManifestInfo.RenditionInfo(groupID: "subs", language: "fr", name: "Français", forced: true,
                                                                   uri: uri("s/fr.m3u8"))])
    }

    func testNothingFetchedLeavesZeros() throws {
        let info = ManifestInfo(master: try parseMaster(master), media: [:])
        XCTAssertEqual(info.variants.map(\.estimatedBytes), [0, 0, 0])
        XCTAssertEqual(info.duration, 0)
    }

    func testMediaPlaylistURLGivesOneVariant() throws {
        let info = ManifestInfo(master: nil, media: [uri("ranges.m3u8"): try parseMedia(ranges)])
        XCTAssertEqual(info.variants.count, 1)
        let variant = info.variants[0]
        XCTAssertEqual(variant.uri, uri("ranges.m3u8"))
        XCTAssertEqual(variant.estimatedBytes, 10_700)
        XCTAssertTrue(variant.sizeIsExact)
        XCTAssertEqual(variant.bandwidth, 4000, "the 5000-byte 10 s segment is the peak")
        XCTAssertEqual(variant.averageBandwidth, 2667, "10 000 bytes of segments over 30 s, rounded up")
        XCTAssertEqual(info.duration, 30)

        let clear = ManifestInfo(master: nil, media: [uri("enc.m3u8"): try parseMedia(encrypted)])
        XCTAssertNil(clear.variants[0].bandwidth, "unknown, not 0 b/s: no segment has a size")
        XCTAssertEqual(clear.variants[0].estimatedBytes, 0)
    }
    func testWarningsNameTheirPlaylistAndALivePlaylist() throws {
        let master = try parseMaster("""
            #EXTM3U
            #EXT-X-STREAM-INF:RESOLUTION=640x360
            low.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000
            live.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=3000000
            low.m3u8
            """)
        let low = try parseMedia("#EXTM3U\n#EXTINF:10,\na.ts\n#EXT-X-ENDLIST\n", baseURL: uri("low.m3u8"))
        let live = try parseMedia("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\na.ts\n", baseURL: uri("live.m3u8"))
        let info = ManifestInfo(master: master, media: [uri("low.m3u8"): low, uri("live.m3u8"): live])
        XCTAssertEqual(info.warnings, [
            "line 2: EXT-X-STREAM-INF has no BANDWIDTH; the variant's bandwidth is unknown, and it is chosen only when no variant with a BANDWIDTH is left",
            uri("low.m3u8") + ": the media playlist has no EXT-X-TARGETDURATION; 10 s, its longest segment rounded up, is used",
            uri("live.m3u8") + ": the media playlist has no EXT-X-ENDLIST: it is live, and stash downloads only VOD",
        ], "the master's own lines first, then each media playlist once, named by its URI")

        let alone = ManifestInfo(master: nil, media: [uri("live.m3u8"): live])
        XCTAssertEqual(alone.warnings, ["the media playlist has no EXT-X-ENDLIST: it is live, and stash downloads only VOD"],
                       "the playlist asked for needs no name")
        XCTAssertEqual(ManifestInfo(master: nil, media: [uri("ranges.m3u8"): try parseMedia(ranges)]).warnings, [])
    }

    func testWarningsAreBoundedPerPlan() throws {
        let variants = (0..<200).map { "#EXT-X-STREAM-INF:BANDWIDTH=\($0 + 1)\nv\($0).m3u8\n" }.joined()
        let master = try parseMaster("#EXTM3U\n" + variants)
        var media: [String: MediaPlaylist] = [:]
        for variant in master.variants {
            media[variant.uri] = try parseMedia("#EXTM3U\nstray.ts\n#EXTINF:1,\na.ts\n#EXT-X-ENDLIST\n", baseURL: variant.uri)
        }
        let info = ManifestInfo(master: master, media: media)
        XCTAssertEqual(info.warnings.count, PlaylistWarnings.perPlan + 1)
        XCTAssertEqual(info.warnings.last, "300 more warning(s) not shown", "two warnings for each of 200 playlists, 100 shown")
    }

    // MARK: - A time range

    func summaries(start: Double?, end: Double?) throws -> [String: MediaSummary] {
        [uri("enc.m3u8"): MediaSummary(try parseMedia(encrypted, baseURL: uri("enc.m3u8")), start: start, end: end),
         uri("ranges.m3u8"): MediaSummary(try parseMedia(ranges, baseURL: uri("ranges.m3u8")), start: start, end: end)]
    }

    func testARangeSizesItsSegments() throws {
        // [10, 20) is the second 10 s segment of each playlist.
        let info = try ManifestInfo(master: try parseMaster(master), summaries: try summaries(start: 10, end: 20), start: 10, end: 20)
        XCTAssertEqual(info.duration, 30, "the stream's duration")
        XCTAssertEqual(info.start, 10)
        XCTAssertEqual(info.end, 20)
        XCTAssertEqual(info.variants[0].estimatedBytes, 600_000 * 10 / 8, "AVERAGE-BANDWIDTH x the 10 s kept")
        XCTAssertEqual(info.variants[1].estimatedBytes, 700 + 3000, "exact: the segment and its init section")
        XCTAssertTrue(info.variants[1].sizeIsExact)
        XCTAssertEqual(info.variants[2].estimatedBytes, 4_000_000 * 10 / 8, "not read: priced for the range's length")
        XCTAssertEqual(info.variants.map(\.duration), [30, 30, 30])
        XCTAssertEqual(info.warnings, [])

        // Inside one segment: that segment, whole.
        let inside = try ManifestInfo(master: try parseMaster(master), summaries: try summaries(start: 12, end: 13), start: 12, end: 13)
        XCTAssertEqual(inside.variants[1].estimatedBytes, 700 + 3000)
        XCTAssertEqual(inside.variants[2].estimatedBytes, 4_000_000 / 8)
    }

    func testAnEndPastTheStreamIsClampedWithAWarning() throws {
        let info = try ManifestInfo(master: try parseMaster(master), summaries: try summaries(start: 20, end: 700), start: 20, end: 700)
        XCTAssertEqual(info.end, 30)
        XCTAssertEqual(info.variants[1].estimatedBytes, 700 + 2000)
        XCTAssertEqual(info.warnings, ["hls.end 700 is past the end of the stream, which lasts 30 s: the range ends there"])
    }

    func testARangeOutsideTheStreamIsRefused() throws {
        for (start, end) in [(30, nil), (45, 60), (nil, -3), (Double.nan, nil)] as [(Double?, Double?)] {
            XCTAssertThrowsError(try ManifestInfo(master: try parseMaster(master), summaries: try summaries(start: start, end: end),
                                                  start: start, end: end)) { error in
                XCTAssertEqual((error as? HLSError)?.code, .outOfRange)
                XCTAssertTrue((error as? HLSError)?.message.contains("lasts 30 s") ?? false, "\(error)")
            }
        }
        let media = [uri("ranges.m3u8"): MediaSummary(try parseMedia(ranges), start: 5, end: nil)]
        let alone = try ManifestInfo(master: nil, summaries: media, start: 5, end: nil)
        XCTAssertEqual(alone.variants[0].estimatedBytes, 10_700, "from 5 s: every segment")
        XCTAssertEqual(alone.variants[0].averageBandwidth, 2667, "the variant's own rates, of the whole playlist")
        XCTAssertEqual(alone.end, 30)
    }
}
