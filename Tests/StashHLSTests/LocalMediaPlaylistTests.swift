import XCTest
@testable import StashHLS

final class LocalMediaPlaylistTests: XCTestCase {
    let source = """
        #EXTM3U
        #EXT-X-TARGETDURATION:10
        #EXT-X-MEDIA-SEQUENCE:258
        #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example.com/k1",IV=0x000102030405060708090A0B0C0D0E0F
        #EXTINF:10,
        a.ts
        #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example.com/k2"
        #EXTINF:10,
        b.ts
        #EXTINF:10,
        c.ts
        #EXT-X-KEY:METHOD=NONE
        #EXTINF:10,
        d.ts
        #EXT-X-ENDLIST
        """

    func testRoundTripOfWhatPackagePlanWrote() throws {
        let uri = "https://cdn.example.com/show/ep1/v/index.m3u8"
        let media = try parseMedia(source, baseURL: uri)
        let plan = try PackagePlan.make(masterURI: uri, selection: nil, media: [uri: media])
        let written = try XCTUnwrap(plan.playlists.first { $0.path == "video/index.m3u8" })
        let local = try LocalMediaPlaylist.parse(written.text)

        // The paths are the plan's, relative to the playlist's folder.
        XCTAssertEqual(local.segments.map { "video/" + $0.path }, plan.files.map(\.path))
        XCTAssertEqual(local.keyPaths.map { "video/" + $0 }, plan.keys.map(\.path))
        XCTAssertEqual(local.segments, [
            LocalSegment(path: "seg00000.ts", keyPath: "key0.key", iv: Array(0...15)),
            // No IV: the sequence number, 258 = 0x0102, big-endian in 16 bytes.
            LocalSegment(path: "seg00001.ts", keyPath: "key1.key", iv: [UInt8](repeating: 0, count: 14) + [0x01, 0x03]),
            LocalSegment(path: "seg00002.ts", keyPath: "key1.key", iv: [UInt8](repeating: 0, count: 14) + [0x01, 0x04]),
            LocalSegment(path: "seg00003.ts"),
        ])
        // The IVs are the ones the source implies.
        for (segment, local) in zip(media.segments, local.segments) {
            XCTAssertEqual(local.iv, segment.key.map { $0.iv ?? LocalMediaPlaylist.sequenceIV(segment.sequenceNumber) })
        }
        XCTAssertEqual(local.initSections, [])
    }

    func testDecryptedTextHasNoKeyLines() throws {
        let decrypted = LocalMediaPlaylist.decryptedText(source.replacingOccurrences(of: "\n", with: "\r\n"))
        XCTAssertFalse(decrypted.contains("EXT-X-KEY"), decrypted)
        XCTAssertTrue(decrypted.contains("#EXT-X-MEDIA-SEQUENCE:258\r\n#EXTINF:10,\r\na.ts"), decrypted)
        let local = try LocalMediaPlaylist.parse(decrypted)
        XCTAssertEqual(local.segments.map(\.path), ["a.ts", "b.ts", "c.ts", "d.ts"])
        XCTAssertTrue(local.segments.allSatisfy { $0.keyPath == nil && $0.iv == nil })
        XCTAssertEqual(local.keyPaths, [])
    }

    func testPathsThatLeaveTheFolderAreRefused() {
        for path in ["../a.ts", "/etc/passwd", "https://evil.example.com/a.ts", "a/../../b.ts", "a//b.ts", "./a.ts", "c:\\a.ts"] {
            for text in ["#EXTM3U\n#EXTINF:1,\n\(path)\n", "#EXTM3U\n#EXT-X-MAP:URI=\"\(path)\"\n",
                         "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"\(path)\"\n#EXTINF:1,\na.ts\n"] {
                XCTAssertThrowsError(try LocalMediaPlaylist.parse(text), path) { error in
                    XCTAssertEqual((error as? HLSError)?.code, .unsafePath, "\(path): \(error)")
                }
            }
        }
        XCTAssertEqual(try LocalMediaPlaylist.parse("#EXTM3U\n#EXTINF:1,\nsub/a.ts\n").segments.map(\.path), ["sub/a.ts"])
    }

    func testMalformedLocalPlaylistsAreRefused() {
        XCTAssertThrowsError(try LocalMediaPlaylist.parse("a.ts\n")) { XCTAssertEqual(($0 as? HLSError)?.code, .missingHeader) }
        XCTAssertThrowsError(try LocalMediaPlaylist.parse("#EXTM3U\na.ts\n")) { XCTAssertEqual(($0 as? HLSError)?.code, .missingTag) }
        XCTAssertThrowsError(try LocalMediaPlaylist.parse("#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:10@0\na.ts\n")) {
            XCTAssertEqual(($0 as? HLSError)?.code, .invalidAttribute)
        }
        XCTAssertThrowsError(try LocalMediaPlaylist.parse("#EXTM3U\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"k\"\n")) {
            XCTAssertEqual(($0 as? HLSError)?.code, .unsupported)
        }
    }

    func testLocalMasterNamesItsSubtitlesAndDropsThemWithTheirGroup() throws {
        let master = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="x",URI="audio/en/index.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en-US",NAME="English",DEFAULT=YES,URI="subtitles/en-US/index.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="es",NAME="Español",FORCED=YES,URI="subtitles/es/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1,AUDIO="aud",SUBTITLES="subs"
            video/index.m3u8
            """
        let subtitles = try LocalMasterPlaylist.subtitles(master)
        XCTAssertEqual(subtitles.map(\.uri), ["subtitles/en-US/index.m3u8", "subtitles/es/index.m3u8"])
        XCTAssertEqual(subtitles.map(\.isDefault), [true, false])
        XCTAssertEqual(subtitles.map(\.forced), [false, true])
        XCTAssertEqual(LocalMasterPlaylist.matching("en", in: subtitles).map(\.language), ["en-US"])

        let withoutSpanish = try LocalMasterPlaylist.removing(["subtitles/es/index.m3u8"], from: master)
        XCTAssertFalse(withoutSpanish.contains("es/index.m3u8"), withoutSpanish)
        XCTAssertTrue(withoutSpanish.contains("SUBTITLES=\"subs\""), "the group still has English:\n\(withoutSpanish)")
        let bare = try LocalMasterPlaylist.removing(["subtitles/es/index.m3u8", "subtitles/en-US/index.m3u8"], from: master)
        XCTAssertFalse(bare.contains("SUBTITLES"), "an empty group is not named:\n\(bare)")
        XCTAssertTrue(bare.contains("#EXT-X-STREAM-INF:BANDWIDTH=1,AUDIO=\"aud\"\nvideo/index.m3u8"), bare)
        XCTAssertEqual(try LocalMasterPlaylist.subtitles(bare), [])
        XCTAssertThrowsError(try LocalMasterPlaylist.subtitles("#EXTM3U\n#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"s\",NAME=\"x\",URI=\"../../etc/passwd\"\n")) {
            XCTAssertEqual(($0 as? HLSError)?.code, .unsafePath)
        }
    }
}
