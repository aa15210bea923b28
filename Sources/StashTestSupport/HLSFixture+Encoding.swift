import Foundation
import Synchronization

extension HLSFixture {
    enum SegmentKind {
        case ts, fmp4, singleFile
    }

    enum Encryption {
        case none
        /// The key info file names this IV; ffmpeg writes it in the playlist.
        case explicitIV(String)
        /// Each segment's IV is its media sequence number, and the playlist says no IV.
        case sequenceIV
    }

    struct VariantSpec {
        var name: String
        var width: Int
        var height: Int
        var bandwidth: Int
        /// The encoder's target and cap (VBV maxrate over a 1 s buffer), well under `bandwidth`
        /// once audio and container overhead are added.
        var videoKbps: Int
        var kind: SegmentKind
        var encryption: Encryption
        /// False for a variant whose audio is in renditions of its own.
        var muxedAudio = true
    }

    struct AudioSpec {
        var language: String
        var name: String
        /// Of the sine tone, so each language sounds (and encodes) differently.
        var frequency: Int
        var encryption: Encryption
    }

    struct SubtitleSpec {
        var language: String
        var name: String
        var line: String
    }

    /// Baseline profile, level 3.0 (x264 `-profile:v baseline -level:v 3.0`), and AAC-LC.
    static let codecs = "avc1.42c01e,mp4a.40.2"

