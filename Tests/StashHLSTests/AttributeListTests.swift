import XCTest
@testable import StashHLS

/// Attribute lists (RFC 8216 section 4.2) as packagers write them: spaces after the commas are
/// trimmed, as every major player trims them; what is not a list stays refused.
final class AttributeListTests: XCTestCase {
    func testSpacesAfterCommasAreTrimmed() throws {
        let spaced = try parseMaster("""
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO, GROUP-ID="aud", NAME="English, main", LANGUAGE="en", DEFAULT=YES, URI="a/en.m3u8"
            #EXT-X-STREAM-INF:PROGRAM-ID=1, BANDWIDTH=800000, RESOLUTION=640x360, CODECS="avc1.42c01e, mp4a.40.2", AUDIO="aud"
            low.m3u8
            """)
        let tight = try parseMaster("""
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English, main",LANGUAGE="en",DEFAULT=YES,URI="a/en.m3u8"
            #EXT-X-STREAM-INF:PROGRAM-ID=1,BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.42c01e,mp4a.40.2",AUDIO="aud"
            low.m3u8
            """)
        XCTAssertEqual(spaced, tight)
        XCTAssertEqual(spaced.variants[0].codecs, ["avc1.42c01e", "mp4a.40.2"])
        XCTAssertEqual(spaced.renditions[0].name, "English, main", "a quoted string keeps its comma and space")

        let key = "URI=\"k.bin\",IV=0xA0A1A2A3A4A5A6A7A8A9AAABACADAEAF"
        let expected = try parseMedia("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,\(key)\n#EXTINF:4,\na.ts\n").segments
        for written in ["METHOD=AES-128, URI=\"k.bin\", IV=0xA0A1A2A3A4A5A6A7A8A9AAABACADAEAF",
                        " METHOD=AES-128 ,URI=\"k.bin\" , IV=0xA0A1A2A3A4A5A6A7A8A9AAABACADAEAF,",
                        "METHOD=AES-128\tURI=\"k.bin\",,IV=0xA0A1A2A3A4A5A6A7A8A9AAABACADAEAF",
                        "METHOD=AES-128 URI=\"k.bin\" IV=0xA0A1A2A3A4A5A6A7A8A9AAABACADAEAF"] {
            let playlist = try parseMedia("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:\(written)\n#EXTINF:4,\na.ts\n")
            XCTAssertEqual(playlist.segments, expected, written)
        }
    }

    func testAttributeListsThatAreNotListsAreStillRefused() {
        let variant = { (attributes: String) in "#EXTM3U\n#EXT-X-STREAM-INF:\(attributes)\na.m3u8\n" }
        assertRefused(variant("BANDWIDTH=1 junk"), .invalidAttribute, line: 2, mentions: "attribute 'junk' has no '='")
        assertRefused(variant("BANDWIDTH=1,CODECS=\"a\"B=2"), .invalidAttribute, line: 2, mentions: "followed by 'B=2'")
        assertRefused(variant("BANDWIDTH=1, CODECS=\"avc1"), .invalidAttribute, line: 2, mentions: "unterminated")
        assertRefused(variant("BANDWIDTH=1, bandwidth=2"), .invalidAttribute, line: 2, mentions: "name 'bandwidth'")
        assertRefused(variant("BANDWIDTH=1, BANDWIDTH=2"), .invalidAttribute, line: 2, mentions: "twice")
        assertRefused(variant("BANDWIDTH =1"), .invalidAttribute, line: 2, mentions: "'BANDWIDTH' has no '='")
    }
}
