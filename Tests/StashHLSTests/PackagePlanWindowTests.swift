import StashCore
import XCTest
@testable import StashHLS

/// A package of a time range: only the segments in it, each playlist by its own timeline, and
/// playlists that keep each segment's sequence numbers.
final class PackagePlanWindowTests: XCTestCase {
    let root = "https://cdn.example.com/show/ep1/"

    func media(_ name: String, _ body: String) throws -> (String, MediaPlaylist) {
        (root + name, try parseMedia("#EXTM3U\n" + body + "\n#EXT-X-ENDLIST\n", baseURL: root + name))
    }

    func text(_ plan: PackagePlan, _ path: String) -> String? { plan.playlists.first { $0.path == path }?.text }

    /// 10 + 9.5 + 4.0000004 + 2.5 + 1 s from sequence number 7: two keys, a discontinuity
    /// before the third segment, a clear fourth.
    let aes = """
        #EXT-X-TARGETDURATION:10
        #EXT-X-MEDIA-SEQUENCE:7
        #EXT-X-KEY:METHOD=AES-128,URI="../keys/k1",IV=0x000102030405060708090A0B0C0D0E0F
        #EXTINF:10.000,
        seg7.ts
        #EXTINF:9.5,
        seg8.ts
        #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example.com/k2"
        #EXT-X-DISCONTINUITY
        #EXTINF:4.0000004,
        seg9.ts
        #EXT-X-KEY:METHOD=NONE
        #EXTINF:2.5,
        seg10.ts
        #EXT-X-KEY:METHOD=AES-128,URI="../keys/k1",IV=0x000102030405060708090A0B0C0D0E0F
        #EXTINF:1,
        seg11.ts
        """

    func plan(_ body: String, start: Double?, end: Double?) throws -> PackagePlan {
        let (uri, playlist) = try media("v/index.m3u8", body)
        return try PackagePlan.make(masterURI: uri, selection: nil, media: [uri: playlist], start: start, end: end)
    }

    func testAWindowKeepsSequenceNumbersKeysAndALaterDiscontinuity() throws {
        // [12, 22) overlaps seg8 (10 to 19.5) and seg9 (19.5 to 23.5).
        let plan = try plan(aes, start: 12, end: 22)
        XCTAssertEqual(text(plan, "video/index.m3u8"), """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:10
            #EXT-X-MEDIA-SEQUENCE:8
            #EXT-X-STASH-WINDOW-START:10
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-KEY:METHOD=AES-128,URI="key0.key",IV=0x000102030405060708090A0B0C0D0E0F
            #EXTINF:9.5,
            seg00001.ts
            #EXT-X-DISCONTINUITY
            #EXT-X-KEY:METHOD=AES-128,URI="key1.key"
            #EXTINF:4,
            seg00002.ts
            #EXT-X-ENDLIST

            """)
        XCTAssertEqual(plan.files.map(\.url), [root + "v/seg8.ts", root + "v/seg9.ts"])
        XCTAssertEqual(plan.keys.map(\.uri), [root + "keys/k1", "https://keys.example.com/k2"])
        XCTAssertEqual(plan.window, SegmentWindow(start: 12, end: 22))
        XCTAssertEqual(plan.windowNotes, [])
        XCTAssertEqual(plan.duration, 27.0000004, accuracy: 1e-9, "the stream's duration")
    }

    func testAWindowFromADiscontinuityCountsItInTheSequence() throws {
        // From 19.5: seg9 on, after the stream's only discontinuity, whose tag the
        // DISCONTINUITY-SEQUENCE now holds; the default IV of seg9 is its number, 9.
        let plan = try plan(aes, start: 19.5, end: nil)
        XCTAssertEqual(text(plan, "video/index.m3u8"), """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:10
            #EXT-X-MEDIA-SEQUENCE:9
            #EXT-X-DISCONTINUITY-SEQUENCE:1
            #EXT-X-STASH-WINDOW-START:19.5
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-KEY:METHOD=AES-128,URI="key0.key"
            #EXTINF:4,
            seg00002.ts
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:2.5,
            seg00003.ts
            #EXT-X-KEY:METHOD=AES-128,URI="key1.key",IV=0x000102030405060708090A0B0C0D0E0F
            #EXTINF:1,
            seg00004.ts
            #EXT-X-ENDLIST

            """)
        // The package as read back for an export: the IVs are those the segments were
        // encrypted with, the sequence number for seg9.
        let local = try LocalMediaPlaylist.parse(try XCTUnwrap(text(plan, "video/index.m3u8")))
        XCTAssertEqual(local.segments.map(\.path), ["seg00002.ts", "seg00003.ts", "seg00004.ts"])
        XCTAssertEqual(local.segments[0].iv, LocalMediaPlaylist.sequenceIV(9))
        XCTAssertNil(local.segments[1].keyPath)
        XCTAssertEqual(local.windowStart, 19.5, "where the first segment kept begins on the stream's timeline")
        XCTAssertThrowsError(try LocalMediaPlaylist.parse("#EXTM3U\n#EXT-X-STASH-WINDOW-START:-1\n")) {
            XCTAssertEqual(($0 as? HLSError)?.code, .invalidAttribute)
        }
        XCTAssertThrowsError(try LocalMediaPlaylist.parse("#EXTM3U\n#EXT-X-STASH-WINDOW-START:nan\n"))
        // The stream lasts 27 s as the microseconds count it (4.0000004 is 4 s to them).
        XCTAssertEqual(plan.window, SegmentWindow(start: 19.5, end: 27))
    }