    static func make(
        in directory: String, seconds: Int, specs: [VariantSpec], subtitles: [SubtitleSpec], audio: [AudioSpec] = [],
        key: (hex: String, path: String, uriFromVariant: String)?
    ) throws -> HLSFixture {
        guard seconds > 0 else { throw HLSFixtureError("an HLS fixture needs at least 1 second, not \(seconds)") }
        let files = FileManager.default
        try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for spec in specs { try files.createDirectory(atPath: directory + "/" + spec.name, withIntermediateDirectories: true) }

        // Key info files name the key by absolute path: they stay out of the served tree.
        let scratch = try DaemonProcess.makeTemporaryDirectory(prefix: "hls-fixture")
        defer { try? files.removeItem(atPath: scratch) }
        if let key {
            let keyFile = directory + "/" + key.path
            try files.createDirectory(atPath: (keyFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(hexBytes(key.hex)).write(to: URL(fileURLWithPath: keyFile))
        }

        let runs = try specs.map { try ffmpegArguments(for: $0, directory: directory, scratch: scratch, seconds: seconds, key: key) }
        let audioRuns = try audio.map { try ffmpegArguments(for: $0, directory: directory, scratch: scratch, seconds: seconds, key: key) }
        try runConcurrently(runs + audioRuns)

        var variants: [Variant] = []
        for spec in specs {
            let playlist = directory + "/" + spec.name + "/index.m3u8"
            if case .sequenceIV = spec.encryption { try dropSequenceIVs(playlist: playlist) }
            try checkVOD(playlist: playlist)
            var ivHex: String?
            if case .explicitIV(let iv) = spec.encryption { ivHex = iv }
            let bytes = try mediaBytes(of: spec, in: directory)
            variants.append(Variant(
                path: spec.name + "/index.m3u8", bandwidth: spec.bandwidth, averageBandwidth: bytes * 8 / seconds,
                width: spec.width, height: spec.height, codecs: codecs, frameCount: seconds * frameRate,
                segmentCount: (seconds + segmentSeconds - 1) / segmentSeconds,
                ivHex: ivHex, isEncrypted: key != nil))
        }
        let renditions = try subtitles.map { try writeSubtitles($0, in: directory, seconds: seconds) }
        let audioRenditions = try audio.map { spec -> Audio in
            let path = "audio/\(spec.language)/index.m3u8"
            try checkVOD(playlist: directory + "/" + path)
            return Audio(language: spec.language, name: spec.name, path: path)
        }
        let masterPath = "master.m3u8"
        try writeMaster(
            directory + "/" + masterPath, variants: variants, subtitles: renditions, audio: audioRenditions,
            fmp4: specs.contains { $0.kind == .fmp4 })
        return HLSFixture(
            directory: directory, masterPath: masterPath, variants: variants, subtitles: renditions, audio: audioRenditions,
            keyHex: key?.hex, keyPath: key?.path, seconds: seconds)
    }

    /// One ffmpeg run per variant, all at once: an x264 held to one thread is what makes the
    /// output the same every time, and separate processes get the speed back.
    static func runConcurrently(_ runs: [[String]]) throws {
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: runs.count) { index in
            do {
                try MediaTool.run("ffmpeg", runs[index])
            } catch {
                failures.record(error)
            }
        }
        if let error = failures.first { throw error }
    }

    private final class Failures: Sendable {
        private let errors = Mutex<[Error]>([])

        func record(_ error: Error) { errors.withLock { $0.append(error) } }
        var first: Error? { errors.withLock { $0.first } }
    }

    /// The ffmpeg arguments that make one variant from the test sources at its size.
    static func ffmpegArguments(
        for spec: VariantSpec, directory: String, scratch: String, seconds: Int,
        key: (hex: String, path: String, uriFromVariant: String)?
    ) throws -> [String] {
        let gop = String(segmentSeconds * frameRate)
        let folder = directory + "/" + spec.name
        var arguments = [
            "-nostdin", "-hide_banner", "-v", "error", "-y",
            "-f", "lavfi", "-i", "testsrc2=size=\(spec.width)x\(spec.height):rate=\(frameRate):duration=\(seconds)",
        ]
        if spec.muxedAudio {
            arguments += [
                "-f", "lavfi", "-i", "sine=frequency=440:beep_factor=4:sample_rate=48000:duration=\(seconds)", "-map", "0:v", "-map", "1:a",
            ]
        } else {
            arguments += ["-map", "0:v"]
        }
        arguments += [
            // One x264 thread: with more, rate control makes different bytes on every run.
            "-c:v", "libx264", "-preset", "ultrafast", "-threads:v", "1", "-profile:v", "baseline", "-level:v", "3.0",
            "-pix_fmt", "yuv420p",
            // A keyframe every segment, and only there, so segments cut at exactly 2 s.
            "-g", gop, "-keyint_min", gop, "-sc_threshold", "0",
            "-b:v", "\(spec.videoKbps)k", "-maxrate", "\(spec.videoKbps)k", "-bufsize", "\(spec.videoKbps)k",
            "-c:a", "aac", "-b:a", "64k", "-ac", "2",
            "-flags:v", "+bitexact", "-flags:a", "+bitexact", "-fflags", "+bitexact",
            "-f", "hls", "-hls_time", String(segmentSeconds), "-hls_playlist_type", "vod", "-hls_list_size", "0",
        ]
        var flags: [String] = []
        switch spec.kind {
        case .ts:
            arguments += ["-hls_segment_filename", folder + "/seg%03d.ts"]
        case .fmp4:
            arguments += ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename", folder + "/seg%03d.m4s"]
        case .singleFile:
            flags.append("single_file")
            arguments += ["-hls_segment_filename", folder + "/media.ts"]
        }
        if let key {
            arguments += try keyArguments(
                spec.encryption, uri: key.uriFromVariant, keyFile: directory + "/" + key.path, infoPath: scratch + "/\(spec.name).keyinfo",
                flags: &flags)
        }
        if !flags.isEmpty { arguments += ["-hls_flags", flags.joined(separator: "+")] }
        arguments.append(folder + "/index.m3u8")
        return arguments
    }

    /// The ffmpeg arguments that make one audio rendition in `audio/<language>/`: AAC in
    /// MPEG-TS segments of `segmentSeconds`, on the clock of the variants (both start at 1.4 s).
    static func ffmpegArguments(
        for spec: AudioSpec, directory: String, scratch: String, seconds: Int, key: (hex: String, path: String, uriFromVariant: String)?
    ) throws -> [String] {
        let folder = directory + "/audio/" + spec.language
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var arguments = [
            "-nostdin", "-hide_banner", "-v", "error", "-y",
            "-f", "lavfi", "-i", "sine=frequency=\(spec.frequency):beep_factor=2:sample_rate=48000:duration=\(seconds)",
            "-c:a", "aac", "-b:a", "64k", "-ac", "2", "-flags:a", "+bitexact", "-fflags", "+bitexact",
            "-f", "hls", "-hls_time", String(segmentSeconds), "-hls_playlist_type", "vod", "-hls_list_size", "0",
            "-hls_segment_filename", folder + "/seg%03d.ts",
        ]
        var flags: [String] = []
        if let key {
            // The playlist is one folder deeper than a variant's.
            arguments += try keyArguments(
                spec.encryption, uri: "../" + key.uriFromVariant, keyFile: directory + "/" + key.path,
                infoPath: scratch + "/audio-\(spec.language).keyinfo", flags: &flags)
        }
        if !flags.isEmpty { arguments += ["-hls_flags", flags.joined(separator: "+")] }
        arguments.append(folder + "/index.m3u8")
        return arguments
    }

    /// `-hls_key_info_file` with a key info file naming `uri`, the key file and the IV.
    static func keyArguments(_ encryption: Encryption, uri: String, keyFile: String, infoPath: String, flags: inout [String]) throws -> [String] {
        var info = [uri, keyFile]
        switch encryption {
        case .none: break
        case .explicitIV(let iv): info.append(iv)
        // Without an IV line ffmpeg 5 uses the first segment's number for every
        // segment; re-reading the key info file per segment makes it take each one's.
        case .sequenceIV: flags.append("periodic_rekey")
        }
        try (info.joined(separator: "\n") + "\n").write(toFile: infoPath, atomically: true, encoding: .utf8)
        return ["-hls_key_info_file", infoPath]
    }

    /// ffmpeg writes the sequence-number IV of each segment in its own EXT-X-KEY; the fixture
    /// wants the form that leaves it implicit: one EXT-X-KEY without IV. Checks first that
    /// segment n's IV was n, so the implicit IV is the one the segments were encrypted with.
    static func dropSequenceIVs(playlist: String) throws {
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        let mediaSequence = text.split(separator: "\n").first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") }
            .flatMap { Int($0.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)) } ?? 0
        var lines: [String] = []
        var keys = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            guard line.hasPrefix("#EXT-X-KEY:") else {
                lines.append(line)
                continue
            }
            guard let ivRange = line.range(of: ",IV=0x") else {
                throw HLSFixtureError("\(playlist): expected an IV in '\(line)'")
            }
            let iv = line[ivRange.upperBound...].prefix(32)
            guard let value = UInt64(iv.suffix(16), radix: 16), iv.prefix(16).allSatisfy({ $0 == "0" }),
                value == UInt64(mediaSequence + keys)
            else {
                throw HLSFixtureError("\(playlist): key \(keys) has IV \(iv), not the segment's sequence number")
            }
            if keys == 0 { lines.append(String(line[..<ivRange.lowerBound])) }
            keys += 1
        }
        try lines.joined(separator: "\n").write(toFile: playlist, atomically: true, encoding: .utf8)
    }

    static func checkVOD(playlist: String) throws {
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        guard text.contains("#EXT-X-PLAYLIST-TYPE:VOD"), text.contains("#EXT-X-ENDLIST") else {
            throw HLSFixtureError("\(playlist) is not a complete VOD playlist:\n\(text)")
        }
    }

    /// Bytes of the variant's media segments (not its playlist or init section).
    static func mediaBytes(of spec: VariantSpec, in directory: String) throws -> Int {
        let folder = directory + "/" + spec.name
        let suffix: String
        switch spec.kind {
        case .ts, .singleFile: suffix = ".ts"
        case .fmp4: suffix = ".m4s"
        }
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(suffix) }.reduce(0) { total, name in
            let size = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? NSNumber
            return total + (size?.intValue ?? 0)
        }
    }

    /// A VOD media playlist of WebVTT segments, one cue every `segmentSeconds`. Cue times are
    /// on the media timeline; X-TIMESTAMP-MAP ties 0 to the 1.4 s where ffmpeg's MPEG-TS starts.
    static func writeSubtitles(_ spec: SubtitleSpec, in directory: String, seconds: Int) throws -> Subtitle {
        let folder = "subs/" + spec.language
        try FileManager.default.createDirectory(atPath: directory + "/" + folder, withIntermediateDirectories: true)
        var playlist = [
            "#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(subtitleSegmentSeconds)", "#EXT-X-MEDIA-SEQUENCE:0",
            "#EXT-X-PLAYLIST-TYPE:VOD",
        ]
        var start = 0
        var index = 0
        while start < seconds {
            let end = min(seconds, start + subtitleSegmentSeconds)
            var vtt = ["WEBVTT", "X-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000", ""]
            var cue = start
            while cue < end {
                let cueEnd = min(end, cue + segmentSeconds)
                vtt += ["\(timestamp(cue)) --> \(timestamp(cueEnd))", "\(spec.line) \(cue / segmentSeconds + 1)", ""]
                cue = cueEnd
            }
            let name = String(format: "seg%03d.vtt", index)
            try vtt.joined(separator: "\n").write(toFile: directory + "/" + folder + "/" + name, atomically: true, encoding: .utf8)
            playlist += [String(format: "#EXTINF:%d.000,", end - start), name]
            start = end
            index += 1
        }
        playlist.append("#EXT-X-ENDLIST")
        let path = folder + "/index.m3u8"
        try (playlist.joined(separator: "\n") + "\n").write(toFile: directory + "/" + path, atomically: true, encoding: .utf8)
        return Subtitle(language: spec.language, name: spec.name, path: path)
    }

    static func writeMaster(_ path: String, variants: [Variant], subtitles: [Subtitle], audio: [Audio] = [], fmp4: Bool) throws {
        var lines = ["#EXTM3U", fmp4 ? "#EXT-X-VERSION:7" : "#EXT-X-VERSION:3", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for (index, rendition) in audio.enumerated() {
            let isDefault = index == 0 ? "YES" : "NO"
            lines.append(
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"\(rendition.name)\",LANGUAGE=\"\(rendition.language)\","
                    + "DEFAULT=\(isDefault),AUTOSELECT=YES,CHANNELS=\"2\",URI=\"\(rendition.path)\"")
        }
        for (index, subtitle) in subtitles.enumerated() {
            let isDefault = index == 0 ? "YES" : "NO"
            lines.append(
                "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"\(subtitle.name)\",LANGUAGE=\"\(subtitle.language)\","
                    + "DEFAULT=\(isDefault),AUTOSELECT=YES,URI=\"\(subtitle.path)\"")
        }
        for variant in variants {
            var attributes = [
                "BANDWIDTH=\(variant.bandwidth)", "AVERAGE-BANDWIDTH=\(variant.averageBandwidth)",
                "RESOLUTION=\(variant.width)x\(variant.height)", "FRAME-RATE=\(frameRate).000", "CODECS=\"\(variant.codecs)\"",
            ]
            if !audio.isEmpty { attributes.append("AUDIO=\"aud\"") }
            if !subtitles.isEmpty { attributes.append("SUBTITLES=\"subs\"") }
            lines += ["#EXT-X-STREAM-INF:" + attributes.joined(separator: ","), variant.path]
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    static func timestamp(_ seconds: Int) -> String {
        String(format: "%02d:%02d:%02d.000", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }

    static func hexBytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
