import StashCore
import XCTest
@testable import StashHLS

final class PackagePlanTests: XCTestCase {
    let root = "https://cdn.example.com/show/ep1/"

    /// Parses `body` (the lines after the header) as fetched from `root + name`.
    func playlist(_ name: String, _ body: String, endList: Bool = true) throws -> (String, MediaPlaylist) {
        let text = "#EXTM3U\n" + body + (endList ? "\n#EXT-X-ENDLIST\n" : "\n")
        return (root + name, try parseMedia(text, baseURL: root + name))
    }

    func mediaOnly(_ body: String) throws -> PackagePlan {
        let (uri, media) = try playlist("v/index.m3u8", body)
        return try PackagePlan.make(masterURI: uri, selection: nil, media: [uri: media])
    }

    func text(_ plan: PackagePlan, _ path: String) -> String? { plan.playlists.first { $0.path == path }?.text }

    let aes = """
        #EXT-X-VERSION:3
        #EXT-X-TARGETDURATION:10
        #EXT-X-MEDIA-SEQUENCE:7
        #EXT-X-KEY:METHOD=AES-128,URI="../keys/k1",IV=0x000102030405060708090A0B0C0D0E0F
        #EXTINF:10.000,
        seg7.ts?x=1
        #EXTINF:9.5,
        seg8.ts
        #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example.com/k2"
        #EXT-X-DISCONTINUITY
        #EXTINF:4.0000004,
        seg9.TS
        #EXT-X-KEY:METHOD=NONE
        #EXTINF:2.5,
        seg10
        #EXT-X-KEY:METHOD=AES-128,URI="../keys/k1",IV=0x000102030405060708090A0B0C0D0E0F
        #EXTINF:1,
        seg11.ts
        """

    func testAES128WithExplicitAndDefaultIVExactText() throws {
        let plan = try mediaOnly(aes)
        XCTAssertEqual(text(plan, "video/index.m3u8"), """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:10
            #EXT-X-MEDIA-SEQUENCE:7
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-KEY:METHOD=AES-128,URI="key0.key",IV=0x000102030405060708090A0B0C0D0E0F
            #EXTINF:10,
            seg00000.ts
            #EXTINF:9.5,
            seg00001.ts
            #EXT-X-DISCONTINUITY
            #EXT-X-KEY:METHOD=AES-128,URI="key1.key"
            #EXTINF:4,
            seg00002.ts
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:2.5,
            seg00003.seg
            #EXT-X-KEY:METHOD=AES-128,URI="key0.key",IV=0x000102030405060708090A0B0C0D0E0F
            #EXTINF:1,
            seg00004.ts
            #EXT-X-ENDLIST

            """)
        XCTAssertEqual(text(plan, "master.m3u8"), "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=0\nvideo/index.m3u8\n")
        XCTAssertEqual(plan.playlists.map(\.path), ["master.m3u8", "video/index.m3u8"])
        XCTAssertEqual(plan.keys, [PackageKey(uri: root + "keys/k1", path: "video/key0.key"),
                                   PackageKey(uri: "https://keys.example.com/k2", path: "video/key1.key")])
        XCTAssertEqual(plan.files, [
            PackageFile(url: root + "v/seg7.ts?x=1", path: "video/seg00000.ts"),
            PackageFile(url: root + "v/seg8.ts", path: "video/seg00001.ts"),
            PackageFile(url: root + "v/seg9.TS", path: "video/seg00002.ts"),
            // The one clear segment (after METHOD=NONE) is checked as MPEG-TS; the encrypted ones cannot be.
            PackageFile(url: root + "v/seg10", path: "video/seg00003.seg", container: .mpegTS),
            PackageFile(url: root + "v/seg11.ts", path: "video/seg00004.ts"),
        ])
        XCTAssertEqual(plan.duration, 27.0000004, accuracy: 1e-9)
        XCTAssertNil(plan.estimatedBytes, "no bandwidth and no sizes")
        XCTAssertFalse(plan.sizeIsExact)
    }

