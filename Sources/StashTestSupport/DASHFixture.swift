import Foundation

/// A DASH presentation that ffmpeg's dash muxer makes from its test sources in a directory, for
/// tests that serve it (`TestHTTPServer.serveDirectory`): two video representations (256x144 at
/// bandwidth 200000, id 0; 426x240 at 600000, id 1) in one adaptation set, and two audio
/// adaptation sets, `en` (id 2) and `fr` (id 3), all in 2-second fragmented MP4 segments named
/// `chunk-stream<id>-<number>.m4s` after `init-stream<id>.m4s`. It takes about 0.3 s.
package struct DASHFixture: Sendable {
    package let directory: String
    package let manifestPath = "manifest.mpd"

    package static let seconds = 6
    package static let frameRate = 25
    package static let segmentsPerRepresentation = 3
    /// Video frames in either video representation.
    package static var frameCount: Int { seconds * frameRate }

    /// Makes the presentation in `directory`: with a SegmentTimeline in each SegmentTemplate
    /// (`timeline`), or with `@duration` alone.
    package static func make(in directory: String, timeline: Bool) throws -> DASHFixture {
        try make(in: directory, timeline: timeline, encryption: [])
    }

    /// The same, each representation encrypted with ClearKey CENC ('cenc', AES-CTR) under
    /// `key` named `keyID` (16 bytes each) by scripts/cenc-encrypt.py: encv/enca sample
    /// entries with sinf and tenc, and per fragment senc (8-byte IVs, subsamples for video),
    /// saiz and saio. ffmpeg 5.1's own encryption cannot be used: its dash muxer writes no
    /// per-sample IVs into the fragments. Like ffmpeg, the script writes no ContentProtection
    /// into the MPD; a test adds one (`contentProtection(keyID:)`). The clear segments stay
    /// beside it as `clear-<name>`, for comparison.
    package static func encrypted(in directory: String, key: [UInt8], keyID: [UInt8]) throws -> DASHFixture {
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
        let fixture = try make(in: directory, timeline: true, encryption: [])
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        for stream in 0..<4 {
            let files = ["init-stream\(stream).m4s"] + names.filter { $0.hasPrefix("chunk-stream\(stream)-") }
            for name in files { try FileManager.default.copyItem(atPath: directory + "/" + name, toPath: directory + "/clear-" + name) }
            try MediaTool.run("/usr/bin/python3", [encryptor, hex(key), hex(keyID)] + files.map { directory + "/" + $0 })
        }
        return fixture
    }

    /// ffmpeg's MD5 of each decoded frame of the first stream of each of `segments` after
    /// `initialization`, decrypted with `key` when given (ffmpeg's mov demuxer decrypts 'cenc'
    /// with `-decryption_key`). One segment at a time: in segments joined into one file,
    /// ffmpeg 5.1 follows the sidx boxes and loses the CENC information of later fragments.
    /// Throws on any decoder error.
    package static func frameHashes(initialization: String, segments: [String], key: [UInt8]? = nil) throws -> [String] {
        let joined = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-frames") + "/joined.mp4"
        let decryption = key.map { ["-decryption_key", $0.map { String(format: "%02x", $0) }.joined()] } ?? []
        var hashes: [String] = []
        for segment in segments {
            let data = try Data(contentsOf: URL(fileURLWithPath: initialization)) + Data(contentsOf: URL(fileURLWithPath: segment))
            try data.write(to: URL(fileURLWithPath: joined))
            let output = try MediaTool.run(
                "ffmpeg", ["-nostdin", "-v", "error"] + decryption + ["-i", joined, "-map", "0:0", "-f", "framemd5", "-"], failOnStderr: true)
            hashes += output.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        }
        return hashes
    }

    /// The test encryptor, next to the package's sources.
    private static var encryptor: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/cenc-encrypt.py").path
    }

    /// The ContentProtection elements of a ClearKey CENC adaptation set for `keyID`.
    package static func contentProtection(keyID: [UInt8]) -> String {
        let hex = keyID.map { String(format: "%02x", $0) }.joined()
        let uuid = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
            .joined(separator: "-")
        return """
            <ContentProtection xmlns:cenc="urn:mpeg:cenc:2013" schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" cenc:default_KID="\(uuid)"/>
            <ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e" value="ClearKey1.0"/>
            """
    }

    private static func make(in directory: String, timeline: Bool, encryption: [String]) throws -> DASHFixture {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let source = ["-f", "lavfi", "-i", "testsrc2=size=256x144:rate=\(frameRate):duration=\(seconds)"]
        let tones = ["-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)", "-f", "lavfi", "-i", "sine=frequency=660:duration=\(seconds)"]
        let encode = [
            "-map", "0:v", "-map", "0:v", "-map", "1:a", "-map", "2:a", "-c:v", "libx264", "-preset", "ultrafast",
            "-g", "\(2 * frameRate)", "-keyint_min", "\(2 * frameRate)", "-sc_threshold", "0",
            "-b:v:0", "200k", "-s:v:0", "256x144", "-b:v:1", "600k", "-s:v:1", "426x240",
            "-c:a", "aac", "-b:a", "64k", "-metadata:s:a:0", "language=en", "-metadata:s:a:1", "language=fr",
        ]
        let dash = encryption + [
            "-use_timeline", timeline ? "1" : "0", "-use_template", "1", "-seg_duration", "2",
            "-adaptation_sets", "id=0,streams=v id=1,streams=2 id=2,streams=3", "-f", "dash", directory + "/manifest.mpd",
        ]
        try MediaTool.run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + source + tones + encode + dash)
        return DASHFixture(directory: directory)
    }

    /// One file per representation (ffmpeg's `-single_file 1 -global_sidx 1`): `manifest.mpd`
    /// addresses its segments as SegmentLists of `mediaRange`s, and `segment-base.mpd`, written
    /// here from it, as SegmentBases whose `indexRange` is each file's `sidx` box. One video
    /// representation (`manifest-stream0.mp4`, 256x144), or with `twoRepresentations` a second,
    /// `manifest-stream1.mp4`, 426x240 at 600 kb/s beside the first at 200 kb/s.
    package static func singleFile(in directory: String, twoRepresentations: Bool = false) throws -> DASHFixture {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let second = twoRepresentations ? ["-map", "0:v", "-b:v:0", "200k", "-b:v:1", "600k", "-s:v:1", "426x240", "-adaptation_sets", "id=0,streams=v"] : []
        try MediaTool.run("ffmpeg", [
            "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=256x144:rate=\(frameRate):duration=\(seconds)",
            "-map", "0:v"] + second + ["-c:v", "libx264", "-preset", "ultrafast", "-g", "\(2 * frameRate)", "-keyint_min", "\(2 * frameRate)",
            "-sc_threshold", "0", "-single_file", "1", "-global_sidx", "1", "-seg_duration", "2", "-f", "dash", directory + "/manifest.mpd",
        ])
        var text = try String(contentsOfFile: directory + "/manifest.mpd", encoding: .utf8)
        // ffmpeg writes the representations in stream order, each with one SegmentList.
        for stream in 0..<(twoRepresentations ? 2 : 1) {
            let sidx = try sidxRange(in: directory + "/manifest-stream\(stream).mp4")
            guard let open = text.range(of: "<SegmentList"), let close = text.range(of: "</SegmentList>") else {
                throw HLSFixtureError("ffmpeg wrote no SegmentList for stream \(stream) in \(directory)/manifest.mpd:\n\(text)")
            }
            let base = "<SegmentBase indexRange=\"\(sidx.start)-\(sidx.end)\"><Initialization range=\"0-\(sidx.start - 1)\"/></SegmentBase>"
            text.replaceSubrange(open.lowerBound..<close.upperBound, with: base)
        }
        try text.write(toFile: directory + "/segment-base.mpd", atomically: true, encoding: .utf8)
        return DASHFixture(directory: directory)
    }

    /// The first and last byte of the top-level `sidx` box of the MP4 file at `path`.
    private static func sidxRange(in path: String) throws -> (start: Int, end: Int) {
        let media = try Data(contentsOf: URL(fileURLWithPath: path))
        var offset = 0
        while offset + 8 <= media.count {
            let size = media[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: media[offset + 4..<offset + 8], as: UTF8.self) == "sidx" { return (offset, offset + size - 1) }
            guard size >= 8 else { break }
            offset += size
        }
        throw HLSFixtureError("ffmpeg wrote no sidx box in \(path)")
    }

    /// Whether GStreamer's command line, DASH demuxer, MP4 demuxer and H.264 decoder are here.
    package static var isGStreamerAvailable: Bool {
        MediaTool.path(of: "gst-launch-1.0") != nil
            && ["dashdemux", "qtdemux", "avdec_h264"].allSatisfy { (try? MediaTool.run("gst-inspect-1.0", ["--exists", $0])) != nil }
    }

    /// Video frames GStreamer decodes from the MPD on disk at `manifest`, played as a media app
    /// plays it: playbin (dashdemux, which follows a change of period, qtdemux, avdec_h264) on
    /// its file URL, every frame reaching a fake sink as fast as it is decoded. Throws on any
    /// error or warning GStreamer reports.
    package static func gstreamerFrames(manifest: String) throws -> Int {
        let output = try MediaTool.run("gst-launch-1.0", [
            "-v", "playbin", "uri=" + URL(fileURLWithPath: manifest).absoluteString,
            "video-sink=fakesink name=frames silent=false sync=false", "audio-sink=fakesink sync=false",
        ], failOnStderr: true)
        return output.split(separator: "\n").filter { $0.contains("frames: last-message = chain") }.count
    }

    /// Frames ffmpeg decodes from the presentation's video at `manifest` (an MPD on disk).
    package static func decodedFrames(manifest: String) throws -> Int {
        try HLSFixture.decodedFrames(playlist: manifest)
    }
}
