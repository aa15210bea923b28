import XCTest
@testable import StashHLS

/// Every hostile or broken input is refused with its own code and a message naming the line.
final class HLSErrorTests: XCTestCase {
    func media(_ body: String) -> String { "#EXTM3U\n#EXT-X-TARGETDURATION:10\n" + body }

    func testOversizedInputIsRefusedBeforeParsing() {
        // Not even a header: the size check must come first.
        let bytes = [UInt8](repeating: 0x41, count: HLSError.maxPlaylistBytes + 1)
        XCTAssertThrowsError(try Playlist.parse(bytes, baseURL: base)) { error in
            let error = error as? HLSError
            XCTAssertEqual(error?.code, .tooLarge)
            XCTAssertNil(error?.line)
            XCTAssertTrue(error?.message.contains("\(HLSError.maxPlaylistBytes)") == true, error?.message ?? "")
        }
    }

    func testInvalidUTF8IsRefused() {
        XCTAssertThrowsError(try Playlist.parse(Array("#EXTM3U\n".utf8) + [0xFF, 0xFE], baseURL: base)) { error in
            XCTAssertEqual((error as? HLSError)?.code, .notUTF8)
        }
    }

    func testMissingHeaderIsRefused() {
        assertRefused("#EXT-X-TARGETDURATION:10\n#EXTINF:1,\na.ts\n", .missingHeader, line: 1, mentions: "#EXT-X-TARGETDURATION:10")
        assertRefused("", .missingHeader, line: 1, mentions: "#EXTM3U")
        assertRefused("<html>not found</html>", .missingHeader, line: 1, mentions: "<html>")
    }

    func testTooManySegmentsIsRefused() {
        var text = media("")
        text.reserveCapacity((HLSError.maxSegments + 1) * 16)
        for index in 0...HLSError.maxSegments { text += "#EXTINF:1,\n\(index).ts\n" }
        // Two header lines, then two lines a segment: the segment over the limit is on this line.
        assertRefused(text, .tooManySegments, line: 2 + 2 * HLSError.maxSegments + 2, mentions: "\(HLSError.maxSegments)")
    }

    func testNonHTTPURIsAreRefusedEverywhere() {
        assertRefused(media("#EXTINF:1,\nfile:///etc/passwd\n"), .invalidURI, line: 4, mentions: "file:///etc/passwd")
        assertRefused(media("#EXT-X-KEY:METHOD=AES-128,URI=\"data:text/plain;base64,AAAA\"\n#EXTINF:1,\na.ts\n"),
                      .invalidURI, line: 3, mentions: "data:text/plain")
        assertRefused(media("#EXT-X-MAP:URI=\"ftp://h/init.mp4\"\n#EXTINF:1,\na.ts\n"), .invalidURI, line: 3, mentions: "ftp://h/init.mp4")
        assertRefused("#EXTM3U\n#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"s\",NAME=\"en\",URI=\"file:///tmp/x.m3u8\"\n",
                      .invalidURI, line: 2, mentions: "file:///tmp/x.m3u8")
        assertRefused("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nskd://fairplay/asset\n", .invalidURI, line: 3, mentions: "skd://")
        assertRefused(media("#EXTINF:1,\nhttp://[bad/a.ts\n"), .invalidURI, line: 4, mentions: "not a valid URI")
        assertRefused(media("#EXTINF:1,\nhttp:///nohost.ts\n"), .invalidURI, line: 4, mentions: "http:///nohost.ts")
        XCTAssertThrowsError(try Playlist.parse("#EXTM3U\n", baseURL: "file:///tmp/master.m3u8")) { error in
            XCTAssertEqual((error as? HLSError)?.code, .invalidURI)
        }
    }

    func testBadDurationsAreRefused() {
        assertRefused(media("#EXTINF:-1,\na.ts\n"), .invalidDuration, line: 3, mentions: "'-1'")
        assertRefused(media("#EXTINF:nan,\na.ts\n"), .invalidDuration, line: 3, mentions: "'nan'")
        assertRefused(media("#EXTINF:inf,\na.ts\n"), .invalidDuration, line: 3, mentions: "'inf'")
        assertRefused(media("#EXTINF:86400.5,\na.ts\n"), .invalidDuration, line: 3, mentions: "86400")
        assertRefused("#EXTM3U\n#EXT-X-TARGETDURATION:90000\n", .invalidDuration, line: 2, mentions: "90000")
        assertRefused("#EXTM3U\n#EXT-X-TARGETDURATION:-4\n", .invalidDuration, line: 2, mentions: "'-4'")
    }