    func testFMP4WithMapAndAClearInitBeforeEncryptedSegments() throws {
        let plan = try mediaOnly("""
            #EXT-X-TARGETDURATION:6
            #EXT-X-MAP:URI="init.mp4"
            #EXT-X-KEY:METHOD=AES-128,URI="k",IV=0x0000000000000000000000000000000A
            #EXTINF:6.006,
            s0.m4s
            #EXTINF:6.006,
            s1.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-KEY:METHOD=NONE
            #EXT-X-MAP:URI="init2.MP4"
            #EXT-X-KEY:METHOD=AES-128,URI="k",IV=0x0000000000000000000000000000000A
            #EXTINF:3.003,
            s2.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-KEY:METHOD=NONE
            #EXT-X-MAP:URI="init.mp4"
            #EXT-X-KEY:METHOD=AES-128,URI="k",IV=0x0000000000000000000000000000000A
            #EXTINF:7.4,
            s3.m4s
            """)
        let lines = text(plan, "video/index.m3u8")?.split(separator: "\n").map(String.init) ?? []
        XCTAssertEqual(lines[1], "#EXT-X-VERSION:6")
        XCTAssertEqual(lines[2], "#EXT-X-TARGETDURATION:7", "7.4 rounds to 7, above the source's 6")
        // The inits are clear: each MAP comes where no key is in force, as in the source.
        XCTAssertEqual(Array(lines[5...]), [
            "#EXT-X-MAP:URI=\"init0.mp4\"",
            "#EXT-X-KEY:METHOD=AES-128,URI=\"key0.key\",IV=0x0000000000000000000000000000000A",
            "#EXTINF:6.006,", "seg00000.m4s",
            "#EXTINF:6.006,", "seg00001.m4s",
            "#EXT-X-DISCONTINUITY",
            "#EXT-X-KEY:METHOD=NONE",
            "#EXT-X-MAP:URI=\"init1.mp4\"",
            "#EXT-X-KEY:METHOD=AES-128,URI=\"key0.key\",IV=0x0000000000000000000000000000000A",
            "#EXTINF:3.003,", "seg00002.m4s",
            "#EXT-X-DISCONTINUITY",
            "#EXT-X-KEY:METHOD=NONE",
            "#EXT-X-MAP:URI=\"init0.mp4\"",
            "#EXT-X-KEY:METHOD=AES-128,URI=\"key0.key\",IV=0x0000000000000000000000000000000A",
            "#EXTINF:7.4,", "seg00003.m4s",
            "#EXT-X-ENDLIST",
        ])
        XCTAssertEqual(plan.files.map(\.path), ["video/init0.mp4", "video/seg00000.m4s", "video/seg00001.m4s",
                                                "video/init1.mp4", "video/seg00002.m4s", "video/seg00003.m4s"])
        XCTAssertEqual(plan.keys, [PackageKey(uri: root + "v/k", path: "video/key0.key")])

        // Read back: the init sections are clear, the segments are not.
        let local = try LocalMediaPlaylist.parse(text(plan, "video/index.m3u8") ?? "")
        XCTAssertEqual(local.initSections, [LocalSegment(path: "init0.mp4"), LocalSegment(path: "init1.mp4")])
        XCTAssertEqual(local.segments.map(\.keyPath), Array(repeating: "key0.key", count: 4))
        // Each segment names the map it is read with (a single-file export reads it first).
        XCTAssertEqual(local.segments.map(\.initSection), ["init0.mp4", "init0.mp4", "init1.mp4", "init0.mp4"])
    }

    func testEncryptedInitKeepsItsKeyBeforeTheMap() throws {
        let plan = try mediaOnly("""
            #EXT-X-TARGETDURATION:6
            #EXT-X-KEY:METHOD=AES-128,URI="k",IV=0x000102030405060708090A0B0C0D0E0F
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:6,
            s0.m4s
            """)
        let body = text(plan, "video/index.m3u8") ?? ""
        XCTAssertTrue(body.contains("""
            #EXT-X-KEY:METHOD=AES-128,URI="key0.key",IV=0x000102030405060708090A0B0C0D0E0F
            #EXT-X-MAP:URI="init0.mp4"
            #EXTINF:6,
            seg00000.m4s
            """), body)
        let local = try LocalMediaPlaylist.parse(body)
        XCTAssertEqual(local.initSections, [LocalSegment(path: "init0.mp4", keyPath: "key0.key", iv: Array(0...15))])
    }

    func testSingleFileByteRangesBecomeOneFileEach() throws {
        let plan = try mediaOnly("""
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
            """)
        let url = root + "v/main.mp4"
        XCTAssertEqual(plan.files, [
            PackageFile(url: url, path: "video/init0.mp4", byteRange: ByteRange(length: 1000, offset: 0), size: 1000, container: .fragmentedMP4),
            PackageFile(url: url, path: "video/seg00000.mp4", byteRange: ByteRange(length: 5000, offset: 1000), size: 5000, container: .fragmentedMP4),
            PackageFile(url: url, path: "video/seg00001.mp4", byteRange: ByteRange(length: 6000, offset: 6000), size: 6000, container: .fragmentedMP4),
            PackageFile(url: url, path: "video/seg00002.mp4", byteRange: ByteRange(length: 2500, offset: 12000), size: 2500, container: .fragmentedMP4),
        ])
        let body = text(plan, "video/index.m3u8") ?? ""
        XCTAssertFalse(body.contains("BYTERANGE"), body)
        XCTAssertTrue(body.contains("#EXT-X-MAP:URI=\"init0.mp4\"\n#EXTINF:10,\nseg00000.mp4\n"), body)
        XCTAssertTrue(plan.sizeIsExact)
        XCTAssertEqual(plan.estimatedBytes, 14_500)
        // Known sizes give the media-only master a real BANDWIDTH: 6000 bytes in 10 s.
        XCTAssertEqual(text(plan, "master.m3u8"), "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=4800,AVERAGE-BANDWIDTH=4320\nvideo/index.m3u8\n")
    }

