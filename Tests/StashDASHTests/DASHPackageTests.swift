import StashCore
import StashDASH
import XCTest

/// Choosing representations by the HLS options, and the package of what was chosen: its files
/// and its local MPD, which the reader reads back to the same segments.
final class DASHPackageTests: XCTestCase {
    private let mpdText = """
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT8S">
          <Period>
            <AdaptationSet contentType="video" mimeType="video/mp4">
              <SegmentTemplate timescale="1000" media="$RepresentationID$/$Number$.m4s" initialization="$RepresentationID$/init.mp4">
                <SegmentTimeline><S t="0" d="2000" r="3"/></SegmentTimeline>
              </SegmentTemplate>
              <Representation id="low" bandwidth="600000" width="640" height="360" frameRate="30000/1001" codecs="avc1.64001e"/>
              <Representation id="mid" bandwidth="1600000" width="1280" height="720" frameRate="30000/1001" codecs="avc1.64001f"/>
              <Representation id="high" bandwidth="4000000" width="1920" height="1080" frameRate="30000/1001" codecs="avc1.640028"/>
            </AdaptationSet>
            <AdaptationSet contentType="audio" mimeType="audio/mp4" lang="en">
              <Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>
              <SegmentTemplate timescale="48000" duration="96000" media="a-en-$RepresentationID$-$Number$.m4s" initialization="a-en-$RepresentationID$.mp4"/>
              <Representation id="64k" bandwidth="64000" codecs="mp4a.40.2"/>
              <Representation id="128k" bandwidth="128000" codecs="mp4a.40.2"/>
            </AdaptationSet>
            <AdaptationSet contentType="audio" mimeType="audio/mp4" lang="fr-CA">
              <SegmentTemplate timescale="48000" duration="96000" media="a-fr-$Number$.m4s" initialization="a-fr.mp4"/>
              <Representation id="fr" bandwidth="96000" codecs="mp4a.40.2"/>
            </AdaptationSet>
            <AdaptationSet contentType="text" mimeType="text/vtt" lang="de">
              <Representation id="subs-de" bandwidth="200"><BaseURL>subs/de.vtt</BaseURL></Representation>
            </AdaptationSet>
          </Period>
        </MPD>
        """

    private func chosen(_ options: HLSOptions) throws -> [String] {
        try parseMPD(mpdText).select(options).map(\.representation.id)
    }

    func testChoiceFollowsTheHLSRules() throws {
        XCTAssertEqual(try chosen(HLSOptions()), ["high", "128k"])
        XCTAssertEqual(try chosen(HLSOptions(quality: .low)), ["low", "64k"])
        XCTAssertEqual(try chosen(HLSOptions(quality: .medium)), ["mid", "128k"])
        XCTAssertEqual(try chosen(HLSOptions(maxHeight: 720)), ["mid", "128k"])
        XCTAssertEqual(try chosen(HLSOptions(bandwidth: 2_000_000)), ["mid", "128k"])
        XCTAssertEqual(try chosen(HLSOptions(bandwidth: 1)), ["low", "128k"])
        XCTAssertEqual(try chosen(HLSOptions(subtitles: ["de"], audio: ["fr", "en"])), ["high", "fr", "128k", "subs-de"])
        XCTAssertEqual(try chosen(HLSOptions(subtitles: ["all"], audio: ["all"])), ["high", "128k", "fr", "subs-de"])
        XCTAssertThrowsError(try chosen(HLSOptions(maxHeight: 100))) { error in
            XCTAssertTrue("\(error)".contains("the smallest is 360 pixels high"), "\(error)")
        }
        XCTAssertThrowsError(try chosen(HLSOptions(audio: ["ja"]))) { error in
            XCTAssertTrue("\(error)".contains("no audio adaptation set has language 'ja'; available: en, fr-CA"), "\(error)")
        }
    }

