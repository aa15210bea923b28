@testable import StashDASH
import XCTest

/// MPDs of the shapes the common packagers write, read into periods, representations and
/// segments.
final class MPDParseTests: XCTestCase {
    /// ffmpeg's dash muxer: a SegmentTemplate with a SegmentTimeline in each Representation,
    /// `$Number%05d$`, a 12800 timescale.
    func testFFmpegDashMuxerShape() throws {
        let mpd = try parseMPD("""
            <?xml version="1.0" encoding="utf-8"?>
            <MPD xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="urn:mpeg:dash:schema:mpd:2011"
                profiles="urn:mpeg:dash:profile:isoff-live:2011" type="static" mediaPresentationDuration="PT10.0S"
                maxSegmentDuration="PT2.0S" minBufferTime="PT4.0S">
              <ProgramInformation></ProgramInformation>
              <ServiceDescription id="0"></ServiceDescription>
              <Period id="0" start="PT0.0S">
                <AdaptationSet id="0" contentType="video" startWithSAP="1" segmentAlignment="true" bitstreamSwitching="true"
                    frameRate="25/1" maxWidth="1280" maxHeight="720" par="16:9" lang="und">
                  <Representation id="0" mimeType="video/mp4" codecs="avc1.64001f" bandwidth="1500000" width="1280" height="720" sar="1:1">
                    <SegmentTemplate timescale="12800" initialization="init-stream$RepresentationID$.m4s"
                        media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1">
                      <SegmentTimeline>
                        <S t="0" d="25600" r="3" />
                        <S d="25600" />
                      </SegmentTimeline>
                    </SegmentTemplate>
                  </Representation>
                  <Representation id="1" mimeType="video/mp4" codecs="avc1.64001e" bandwidth="500000" width="640" height="360" sar="1:1">
                    <SegmentTemplate timescale="12800" initialization="init-stream$RepresentationID$.m4s"
                        media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1">
                      <SegmentTimeline><S t="0" d="25600" r="4" /></SegmentTimeline>
                    </SegmentTemplate>
                  </Representation>
                </AdaptationSet>
                <AdaptationSet id="1" contentType="audio" startWithSAP="1" segmentAlignment="true" bitstreamSwitching="true" lang="en">
                  <Representation id="2" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="128000" audioSamplingRate="48000">
                    <AudioChannelConfiguration schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="2" />
                    <SegmentTemplate timescale="48000" initialization="init-stream$RepresentationID$.m4s"
                        media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1">
                      <SegmentTimeline><S t="0" d="96256" /><S d="95232" r="3" /></SegmentTimeline>
                    </SegmentTemplate>
                  </Representation>
                </AdaptationSet>
              </Period>
            </MPD>
            """)
        XCTAssertEqual(mpd.duration, 10)
        XCTAssertEqual(mpd.periods.count, 1)
        let sets = mpd.periods[0].adaptationSets
        XCTAssertEqual(sets.map(\.kind), [.video, .audio])
        XCTAssertEqual(sets[1].lang, "en")
        let video = sets[0].representations[0]
        XCTAssertEqual(video.bandwidth, 1_500_000)
        XCTAssertEqual(video.width, 1280)
        XCTAssertEqual(video.height, 720)
        XCTAssertEqual(video.frameRate, 25)
        XCTAssertEqual(video.codecs, "avc1.64001f")
        XCTAssertEqual(video.mimeType, "video/mp4")
        XCTAssertEqual(video.segmentCount, 5)
        let segments = try mpd.segments(of: "0")
        XCTAssertEqual(segments.initialization?.url, "https://cdn.example.com/vod/show/init-stream0.m4s")
        XCTAssertEqual(segments.media.map(\.url).first, "https://cdn.example.com/vod/show/chunk-stream0-00001.m4s")
        XCTAssertEqual(segments.media.map(\.url).last, "https://cdn.example.com/vod/show/chunk-stream0-00005.m4s")
        XCTAssertEqual(segments.media.map(\.start), [0, 2, 4, 6, 8])
        XCTAssertEqual(segments.media.map(\.duration), [2, 2, 2, 2, 2])
        let audio = try mpd.segments(of: "2")
        XCTAssertEqual(audio.media.count, 5)
        XCTAssertEqual(audio.media[1].start, 96256.0 / 48000, accuracy: 1e-9)
    }