    // MARK: - A master with audio and subtitle renditions

    let master = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,URI="a/en/index.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="pt-BR",NAME="Português",URI="a/pt/index.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",AUTOSELECT=YES,URI="s/en/index.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="es",NAME="Español",FORCED=YES,URI="s/es/index.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Commentary",URI="s/x/index.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=1600000,AVERAGE-BANDWIDTH=1200000,RESOLUTION=1280x720,CODECS="avc1.4d401f,mp4a.40.2",FRAME-RATE=29.97,AUDIO="aud",SUBTITLES="subs"
        v/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=640x360,AUDIO="aud",SUBTITLES="subs"
        low/index.m3u8
        """

    func allMedia() throws -> [String: MediaPlaylist] {
        var media: [String: MediaPlaylist] = [:]
        for (name, ext) in [("v", "ts"), ("a/en", "aac"), ("a/pt", "aac"), ("s/en", "vtt"), ("s/es", "vtt"), ("s/x", "webvtt")] {
            let (uri, parsed) = try playlist("\(name)/index.m3u8", "#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n0.\(ext)\n#EXTINF:8,\n1.\(ext)")
            media[uri] = parsed
        }
        return media
    }

    func testSubtitlesAndAudioRenditions() throws {
        let selection = try parseMaster(master).select(HLSOptions(quality: .medium, subtitles: ["all"], audio: ["pt"]))
        let plan = try PackagePlan.make(masterURI: base, selection: selection, media: try allMedia())
        XCTAssertEqual(text(plan, "master.m3u8"), """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="pt-BR",NAME="Português",DEFAULT=YES,AUTOSELECT=YES,URI="audio/pt-BR/index.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",DEFAULT=NO,AUTOSELECT=YES,FORCED=NO,URI="subtitles/en/index.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="es",NAME="Español",DEFAULT=NO,AUTOSELECT=NO,FORCED=YES,URI="subtitles/es/index.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Commentary",DEFAULT=NO,AUTOSELECT=NO,FORCED=NO,URI="subtitles/und/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1600000,AVERAGE-BANDWIDTH=1200000,RESOLUTION=1280x720,CODECS="avc1.4d401f,mp4a.40.2",FRAME-RATE=29.97,AUDIO="aud",SUBTITLES="subs"
            video/index.m3u8

