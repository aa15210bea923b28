import XCTest
@testable import StashHLS

final class MasterPlaylistTests: XCTestCase {
    let text = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,URI="audio/en.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO,URI="subs/en.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="es",NAME="Español",AUTOSELECT=YES,FORCED=YES,URI="subs/es.m3u8"
        #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1"
        #EXT-X-STREAM-INF:BANDWIDTH=800000,AVERAGE-BANDWIDTH=600000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",FRAME-RATE=25.000,AUDIO="aud",SUBTITLES="subs"
        low/index.m3u8
        # a comment between variants
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,CODECS="avc1.4d401f,mp4a.40.2",FRAME-RATE=29.97,AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
        mid/index.m3u8

        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=90000,URI="iframes.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080,CODECS="avc1.640028,mp4a.40.2",AUDIO="aud",SUBTITLES="subs",HDCP-LEVEL=TYPE-0
        https://other.example.net/high/index.m3u8?token=abc
        #EXT-X-FUTURE-TAG:SOMETHING=1

        """

    func testVariants() throws {
        let master = try parseMaster(text)
        XCTAssertTrue(master.independentSegments)
        XCTAssertEqual(master.variants, [
            Variant(uri: "https://cdn.example.com/show/ep1/low/index.m3u8", bandwidth: 800_000, averageBandwidth: 600_000,
                    resolution: Resolution(width: 640, height: 360), codecs: ["avc1.4d401e", "mp4a.40.2"], frameRate: 25,
                    audioGroup: "aud", subtitlesGroup: "subs"),
            Variant(uri: "https://cdn.example.com/show/ep1/mid/index.m3u8", bandwidth: 2_000_000,
                    resolution: Resolution(width: 1280, height: 720), codecs: ["avc1.4d401f", "mp4a.40.2"], frameRate: 29.97,
                    audioGroup: "aud", subtitlesGroup: "subs"),
            Variant(uri: "https://other.example.net/high/index.m3u8?token=abc", bandwidth: 5_000_000,
                    resolution: Resolution(width: 1920, height: 1080), codecs: ["avc1.640028", "mp4a.40.2"],
                    audioGroup: "aud", subtitlesGroup: "subs"),
        ])
    }

    func testRenditions() throws {
        let master = try parseMaster(text)
        XCTAssertEqual(master.renditions, [
            Rendition(type: .audio, groupID: "aud", language: "en", name: "English", isDefault: true, autoselect: true,
                      uri: "https://cdn.example.com/show/ep1/audio/en.m3u8"),
            Rendition(type: .subtitles, groupID: "subs", language: "en", name: "English", isDefault: true, autoselect: true,
                      forced: false, uri: "https://cdn.example.com/show/ep1/subs/en.m3u8"),
            Rendition(type: .subtitles, groupID: "subs", language: "es", name: "Español", autoselect: true, forced: true,
                      uri: "https://cdn.example.com/show/ep1/subs/es.m3u8"),
            Rendition(type: .closedCaptions, groupID: "cc", name: "CC1"),
        ])
    }

    func testParsesFromBytesAndCRLF() throws {
        let crlf = text.replacingOccurrences(of: "\n", with: "\r\n")
        guard case .master(let master) = try Playlist.parse(Array(crlf.utf8), baseURL: base) else {
            return XCTFail("expected a master playlist")
        }
        XCTAssertEqual(master, try parseMaster(text))
    }

    /// Players play both; the variant's bandwidth is unknown, and a STREAM-INF without a URI
    /// names nothing to play (LenientParsingTests has more).
    func testVariantWithoutBandwidthOrURILineIsReadWithAWarning() throws {
        let unknown = try parseMaster("#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\na.m3u8\n")
        XCTAssertEqual(unknown.variants.map(\.bandwidth), [nil])
        XCTAssertEqual(unknown.warnings.count, 1)
        XCTAssertTrue(unknown.warnings[0].hasPrefix("line 2: EXT-X-STREAM-INF has no BANDWIDTH"), unknown.warnings[0])
        let dangling = try parseMaster("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n")
        XCTAssertEqual(dangling.variants, [])
        XCTAssertEqual(dangling.warnings, ["line 2: EXT-X-STREAM-INF has no URI line after it; it is ignored"])
    }

    func testSubtitlesWithoutURIAreRefused() {
        assertRefused("#EXTM3U\n#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"s\",NAME=\"x\"\n", .invalidAttribute, line: 2, mentions: "URI")
    }

    func testMalformedAttributesAreRefused() {
        assertRefused("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=12a\na.m3u8\n", .invalidAttribute, line: 2, mentions: "'12a'")
        assertRefused("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=1280*720\na.m3u8\n", .invalidAttribute, line: 2,
                      mentions: "'1280*720'")
        assertRefused("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"avc1\na.m3u8\n", .invalidAttribute, line: 2,
                      mentions: "unterminated")
        assertRefused("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,BANDWIDTH=2\na.m3u8\n", .invalidAttribute, line: 2, mentions: "twice")
        assertRefused("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",DEFAULT=MAYBE\n", .invalidAttribute, line: 2,
                      mentions: "'MAYBE'")
    }

    func testMixedPlaylistIsRefused() {
        assertRefused("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-STREAM-INF:BANDWIDTH=1\na.m3u8\n", .mixedPlaylist, line: 3,
                      mentions: "#EXT-X-TARGETDURATION")
    }
}