    func testTheWholeRangeIsTheWholeStream() throws {
        let whole = try plan(aes, start: nil, end: nil)
        let ranged = try plan(aes, start: 0, end: 27.0000004)
        XCTAssertEqual(ranged.files, whole.files)
        XCTAssertEqual(ranged.playlists, whole.playlists)
        XCTAssertNil(whole.window)
        XCTAssertEqual(ranged.window, SegmentWindow(start: 0, end: 27.0000004))
    }

    func testAnEndPastTheStreamIsClampedAndSaid() throws {
        let plan = try plan(aes, start: 26, end: 700)
        XCTAssertEqual(plan.files.map(\.path), ["video/seg00004.ts"])
        XCTAssertEqual(plan.window, SegmentWindow(start: 26, end: 27, clampedFrom: 700))
        XCTAssertEqual(plan.windowNotes.count, 1)
        XCTAssertTrue(plan.windowNotes[0].contains("hls.end 700 is past the end of the stream, which lasts 27 s"), plan.windowNotes[0])
    }

    func testARangeOutsideTheStreamIsRefused() throws {
        for (start, end, mention) in [(27.0000004, nil, "hls.start 27.0000004"), (30, 40, "hls.start 30"), (-1, 5, "hls.start -1"),
                                      (nil, .nan, "hls.end nan")] as [(Double?, Double?, String)] {
            XCTAssertThrowsError(try plan(aes, start: start, end: end)) { error in
                XCTAssertEqual((error as? HLSError)?.code, .outOfRange)
                let message = (error as? HLSError)?.message ?? ""
                XCTAssertTrue(message.contains(mention) && message.contains("lasts 27 s"), message)
            }
        }
    }

    func testByteRangesAndInitSectionsOfTheWindowOnly() throws {
        let body = """
            #EXT-X-TARGETDURATION:4
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="700@0"
            #EXTINF:4,
            #EXT-X-BYTERANGE:1000@700
            media.mp4
            #EXTINF:4,
            #EXT-X-BYTERANGE:2000
            media.mp4
            #EXTINF:4,
            #EXT-X-BYTERANGE:3000
            media.mp4
            """
        let plan = try plan(body, start: 4, end: 8)
        XCTAssertEqual(plan.files.map(\.path), ["video/init0.mp4", "video/seg00001.mp4"])
        XCTAssertEqual(plan.files.map(\.byteRange), [ByteRange(length: 700, offset: 0), ByteRange(length: 2000, offset: 1700)])
        XCTAssertEqual(plan.estimatedBytes, 2700, "exact: the window's segment and its init section")
        XCTAssertTrue(plan.sizeIsExact)
    }

    // MARK: - Renditions, each by its own timeline

    let master = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="en",NAME="English",DEFAULT=YES,URI="a/index.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",URI="s/index.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=1600000,AVERAGE-BANDWIDTH=800000,AUDIO="aud",SUBTITLES="subs"
        v/index.m3u8
        """

    /// Video of five 4 s segments, audio of four 6 s (a longer timeline), subtitles of two 8 s
    /// (a shorter one: they end at 16 s).
    func renditionMedia() throws -> [String: MediaPlaylist] {
        var media: [String: MediaPlaylist] = [:]
        for (folder, seconds, count) in [("v", 4, 5), ("a", 6, 4), ("s", 8, 2)] {
            let body = "#EXT-X-TARGETDURATION:\(seconds)\n" + (0..<count).map { "#EXTINF:\(seconds),\n\($0).seg" }.joined(separator: "\n")
            let (uri, playlist) = try self.media(folder + "/index.m3u8", body)
            media[uri] = playlist
        }
        return media
    }

    func testRenditionsAreCutByTheirOwnTimelines() throws {
        let selection = try parseMaster(master).select(HLSOptions(subtitles: ["en"], audio: ["en"]))
        let plan = try PackagePlan.make(masterURI: base, selection: selection, media: try renditionMedia(), start: 8, end: 12)
        XCTAssertEqual(plan.files.map(\.path), [
            "video/seg00002.seg",  // 8 to 12
            "audio/en/seg00001.seg",  // 6 to 12
            "subtitles/en/seg00001.seg",  // 8 to 16
        ])
        XCTAssertEqual(plan.estimatedBytes, 400_000, "AVERAGE-BANDWIDTH x the 4 s of video kept / 8")
        XCTAssertTrue(text(plan, "master.m3u8")?.contains("AUDIO=\"aud\",SUBTITLES=\"subs\"") ?? false)
        XCTAssertTrue(text(plan, "audio/en/index.m3u8")?.contains("#EXT-X-MEDIA-SEQUENCE:1\n") ?? false)
    }

    func testARenditionWithNothingInTheWindowIsLeftOut() throws {
        let selection = try parseMaster(master).select(HLSOptions(subtitles: ["en"], audio: ["en"]))
        let plan = try PackagePlan.make(masterURI: base, selection: selection, media: try renditionMedia(), start: 16, end: nil)
        XCTAssertEqual(plan.files.map(\.path), ["video/seg00004.seg", "audio/en/seg00002.seg", "audio/en/seg00003.seg"])
        XCTAssertEqual(plan.playlists.map(\.path), ["master.m3u8", "video/index.m3u8", "audio/en/index.m3u8"])
        let master = try XCTUnwrap(text(plan, "master.m3u8"))
        XCTAssertFalse(master.contains("SUBTITLES"), "the master names no rendition the package lacks:\n\(master)")
        XCTAssertEqual(plan.windowNotes, ["the subtitle rendition 'English' has no segment in 16–20 s; it is left out"])
    }
}