            """)
        XCTAssertEqual(plan.playlists.map(\.path), ["master.m3u8", "video/index.m3u8", "audio/pt-BR/index.m3u8",
                                                    "subtitles/en/index.m3u8", "subtitles/es/index.m3u8",
                                                    "subtitles/und/index.m3u8"])
        XCTAssertEqual(plan.files.map(\.path), [
            "video/seg00000.ts", "video/seg00001.ts", "audio/pt-BR/seg00000.aac", "audio/pt-BR/seg00001.aac",
            "subtitles/en/seg00000.vtt", "subtitles/en/seg00001.vtt", "subtitles/es/seg00000.vtt",
            "subtitles/es/seg00001.vtt", "subtitles/und/seg00000.seg", "subtitles/und/seg00001.seg",
        ])
        XCTAssertEqual(plan.files[4].url, root + "s/en/0.vtt")
        XCTAssertEqual(plan.duration, 18)
        // No sizes: AVERAGE-BANDWIDTH x 18 s / 8.
        XCTAssertEqual(plan.estimatedBytes, 2_700_000)
        XCTAssertFalse(plan.sizeIsExact)
    }

    func testNoRenditionsLeavesGroupsOutOfTheVariant() throws {
        let selection = try parseMaster(master).select(HLSOptions(quality: .low, audio: ["en"]))
        let plan = try PackagePlan.make(masterURI: base, selection: selection, media: try allMedia())
        let lines = text(plan, "master.m3u8")?.split(separator: "\n") ?? []
        XCTAssertEqual(lines.count, 4)
        XCTAssertTrue(lines[1].hasSuffix("DEFAULT=YES,AUTOSELECT=YES,URI=\"audio/en/index.m3u8\""), String(lines[1]))
        XCTAssertTrue(lines[2].hasPrefix("#EXT-X-STREAM-INF:BANDWIDTH=1600000,"))
        XCTAssertTrue(lines[2].hasSuffix(",AUDIO=\"aud\""), "no SUBTITLES group without subtitle renditions: \(lines[2])")
    }

    // MARK: - Refusals

    func assertRefused(_ make: @autoclosure () throws -> PackagePlan, _ code: HLSError.Code, mentions: [String],
                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try make(), file: file, line: line) { error in
            guard let error = error as? HLSError else { return XCTFail("not an HLSError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
            for text in mentions {
                XCTAssertTrue(error.message.contains(text), "'\(error.message)' does not mention '\(text)'", file: file, line: line)
            }
        }
    }

    func testLivePlaylistIsRefused() throws {
        let (uri, live) = try playlist("live.m3u8", "#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts", endList: false)
        assertRefused(try PackagePlan.make(masterURI: uri, selection: nil, media: [uri: live]), .unsupported,
                      mentions: [uri, "live streams are not supported; only VOD"])
    }

    func testSampleAESAndOtherKeyFormatsAreRefused() throws {
        let (uri, sample) = try playlist("v/index.m3u8", "#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"k\"\n#EXTINF:2,\na.ts")
        assertRefused(try PackagePlan.make(masterURI: uri, selection: nil, media: [uri: sample]), .unsupported,
                      mentions: [uri, "SAMPLE-AES", "only AES-128 and NONE"])
        let (_, format) = try playlist("v/index.m3u8",
                                       "#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",KEYFORMAT=\"com.example\"\n#EXTINF:2,\na.ts")
        assertRefused(try PackagePlan.make(masterURI: uri, selection: nil, media: [uri: format]), .unsupported,
                      mentions: [uri, "com.example"])
        let (_, identity) = try playlist("v/index.m3u8",
                                         "#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",KEYFORMAT=\"identity\"\n#EXTINF:2,\na.ts")
        XCTAssertEqual(try PackagePlan.make(masterURI: uri, selection: nil, media: [uri: identity]).keys.count, 1)
    }

    func testEmptyPlaylistIsRefused() throws {
        let (uri, empty) = try playlist("v/index.m3u8", "#EXT-X-TARGETDURATION:2")
        assertRefused(try PackagePlan.make(masterURI: uri, selection: nil, media: [uri: empty]), .noSegments, mentions: [uri])
    }

    func testMissingMediaPlaylistsAreNamed() throws {
        let selection = try parseMaster(master).select(HLSOptions(quality: .medium, subtitles: ["es"]))
        var media = try allMedia()
        assertRefused(try PackagePlan.make(masterURI: base, selection: selection, media: [:]), .missingPlaylist,
                      mentions: [root + "v/index.m3u8"])
        media[root + "s/es/index.m3u8"] = nil
        assertRefused(try PackagePlan.make(masterURI: base, selection: selection, media: media), .missingPlaylist,
                      mentions: [root + "s/es/index.m3u8", "Español"])
        assertRefused(try PackagePlan.make(masterURI: root + "nothing.m3u8", selection: nil, media: media), .missingPlaylist,
                      mentions: [root + "nothing.m3u8"])
    }

    // MARK: - Names

    func testFileNamesNeverComeFromTheServerAsIs() {
        XCTAssertEqual(PackageTrack.fileExtension("https://h/a/b.TS?x=y.mp4"), "ts")
        XCTAssertEqual(PackageTrack.fileExtension("https://h/a/b.m4s"), "m4s")
        XCTAssertEqual(PackageTrack.fileExtension("https://h/a/b.webvtt"), "seg", "more than five characters")
        XCTAssertEqual(PackageTrack.fileExtension("https://h/a/b.t_s"), "seg")
        XCTAssertEqual(PackageTrack.fileExtension("https://h/a.ts/"), "ts")
        XCTAssertEqual(PackageTrack.fileExtension("https://h/"), "seg")
        XCTAssertEqual(PackagePlan.folderTag("../../etc"), "------etc")
        XCTAssertEqual(PackagePlan.folderTag(nil), "und")
        let twice = [Rendition(type: .subtitles, groupID: "s", language: "en", name: "a"), Rendition(type: .subtitles, groupID: "s", language: "en", name: "b"),
                     Rendition(type: .subtitles, groupID: "s", language: "en-2", name: "c")]
        XCTAssertEqual(PackagePlan.folderNames(twice), ["en", "en-2", "en-2-2"])
        XCTAssertEqual(PackagePlan.folderTag("/"), "und")
        XCTAssertEqual(PackageTrack.decimal(6.0060001, places: 6), "6.006")
        XCTAssertEqual(PackageTrack.decimal(0.0000004, places: 6), "0")
        XCTAssertEqual(PackageTrack.decimal(1.0000009, places: 6), "1.000001")
        XCTAssertEqual(PackageTrack.segmentName(99_999), "seg99999")
    }
}