    /// Shaka packager's on-demand profile: one file per representation (SegmentBase with an
    /// indexRange and an Initialization range), a WebVTT file as a text track, ContentProtection.
    func testShakaPackagerOnDemandShape() throws {
        let mpd = try parseMPD("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!--Generated with https://github.com/shaka-project/shaka-packager version v2.6.1-->
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013"
                profiles="urn:mpeg:dash:profile:isoff-on-demand:2011" minBufferTime="PT2S" type="static"
                mediaPresentationDuration="PT634.566S">
              <Period id="0">
                <AdaptationSet id="0" contentType="text" lang="de" subsegmentAlignment="true">
                  <Role schemeIdUri="urn:mpeg:dash:role:2011" value="subtitle"/>
                  <Representation id="0" bandwidth="256" mimeType="text/vtt">
                    <BaseURL>subs/de.vtt</BaseURL>
                  </Representation>
                </AdaptationSet>
                <AdaptationSet id="1" contentType="video" width="1920" height="1080" frameRate="24000/1001" subsegmentAlignment="true" par="16:9">
                  <ContentProtection value="cenc" schemeIdUri="urn:mpeg:dash:mp4protection:2011" cenc:default_KID="6e5a1d26-2757-47d7-8046-eaa5d1d34b5a"/>
                  <ContentProtection schemeIdUri="urn:uuid:E2719D58-A985-B3C9-781A-B030AF78D30E"/>
                  <Representation id="1" bandwidth="4190760" codecs="avc1.640028" mimeType="video/mp4" sar="1:1">
                    <BaseURL>video/1080p.mp4</BaseURL>
                    <SegmentBase indexRange="1305-2848" timescale="24000">
                      <Initialization range="0-1304"/>
                    </SegmentBase>
                  </Representation>
                </AdaptationSet>
              </Period>
            </MPD>
            """)
        XCTAssertEqual(mpd.duration, 634.566, accuracy: 1e-9)
        let text = mpd.periods[0].adaptationSets[0]
        XCTAssertEqual(text.kind, .text)
        XCTAssertEqual(text.roles, ["subtitle"])
        XCTAssertEqual(try mpd.segments(of: "0").media.map(\.url), ["https://cdn.example.com/vod/show/subs/de.vtt"])
        let video = mpd.periods[0].adaptationSets[1]
        XCTAssertEqual(video.protections.map(\.schemeIdUri), [ContentProtection.mp4Protection, ContentProtection.clearKeySystem])
        XCTAssertEqual(video.protections[0].defaultKID, "6e5a1d26-2757-47d7-8046-eaa5d1d34b5a")
        let representation = video.representations[0]
        XCTAssertEqual(representation.width, 1920)
        XCTAssertEqual(representation.frameRate ?? 0, 24000.0 / 1001, accuracy: 1e-9)
        XCTAssertNil(representation.segmentCount)
        XCTAssertEqual(representation.addressing, .base(SegmentBase(
            url: "https://cdn.example.com/vod/show/video/1080p.mp4", initialization: MediaRange(offset: 0, length: 1305),
            indexRange: MediaRange(offset: 1305, length: 1544), timescale: 24000, presentationTimeOffset: 0)))
    }

    /// The DASH-IF test vectors' common shape: one SegmentTemplate with @duration on the
    /// adaptation set for all its representations, `$RepresentationID$/$Number$.m4s`, audio in
    /// two languages with roles, an absolute BaseURL on the MPD and relative ones below it.
    func testAdaptationSetTemplateWithDurationAndBaseURLsAtEveryLevel() throws {
        let mpd = try parseMPD("""
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT1M1S" minBufferTime="PT2S"
                 profiles="urn:mpeg:dash:profile:isoff-live:2011">
              <BaseURL>https://media.example.org/dash/</BaseURL>
              <Period>
                <BaseURL>period1/</BaseURL>
                <AdaptationSet mimeType="video/mp4" segmentAlignment="true" maxWidth="1920" maxHeight="1080">
                  <SegmentTemplate timescale="90000" duration="180000" startNumber="0" initialization="$RepresentationID$/init.mp4"
                      media="$RepresentationID$/$Number$.m4s?br=$Bandwidth$&amp;x=$$"/>
                  <Representation id="V300" bandwidth="300000" width="640" height="360" codecs="avc1.4D401E" frameRate="30"/>
                  <Representation id="V1200" bandwidth="1200000" width="1920" height="1080" codecs="avc1.640028" frameRate="30"/>
                </AdaptationSet>
                <AdaptationSet mimeType="audio/mp4" lang="en">
                  <Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>
                  <BaseURL>/audio/</BaseURL>
                  <SegmentTemplate timescale="48000" duration="96000" media="$RepresentationID$-$Number%03d$.mp4" initialization="$RepresentationID$-i.mp4"/>
                  <Representation id="A_en" bandwidth="96000" codecs="mp4a.40.2"/>
                </AdaptationSet>
                <AdaptationSet mimeType="audio/mp4" lang="fr">
                  <Role schemeIdUri="urn:mpeg:dash:role:2011" value="dub"/>
                  <SegmentTemplate timescale="48000" duration="96000" media="fr/$Number$.mp4"/>
                  <Representation id="A_fr" bandwidth="96000" codecs="mp4a.40.2"><BaseURL>https://other.example.net/x/</BaseURL></Representation>
                </AdaptationSet>
              </Period>
            </MPD>
            """)
        let sets = mpd.periods[0].adaptationSets
        XCTAssertEqual(sets.map(\.kind), [.video, .audio, .audio])
        XCTAssertEqual(sets.map(\.lang), [nil, "en", "fr"])
        XCTAssertEqual(sets.map(\.roles), [[], ["main"], ["dub"]])
        XCTAssertEqual(sets[0].representations.map(\.segmentCount), [31, 31])
        let video = try mpd.segments(of: "V1200")
        XCTAssertEqual(video.initialization?.url, "https://media.example.org/dash/period1/V1200/init.mp4")
        XCTAssertEqual(video.media[0].url, "https://media.example.org/dash/period1/V1200/0.m4s?br=1200000&x=$")
        XCTAssertEqual(video.media[30].url, "https://media.example.org/dash/period1/V1200/30.m4s?br=1200000&x=$")
        // 61 s in 2 s segments: the last one is the second left.
        XCTAssertEqual(video.media[30].start, 60)
        XCTAssertEqual(video.media[30].duration, 1)
        let english = try mpd.segments(of: "A_en")
        XCTAssertEqual(english.media[0].url, "https://media.example.org/audio/A_en-001.mp4")
        XCTAssertEqual(english.initialization?.url, "https://media.example.org/audio/A_en-i.mp4")
        XCTAssertEqual(try mpd.segments(of: "A_fr").media[2].url, "https://other.example.net/x/fr/3.mp4")
    }

    /// `$Time$` with a SegmentTimeline whose last S repeats to the period's end (`r="-1"`), a
    /// presentationTimeOffset, and an earlier negative repeat up to the next S@t.
    func testTimeTemplateAndNegativeRepeats() throws {
        let mpd = try parseMPD(templateMPD("""
            <SegmentTemplate timescale="1000" presentationTimeOffset="5000" media="v/$Time$.m4s" initialization="v/init.m4s">
              <SegmentTimeline>
                <S t="5000" d="2000" r="-1"/>
                <S t="11000" d="1000"/>
                <S d="3000" r="-1"/>
              </SegmentTimeline>
            </SegmentTemplate>
            """, duration: "PT14S"))
        let segments = try mpd.segments(of: "v0")
        XCTAssertEqual(segments.media.map(\.url).map { String($0.split(separator: "/").last!) },
                       ["5000.m4s", "7000.m4s", "9000.m4s", "11000.m4s", "12000.m4s", "15000.m4s", "18000.m4s"])
        XCTAssertEqual(segments.media.map(\.start), [0, 2, 4, 6, 7, 10, 13])
    }

    /// SegmentList with SegmentURL@media and @mediaRange, and an Initialization with a range.
    func testSegmentListWithMediaRanges() throws {
        let mpd = try parseMPD(templateMPD("""
            <BaseURL>one-file.mp4</BaseURL>
            <SegmentList timescale="10" duration="40">
              <Initialization sourceURL="init.mp4" range="0-99"/>
              <SegmentURL mediaRange="100-1099"/>
              <SegmentURL mediaRange="1100-2099"/>
              <SegmentURL media="tail.mp4"/>
            </SegmentList>
            """))
        let list = try mpd.segments(of: "v0")
        XCTAssertEqual(list.initialization, DASHSegment(url: "https://cdn.example.com/vod/show/init.mp4", range: MediaRange(offset: 0, length: 100), start: 0, duration: 0))
        XCTAssertEqual(list.media.map(\.url), ["https://cdn.example.com/vod/show/one-file.mp4", "https://cdn.example.com/vod/show/one-file.mp4",
                                                "https://cdn.example.com/vod/show/tail.mp4"])
        XCTAssertEqual(list.media.map(\.range), [MediaRange(offset: 100, length: 1000), MediaRange(offset: 1100, length: 1000), nil])
        XCTAssertEqual(list.media.map(\.start), [0, 4, 8])
    }

    /// Periods in a row: starts from @start or the previous period's end, the last one ending at
    /// mediaPresentationDuration.
    func testPeriodsInARow() throws {
        let period = { (attributes: String, id: String) in
            """
            <Period \(attributes)><AdaptationSet mimeType="video/mp4"><Representation id="\(id)" bandwidth="1000">
              <SegmentTemplate media="\(id)-$Number$.m4s" duration="2"/></Representation></AdaptationSet></Period>
            """
        }
        let mpd = try parseMPD("""
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT30S">
            \(period("id=\"ad\" duration=\"PT6S\"", "a"))\(period("start=\"PT6S\"", "b"))\(period("start=\"PT20S\"", "c"))
            </MPD>
            """)
        XCTAssertEqual(mpd.periods.map(\.start), [0, 6, 20])
        XCTAssertEqual(mpd.periods.map(\.duration), [6, 14, 10])
        XCTAssertEqual(mpd.periods.map { $0.adaptationSets[0].representations[0].segmentCount }, [3, 7, 5])
    }

    func testISO8601Durations() {
        let cases: [(String, Double?)] = [
            ("PT1H2M3.5S", 3723.5), ("P1DT2H", 93600), ("P0Y0M0DT0H3M30.000S", 210), ("PT0S", 0), ("PT10.0S", 10),
            ("P1Y", nil), ("P1M", nil), ("-PT5S", nil), ("PT", nil), ("P", nil), ("PT1.5H", nil), ("PT5S3M", nil), ("PT1e308S", nil),
            ("PT" + String(repeating: "9", count: 400) + "S", nil), ("1S", nil), ("PTS", nil),
        ]
        for (text, seconds) in cases {
            XCTAssertEqual(ISODuration.seconds(text), seconds, text)
        }
    }
}
