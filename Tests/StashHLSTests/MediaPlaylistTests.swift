import XCTest
@testable import StashHLS

final class MediaPlaylistTests: XCTestCase {
    let mediaBase = "https://cdn.example.com/show/ep1/mid/index.m3u8"

    func testAES128WithExplicitIVAndDefaultIV() throws {
        let media = try parseMedia("""
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:10
            #EXT-X-MEDIA-SEQUENCE:7
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-KEY:METHOD=AES-128,URI="keys/k1.key",IV=0x000102030405060708090A0B0C0D0E0F
            #EXTINF:10.000,
            seg7.ts
            #EXTINF:9.5,second segment
            seg8.ts
            #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example.com/k2"
            #EXTINF:4,
            seg9.ts
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:2.5,
            seg10.ts
            #EXT-X-ENDLIST
            """, baseURL: mediaBase)
        XCTAssertEqual(media.targetDuration, 10)
        XCTAssertEqual(media.mediaSequence, 7)
        XCTAssertEqual(media.playlistType, .vod)
        XCTAssertTrue(media.hasEndList)
        XCTAssertEqual(media.totalDuration, 26, accuracy: 1e-9)
        XCTAssertEqual(media.segments.map(\.sequenceNumber), [7, 8, 9, 10])
        XCTAssertEqual(media.segments.map(\.uri), (7...10).map { "https://cdn.example.com/show/ep1/mid/seg\($0).ts" })
        XCTAssertEqual(media.segments.map(\.duration), [10, 9.5, 4, 2.5])

        let explicit = SegmentKey(method: .aes128, uri: "https://cdn.example.com/show/ep1/mid/keys/k1.key", iv: Array(0...15))
        XCTAssertEqual(media.segments[0].key, explicit)
        XCTAssertEqual(media.segments[1].key, explicit)
        // No IV: the decryptor uses the sequence number, so the key carries none.
        XCTAssertEqual(media.segments[2].key, SegmentKey(method: .aes128, uri: "https://keys.example.com/k2"))
        XCTAssertNil(media.segments[3].key)
        XCTAssertFalse(media.segments.contains { $0.discontinuity || $0.byteRange != nil || $0.map != nil })
    }

    func testFMP4WithMap() throws {
        let media = try parseMedia("""
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:6
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:6.006,
            seg0.m4s
            #EXTINF:6.006,
            seg1.m4s
            #EXT-X-MAP:URI="init2.mp4",BYTERANGE="720@0"
            #EXTINF:3.003,
            seg2.m4s
            #EXT-X-ENDLIST
            """, baseURL: mediaBase)
        let first = InitSection(uri: "https://cdn.example.com/show/ep1/mid/init.mp4")
        let second = InitSection(uri: "https://cdn.example.com/show/ep1/mid/init2.mp4", byteRange: ByteRange(length: 720, offset: 0))
        XCTAssertEqual(media.segments.map(\.map), [first, first, second])
        XCTAssertEqual(media.segments.map(\.sequenceNumber), [0, 1, 2])
        XCTAssertEqual(media.totalDuration, 15.015, accuracy: 1e-9)
    }

    func testInitSectionCarriesTheKeyInForceAtItsMapTag() throws {
        let media = try parseMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-MAP:URI="clear.mp4"
            #EXT-X-KEY:METHOD=AES-128,URI="k",IV=0x000102030405060708090A0B0C0D0E0F
            #EXTINF:6,
            a.m4s
            #EXT-X-MAP:URI="sealed.mp4"
            #EXTINF:6,
            b.m4s
            #EXT-X-ENDLIST
            """, baseURL: mediaBase)
        let key = SegmentKey(method: .aes128, uri: "https://cdn.example.com/show/ep1/mid/k", iv: Array(0...15))
        XCTAssertEqual(media.segments.map(\.key), [key, key])
        XCTAssertNil(media.segments[0].map?.key, "the MAP came before the KEY")
        XCTAssertEqual(media.segments[1].map?.key, key)
    }

    func testSingleFileByteRangesWithImplicitOffsets() throws {
        let media = try parseMedia("""
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-TARGETDURATION:10
            #EXT-X-MAP:URI="main.mp4",BYTERANGE="1000@0"
            #EXTINF:10,
            #EXT-X-BYTERANGE:5000@1000
            main.mp4
            #EXTINF:10,
            #EXT-X-BYTERANGE:6000
            main.mp4
            #EXTINF:5,
            #EXT-X-BYTERANGE:2500
            main.mp4
            #EXTINF:5,
            #EXT-X-BYTERANGE:100@50
            other.mp4
            #EXT-X-ENDLIST
            """, baseURL: mediaBase)
        XCTAssertEqual(media.segments.map(\.byteRange), [
            ByteRange(length: 5000, offset: 1000),
            ByteRange(length: 6000, offset: 6000),
            ByteRange(length: 2500, offset: 12000),
            ByteRange(length: 100, offset: 50),
        ])
        XCTAssertEqual(media.segments[0].map?.byteRange, ByteRange(length: 1000, offset: 0))
    }

    func testDiscontinuityAppliesToTheNextSegmentOnly() throws {
        let media = try parseMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXTINF:4,
            a.ts
            #EXT-X-DISCONTINUITY
            #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00Z
            #EXTINF:4,
            ad.ts
            #EXTINF:4,
            ad2.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:4,
            b.ts
            #EXT-X-ENDLIST
            """)
        XCTAssertEqual(media.segments.map(\.discontinuity), [false, true, false, true])
    }

    func testLivePlaylistParsesWithoutEndList() throws {
        let media = try parseMedia("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:100\n#EXTINF:2,\nlive100.ts\n")
        XCTAssertFalse(media.hasEndList)
        XCTAssertNil(media.playlistType)
        XCTAssertEqual(media.segments.first?.sequenceNumber, 100)
    }

    func testRelativeURIResolution() throws {
        let media = try parseMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-KEY:METHOD=AES-128,URI="../../keys/k.bin"
            #EXT-X-MAP:URI="/init/init.mp4"
            #EXTINF:4,
            ../shared/a.ts
            #EXTINF:4,
            //mirror.example.org/b.ts
            #EXTINF:4,
            c.ts?sig=1
            #EXTINF:4,
            http://plain.example.com/d.ts
            #EXT-X-ENDLIST
            """, baseURL: "https://cdn.example.com/show/ep1/mid/index.m3u8?token=t")
        XCTAssertEqual(media.segments.map(\.uri), [
            "https://cdn.example.com/show/ep1/shared/a.ts",
            "https://mirror.example.org/b.ts",
            "https://cdn.example.com/show/ep1/mid/c.ts?sig=1",
            "http://plain.example.com/d.ts",
        ])
        XCTAssertEqual(media.segments[0].key?.uri, "https://cdn.example.com/show/keys/k.bin")
        XCTAssertEqual(media.segments[0].map?.uri, "https://cdn.example.com/init/init.mp4")
    }
}