    func testPackageFilesAndItsLocalMPDReadBack() throws {
        let mpd = try parseMPD(mpdText)
        let tracks = try mpd.select(HLSOptions(quality: .low, subtitles: ["de"]))
        XCTAssertEqual(tracks.map(\.folder), ["video", "audio/en", "subtitles/de"])
        let package = try DASHPackage.make(mpd: mpd, tracks: tracks)
        XCTAssertEqual(package.files.map(\.path), [
            "video/init.mp4", "video/seg00000.m4s", "video/seg00001.m4s", "video/seg00002.m4s", "video/seg00003.m4s",
            "audio/en/init.mp4", "audio/en/seg00000.m4s", "audio/en/seg00001.m4s", "audio/en/seg00002.m4s", "audio/en/seg00003.m4s",
            "subtitles/de/seg00000.vtt",
        ])
        XCTAssertEqual(package.files[1].url, "https://cdn.example.com/vod/show/low/1.m4s")
        XCTAssertEqual(package.files[10].url, "https://cdn.example.com/vod/show/subs/de.vtt")
        XCTAssertEqual(package.quality, "640x360, 0.6 Mb/s")
        XCTAssertTrue(package.hasSubtitles)
        XCTAssertEqual(package.estimatedBytes, 600_000 + 64000 + 200)
        XCTAssertFalse(package.sizeIsExact)

        let local = try MPD.parse(Array(package.manifest.utf8), url: "https://local.invalid/pkg/manifest.mpd")
        XCTAssertEqual(local.duration, 8)
        let video = try local.segments(of: "low")
        XCTAssertEqual(video.initialization?.url, "https://local.invalid/pkg/video/init.mp4")
        XCTAssertEqual(video.media.map(\.url), (0..<4).map { "https://local.invalid/pkg/video/seg0000\($0).m4s" })
        XCTAssertEqual(video.media.map(\.start), [0, 2, 4, 6])
        XCTAssertEqual(local.periods[0].adaptationSets.map(\.kind), [.video, .audio, .text])
        XCTAssertEqual(local.periods[0].adaptationSets[0].representations[0].frameRate ?? 0, 30000.0 / 1001, accuracy: 1e-9)
        XCTAssertEqual(try local.segments(of: "subs-de").media.map(\.url), ["https://local.invalid/pkg/subtitles/de/seg00000.vtt"])
    }

    func testTimeRangeKeepsTheOverlappingSegments() throws {
        let mpd = try parseMPD(mpdText)
        let tracks = try mpd.select(HLSOptions(quality: .low))
        let package = try DASHPackage.make(mpd: mpd, tracks: tracks, start: 3, end: 5)
        XCTAssertEqual(package.files.filter { $0.path.hasPrefix("video/") }.map(\.url).map { String($0.split(separator: "/").last!) },
                       ["init.mp4", "2.m4s", "3.m4s"])
        XCTAssertEqual(package.duration, 2)
        let local = try MPD.parse(Array(package.manifest.utf8), url: "https://local.invalid/manifest.mpd")
        XCTAssertEqual(try local.segments(of: "low").media.map(\.start), [2, 4])
        XCTAssertThrowsError(try DASHPackage.make(mpd: mpd, tracks: tracks, start: 8))
        XCTAssertThrowsError(try DASHPackage.make(mpd: mpd, tracks: tracks, start: 4, end: 4))
        XCTAssertEqual(try DASHPackage.make(mpd: mpd, tracks: tracks, start: 6, end: 100).window?.end, 8)
    }

    func testManifestInfoListsRepresentationsAndTracks() throws {
        let info = try ManifestInfo(mpd: parseMPD(mpdText))
        XCTAssertEqual(info.variants.map(\.height), [360, 720, 1080])
        XCTAssertEqual(info.variants.map(\.estimatedBytes), [600_000, 1_600_000, 4_000_000])
        XCTAssertEqual(info.audio.map(\.language), ["en", "fr-CA"])
        XCTAssertEqual(info.audio.map(\.isDefault), [true, false])
        XCTAssertEqual(info.subtitles.map(\.language), ["de"])
        XCTAssertEqual(info.duration, 8)
        XCTAssertEqual(try ManifestInfo(mpd: parseMPD(mpdText), start: 2, end: 4).variants[0].estimatedBytes, 150_000)
    }

    func testManifestInfoIsExactForASegmentListOfRanges() throws {
        let mpd = try parseMPD(templateMPD("""
            <BaseURL>one.mp4</BaseURL>
            <SegmentList duration="5"><Initialization range="0-99"/><SegmentURL mediaRange="100-1099"/><SegmentURL mediaRange="1100-1599"/></SegmentList>
            """))
        let info = try ManifestInfo(mpd: mpd)
        XCTAssertEqual(info.variants.map(\.estimatedBytes), [1600])
        XCTAssertEqual(info.variants.map(\.sizeIsExact), [true])
    }
}
