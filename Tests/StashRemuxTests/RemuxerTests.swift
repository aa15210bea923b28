import Foundation
import StashCore
import StashTestSupport
import XCTest

@testable import StashRemux

/// Remuxes an HLS stream made by ffmpeg (a video variant, two audio renditions, two WebVTT
/// renditions whose cues X-TIMESTAMP-MAP ties to the 1.4 s the MPEG-TS starts at) into one
/// file, and checks it with ffprobe and ffmpeg.
final class RemuxerTests: XCTestCase {
    private func fixture() throws -> HLSFixture {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        return try HLSFixture.shared("ts-audio-clear") { try HLSFixture.tsAudioRenditions(in: $0, encrypted: false) }
    }

    /// The files a media playlist names, in order, one chunk each.
    private func files(of playlist: String, in fixture: HLSFixture) throws -> [[UInt8]] {
        let path = fixture.directory + "/" + playlist
        let folder = (path as NSString).deletingLastPathComponent
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("#") }.map {
            Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)))
        }
    }

    private func job(_ format: ExportFormat, _ fixture: HLSFixture, video: ChunkSource? = nil) throws -> RemuxJob {
        let videoSource = try video ?? .chunks(try files(of: fixture.variants[0].path, in: fixture))
        var media = [MediaTrackInput(source: videoSource, name: "video", role: .main)]
        for (index, audio) in fixture.audio.enumerated() {
            media.append(MediaTrackInput(
                source: .chunks(try files(of: audio.path, in: fixture)), name: "audio/\(audio.language)", role: .audio,
                language: audio.language, title: audio.name, isDefault: index == 0))
        }
        var subtitles = try fixture.subtitles.map { subtitle in
            SubtitleTrackInput(
                source: .chunks(try files(of: subtitle.path, in: fixture)), name: "subtitles/\(subtitle.language)", format: .webvtt,
                language: subtitle.language, title: subtitle.name, onMediaClock: true)
        }
        let srt = "1\n00:00:01,000 --> 00:00:02,500\nA side-loaded <i>track</i>\n\n2\n00:00:03,000 --> 00:00:04,000\nTwo\n"
        subtitles.append(SubtitleTrackInput(
            source: .chunks([Array(srt.utf8)]), name: "subtitles/fr.srt", format: .subrip, language: "fr", onMediaClock: false))
        return RemuxJob(format: format, media: media, subtitles: subtitles)
    }

    private func remux(_ job: RemuxJob, to path: String) throws -> [ExportTrack] {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        return try Remuxer.run(job, to: fd, path: path)
    }

    private func scratch() throws -> String {
        let folder = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-remux")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }

    func testEveryRenditionBecomesATrackWithItsLanguage() throws {
        let fixture = try fixture()
        let sourceFrames = try MediaProbe.videoFrameHashes(of: fixture.directory + "/" + fixture.variants[0].path)
        XCTAssertEqual(sourceFrames.count, fixture.seconds * HLSFixture.frameRate)
        for (format, subtitleCodec, languages) in [(ExportFormat.mp4, "mov_text", ["eng", "spa", "fra"]), (.mkv, "webvtt", ["eng", "spa", "fre"])] {
            let path = try scratch() + "/out." + format.rawValue
            let tracks = try remux(try job(format, fixture), to: path)
            XCTAssertEqual(tracks.map(\.kind), [.video, .audio, .audio, .subtitles, .subtitles, .subtitles], "\(format)")
            XCTAssertEqual(tracks.map(\.codec), ["h264", "aac", "aac", subtitleCodec, subtitleCodec, format == .mp4 ? "mov_text" : "subrip"])

            let probed = try MediaProbe.summary(of: path)
            XCTAssertEqual(probed.streams.map(\.type), ["video", "audio", "audio", "subtitle", "subtitle", "subtitle"], "\(format)")
            XCTAssertEqual(probed.streams("audio").map(\.language), ["eng", "spa"], "\(format)")
            XCTAssertEqual(probed.streams("audio").map(\.isDefault), [true, false], "\(format)")
            XCTAssertEqual(probed.streams("subtitle").map(\.language), languages.map { $0 }, "\(format)")
            XCTAssertEqual(probed.streams("subtitle").map(\.codec), [subtitleCodec, subtitleCodec, format == .mp4 ? "mov_text" : "subrip"])
            XCTAssertEqual(probed.duration, Double(fixture.seconds), accuracy: 0.2, "\(format)")
            XCTAssertEqual(try MediaProbe.videoFrameHashes(of: path), sourceFrames, "\(format): the same pictures, not re-encoded")
            // The rendition's cues start at LOCAL 0, which its map ties to the video's first
            // frame: the file's 0. The side-loaded one's are from the file's 0 as they are.
            let englishCues = try MediaProbe.packetTimes(of: path, stream: 3).filter { $0 >= 0 }
            XCTAssertEqual(englishCues.first ?? -1, 0, accuracy: 0.01, "\(format): \(englishCues)")
            XCTAssertTrue(englishCues.contains { abs($0 - 4) < 0.01 }, "\(format): \(englishCues)")
            XCTAssertTrue(try MediaProbe.packetTimes(of: path, stream: 5).contains { abs($0 - 1) < 0.01 }, "\(format)")
        }
    }

    func testAFragmentedMP4StreamIsRemuxed() throws {
        try XCTSkipUnless(HLSFixture.isAvailable, "ffmpeg and ffprobe are needed (make deps installs them)")
        let fixture = try HLSFixture.shared("fmp4") { try HLSFixture.fmp4(in: $0) }
        let folder = fixture.directory + "/" + (fixture.variants[0].path as NSString).deletingLastPathComponent
        let initSection = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/init.mp4")))
        let chunks = [initSection] + (try files(of: fixture.variants[0].path, in: fixture))
        for format in ExportFormat.allCases {
            let media = MediaTrackInput(source: .chunks(chunks), name: "video", role: .main)
            let path = try scratch() + "/out." + format.rawValue
            let tracks = try remux(RemuxJob(format: format, media: [media]), to: path)
            XCTAssertEqual(tracks.map(\.codec), ["h264", "aac"], "\(format)")
            XCTAssertEqual(try MediaProbe.summary(of: path).duration, Double(fixture.seconds), accuracy: 0.2, "\(format)")
            XCTAssertEqual(
                try MediaProbe.videoFrameHashes(of: path), try MediaProbe.videoFrameHashes(of: fixture.directory + "/" + fixture.variants[0].path))
        }
    }

    func testASpanningCueIsKeptOnce() throws {
        let segment0 = Array("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n\n00:01.000 --> 00:05.000\nAcross\n".utf8)
        let segment1 = Array("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n\n00:01.000 --> 00:05.000\nAcross\n\n00:05.000 --> 00:06.000\nAfter\n".utf8)
        let track = SubtitleTrackInput(source: .chunks([segment0, [], segment1]), name: "subs", format: .webvtt, language: "en", onMediaClock: true)
        let cues = try SubtitleReader.cues(of: track)
        XCTAssertEqual(cues.map(\.start), [1_000_000, 5_000_000])
        XCTAssertEqual(cues.map { String(decoding: $0.text, as: UTF8.self) }, ["Across", "After"])
    }

    func testAFailingSourceStopsTheRemuxWithItsError() throws {
        let fixture = try fixture()
        struct Gone: Error {}
        var chunks = try files(of: fixture.variants[0].path, in: fixture)[...]
        let failing = ChunkSource {
            guard chunks.count > 1 else { throw Gone() }
            return chunks.popFirst()
        }
        let path = try scratch() + "/out.mp4"
        XCTAssertThrowsError(try remux(try job(.mp4, fixture, video: failing), to: path)) { error in
            XCTAssertTrue(error is Gone, "the source's own error, not libav's code for it: \(error)")
        }
    }

    func testAnInputWithoutMediaIsNamed() throws {
        // Text where the video belongs.
        let vtt = Array("WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n".utf8)
        let job = RemuxJob(format: .mp4, media: [MediaTrackInput(source: .chunks([vtt]), name: "video", role: .main)])
        let path = try scratch() + "/out.mp4"
        XCTAssertThrowsError(try remux(job, to: path)) { error in
            XCTAssertTrue("\(error)".contains("video: has no video or audio stream"), "\(error)")
        }
    }
}