    func testBadIVsAreRefused() {
        let tooShort = "0x0001020304050607"
        let notHex = "0x000102030405060708090A0B0C0D0EZZ"
        for iv in [tooShort, notHex, "000102030405060708090A0B0C0D0E0F", "\"0x000102030405060708090A0B0C0D0E0F\""] {
            assertRefused(media("#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=\(iv)\n#EXTINF:1,\na.ts\n"), .invalidIV, line: 3, mentions: iv
                .replacingOccurrences(of: "\"", with: ""))
        }
    }

    func testBadByteRangesAreRefused() {
        assertRefused(media("#EXTINF:1,\n#EXT-X-BYTERANGE:abc\na.ts\n"), .invalidByteRange, line: 4, mentions: "'abc'")
        assertRefused(media("#EXTINF:1,\n#EXT-X-BYTERANGE:0@0\na.ts\n"), .invalidByteRange, line: 4, mentions: "'0@0'")
        assertRefused(media("#EXTINF:1,\n#EXT-X-BYTERANGE:10@x\na.ts\n"), .invalidByteRange, line: 4, mentions: "'10@x'")
        assertRefused(media("#EXTINF:1,\n#EXT-X-BYTERANGE:10@18446744073709551615\na.ts\n"), .invalidByteRange, line: 4,
                      mentions: "largest file position")
        // Past Int64: offset + length, a length alone, and an implicit offset that continues past it.
        assertRefused(media("#EXTINF:1,\n#EXT-X-BYTERANGE:100@9223372036854775800\na.ts\n"), .invalidByteRange, line: 4,
                      mentions: "'100@9223372036854775800'")
        assertRefused(media("#EXTINF:1,\n#EXT-X-BYTERANGE:9223372036854775808@0\na.ts\n"), .invalidByteRange, line: 4,
                      mentions: "9223372036854775808")
        assertRefused(media("#EXTINF:1,\n#EXT-X-BYTERANGE:9223372036854775000@0\na.ts\n#EXTINF:1,\n#EXT-X-BYTERANGE:1000\na.ts\n"),
                      .invalidByteRange, line: 7, mentions: "largest file position")
        assertRefused(media("#EXT-X-MAP:URI=\"i.mp4\",BYTERANGE=\"100@9223372036854775800\"\n#EXTINF:1,\na.ts\n"), .invalidByteRange,
                      line: 3, mentions: "100@9223372036854775800")
        // Nothing before it to continue from.
        assertRefused(media("#EXTINF:1,\n#EXT-X-BYTERANGE:100\na.ts\n"), .invalidByteRange, line: 4, mentions: "no @offset")
        // The previous range is of another resource.
        assertRefused(media("#EXTINF:1,\n#EXT-X-BYTERANGE:100@0\na.ts\n#EXTINF:1,\n#EXT-X-BYTERANGE:100\nb.ts\n"),
                      .invalidByteRange, line: 7, mentions: "b.ts")
        assertRefused(media("#EXT-X-MAP:URI=\"i.mp4\",BYTERANGE=\"-5@0\"\n#EXTINF:1,\na.ts\n"), .invalidByteRange, line: 3,
                      mentions: "'-5@0'")
    }

    /// A URI without EXTINF, an EXTINF without a URI and a missing EXT-X-TARGETDURATION are
    /// read as players read them (LenientParsingTests).
    func testStructuralErrors() {
        assertRefused(media("#EXT-X-KEY:METHOD=AES-256,URI=\"k\"\n"), .invalidAttribute, line: 3, mentions: "'AES-256'")
        assertRefused(media("#EXT-X-KEY:METHOD=AES-128\n"), .invalidAttribute, line: 3, mentions: "URI")
        assertRefused(media("#EXTINF:1,\na.ts\n#EXT-X-MEDIA-SEQUENCE:5\n"), .invalidAttribute, line: 5, mentions: "before the first")
    }

    func testUnknownTagsAndCommentsAreIgnored() throws {
        let parsed = try parseMedia(media("#EXT-X-SOMETHING-NEW:A=1\n# just a comment\n#EXT-X-GAP\n#EXTINF:1,\na.ts\n#EXT-X-ENDLIST\n"))
        XCTAssertEqual(parsed.segments.count, 1)
        XCTAssertTrue(parsed.hasEndList)
    }
}
