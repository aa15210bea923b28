import StashCore
import XCTest
@testable import StashHLS

final class SelectionTests: XCTestCase {
    /// 400k/1.6M/3.2M with English and Spanish audio (English default) and subtitles.
    let threeVariants = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,URI="a/en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="es",NAME="Español",URI="a/es.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en-US",NAME="English",URI="s/en.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="es",NAME="Español",URI="s/es.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="other",LANGUAGE="fr",NAME="Français",URI="s/fr.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=3200000,RESOLUTION=1920x1080,AUDIO="aud",SUBTITLES="subs"
        high.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=640x360,AUDIO="aud",SUBTITLES="subs"
        low.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1600000,RESOLUTION=1280x720,AUDIO="aud",SUBTITLES="subs"
        mid.m3u8
        """

    func chosen(_ text: String, _ options: HLSOptions, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let uri = try parseMaster(text).select(options).variant.uri
        return String(uri.split(separator: "/").last ?? "")
    }

    func testQualityPresetsTakeTheLowestVariantReachingTheirMinimum() throws {
        XCTAssertEqual(try chosen(threeVariants, HLSOptions(quality: .low)), "mid.m3u8", "400k is below low's 500k")
        XCTAssertEqual(try chosen(threeVariants, HLSOptions(quality: .medium)), "mid.m3u8")
        XCTAssertEqual(try chosen(threeVariants, HLSOptions(quality: .high)), "high.m3u8")
        XCTAssertEqual(try chosen(threeVariants, HLSOptions(quality: .auto)), "high.m3u8")
    }

    func testHighTakesTheHighestWhenNoVariantReachesIt() throws {
        let master = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=800000
            b.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2500000
            c.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=300000
            a.m3u8
            """
        XCTAssertEqual(try chosen(master, HLSOptions(quality: .high)), "c.m3u8")
        XCTAssertEqual(try chosen(master, HLSOptions(quality: .low)), "b.m3u8")
    }

    func testMaxHeightLimitsTheCandidates() throws {
        XCTAssertEqual(try chosen(threeVariants, HLSOptions(quality: .auto, maxHeight: 720)), "mid.m3u8")
        XCTAssertEqual(try chosen(threeVariants, HLSOptions(quality: .high, maxHeight: 719)), "low.m3u8")
        XCTAssertThrowsError(try parseMaster(threeVariants).select(HLSOptions(maxHeight: 240))) { error in
            let error = error as? HLSError
            XCTAssertEqual(error?.code, .noMatch)
            XCTAssertTrue(error?.message.contains("240") == true, error?.message ?? "")
            XCTAssertTrue(error?.message.contains("640x360") == true, error?.message ?? "")
        }
    }

    func testVariantWithoutResolutionFitsAnyHeight() throws {
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=64000\naudio.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360\nv.m3u8\n"
        XCTAssertEqual(try chosen(master, HLSOptions(maxHeight: 144)), "audio.m3u8")
    }

    func testBandwidthTakesTheClosestNotAboveElseTheLowest() throws {
        XCTAssertEqual(try chosen(threeVariants, HLSOptions(quality: .high, bandwidth: 2_000_000)), "mid.m3u8")
        XCTAssertEqual(try chosen(threeVariants, HLSOptions(bandwidth: 1_600_000)), "mid.m3u8")
        XCTAssertEqual(try chosen(threeVariants, HLSOptions(bandwidth: 10_000_000)), "high.m3u8")
        XCTAssertEqual(try chosen(threeVariants, HLSOptions(bandwidth: 100_000)), "low.m3u8")
        XCTAssertEqual(try chosen(threeVariants, HLSOptions(maxHeight: 360, bandwidth: 10_000_000)), "low.m3u8")
    }

    func testSubtitlesByLanguage() throws {
        let master = try parseMaster(threeVariants)
        func names(_ languages: [String]) throws -> [String] {
            try master.select(HLSOptions(subtitles: languages)).subtitles.map { $0.language ?? "" }
        }
        XCTAssertEqual(try names([]), [])
        XCTAssertEqual(try names(["en"]), ["en-US"], "a bare language takes its regional forms")
        XCTAssertEqual(try names(["EN-us"]), ["en-US"])
        XCTAssertEqual(try names(["en-GB"]), ["en-US"], "same language when the exact region is not offered")
        XCTAssertEqual(try names(["es", "en"]), ["es", "en-US"])
        XCTAssertEqual(try names(["es", "es"]), ["es"])
        XCTAssertEqual(try names(["all"]), ["en-US", "es"], "only the variant's group")
        XCTAssertThrowsError(try names(["en", "de"])) { error in
            let error = error as? HLSError
            XCTAssertEqual(error?.code, .noMatch)
            XCTAssertTrue(error?.message.contains("'de'") == true, error?.message ?? "")
            XCTAssertTrue(error?.message.contains("en-US (English), es (Español)") == true, error?.message ?? "")
            XCTAssertFalse(error?.message.contains("fr") == true, error?.message ?? "")
        }
    }

    func testPresetMinimumIsInclusive() throws {
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=500000\nexact.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=900000\nmore.m3u8\n"
        XCTAssertEqual(try chosen(master, HLSOptions(quality: .low)), "exact.m3u8")
    }

    func testBareLanguageTakesEveryRegionAndARegionOnlyItself() throws {
        let master = try parseMaster("""
            #EXTM3U
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",LANGUAGE="en",NAME="a",URI="a.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",LANGUAGE="en-GB",NAME="b",URI="b.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",LANGUAGE="de",NAME="c",URI="c.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1,SUBTITLES="s"
            v.m3u8
            """)
        XCTAssertEqual(try master.select(HLSOptions(subtitles: ["EN"])).subtitles.map(\.name), ["a", "b"])
        XCTAssertEqual(try master.select(HLSOptions(subtitles: ["en-gb"])).subtitles.map(\.name), ["b"])
        XCTAssertEqual(try master.select(HLSOptions(subtitles: ["de-AT"])).subtitles.map(\.name), ["c"])
    }

    func testAudioDefaultsToTheDefaultRendition() throws {
        let master = try parseMaster(threeVariants)
        XCTAssertEqual(try master.select(HLSOptions()).audio.map(\.name), ["English"])
        XCTAssertEqual(try master.select(HLSOptions(audio: ["es"])).audio.map(\.name), ["Español"])
        XCTAssertEqual(try master.select(HLSOptions(audio: ["all"])).audio.map(\.name), ["English", "Español"])
        XCTAssertThrowsError(try master.select(HLSOptions(audio: ["ja"]))) { error in
            XCTAssertEqual((error as? HLSError)?.code, .noMatch)
            XCTAssertTrue((error as? HLSError)?.message.contains("en (English), es (Español)") == true)
        }
    }

    func testAudioMuxedInTheVariantSelectsNoRendition() throws {
        // The default has no URI: it is the variant's own audio.
        let muxedDefault = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="en",NAME="Main",DEFAULT=YES,AUTOSELECT=YES
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="de",NAME="Deutsch",URI="de.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO="aud"
            v.m3u8
            """
        XCTAssertEqual(try parseMaster(muxedDefault).select(HLSOptions()).audio, [])
        XCTAssertEqual(try parseMaster(muxedDefault).select(HLSOptions(audio: ["de"])).audio.map(\.name), ["Deutsch"])
        // No DEFAULT=YES: the first with a URI.
        let noDefault = muxedDefault.replacingOccurrences(of: "DEFAULT=YES,", with: "")
        XCTAssertEqual(try parseMaster(noDefault).select(HLSOptions()).audio.map(\.name), ["Deutsch"])
        let noGroup = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n"
        XCTAssertEqual(try parseMaster(noGroup).select(HLSOptions()), RenditionSelection(
            variant: Variant(uri: "https://cdn.example.com/show/ep1/v.m3u8", bandwidth: 1)))
    }

    func testMasterWithoutVariantsIsAnError() throws {
        let master = try parseMaster("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",URI=\"a.m3u8\"\n")
        XCTAssertThrowsError(try master.select(HLSOptions())) { error in
            XCTAssertEqual((error as? HLSError)?.code, .noMatch)
        }
    }
}
