import Foundation

/// An HLS stream that ffmpeg makes from its test sources (lavfi `testsrc2` and `sine`) in a
/// directory, for tests that serve it (`TestHTTPServer.serveDirectory`) and check what stash
/// downloads and exports. The sources, encoder settings, keys and IVs are fixed, so the same
/// call makes the same streams; the video is small and encoded with `-preset ultrafast` so a
/// fixture takes 0.5 to 2 s (its variants are encoded at once, one ffmpeg each).
///
/// Every playlist is a VOD playlist (EXT-X-PLAYLIST-TYPE:VOD, EXT-X-ENDLIST), every URI in it
/// is relative, and the master is written here rather than by ffmpeg so its attributes are
/// the ones declared in `variants`.
package struct HLSFixture: Sendable, Codable {
    /// One variant stream of the master.
    package struct Variant: Sendable, Equatable, Codable {
        /// Its media playlist, relative to `directory` (and to the master).
        package let path: String
        /// BANDWIDTH in the master: a peak above what any of its segments really needs.
        package let bandwidth: Int
        /// AVERAGE-BANDWIDTH in the master: its segments' bytes over the duration.
        package let averageBandwidth: Int
        package let width: Int
        package let height: Int
        /// CODECS in the master.
        package let codecs: String
        /// Video frames in the whole variant (`seconds * frameRate`).
        package let frameCount: Int
        package let segmentCount: Int
        /// The explicit IV of its EXT-X-KEY (32 lowercase hex digits); nil when its segments
        /// are clear or their IV is their media sequence number (no IV attribute).
        package let ivHex: String?
        package let isEncrypted: Bool
    }

    /// A WebVTT subtitle rendition (EXT-X-MEDIA TYPE=SUBTITLES GROUP-ID="subs").
    package struct Subtitle: Sendable, Equatable, Codable {
        package let language: String
        package let name: String
        /// Its media playlist of .vtt segments, relative to `directory`.
        package let path: String
    }

    /// An audio rendition (EXT-X-MEDIA TYPE=AUDIO GROUP-ID="aud"): AAC in MPEG-TS segments.
    package struct Audio: Sendable, Equatable, Codable {
        package let language: String
        package let name: String
        /// Its media playlist, relative to `directory`.
        package let path: String
    }

    /// Where the files are.
    package let directory: String
    /// The master playlist, relative to `directory`.
    package let masterPath: String
    package let variants: [Variant]
    package let subtitles: [Subtitle]
    /// Empty when the variants carry their audio.
    package let audio: [Audio]
    /// The AES-128 key (32 lowercase hex digits) when the segments are encrypted.
    package let keyHex: String?
    /// The key file, relative to `directory`, when the segments are encrypted.
    package let keyPath: String?
    /// The duration of every variant.
    package let seconds: Int

    package var subtitleLanguages: [String] { subtitles.map(\.language) }

    package static let frameRate = 25
    /// EXTINF of every media segment but maybe the last.
    package static let segmentSeconds = 2
    /// EXTINF of every subtitle segment but maybe the last.
    package static let subtitleSegmentSeconds = 4

    /// Whether ffmpeg and ffprobe are on PATH; tests skip when they are not.
    package static var isAvailable: Bool {
        MediaTool.path(of: "ffmpeg") != nil && MediaTool.path(of: "ffprobe") != nil
    }

    /// MPEG-TS with muxed AAC audio in three variants (256x144 at BANDWIDTH 400000, 426x240 at
    /// 1600000, 640x360 at 3200000), AES-128 encrypted with one key (`keyPath`, URI
    /// "../keys/aes.key"): v0 and v2 with an explicit IV each, v1 with none (the IV is the
    /// media sequence number). Two WebVTT subtitle renditions, en "English" and es "Español",
    /// in group "subs", which every variant names.
    package static func tsAES128(in directory: String, seconds: Int = 12) throws -> HLSFixture {
        let keyHex = "2b7e151628aed2a6abf7158809cf4f3c"
        let keyPath = "keys/aes.key"
        let specs = [
            VariantSpec(
                name: "v0", width: 256, height: 144, bandwidth: 400_000, videoKbps: 200, kind: .ts,
                encryption: .explicitIV("000102030405060708090a0b0c0d0e0f")),
            VariantSpec(
                name: "v1", width: 426, height: 240, bandwidth: 1_600_000, videoKbps: 900, kind: .ts,
                encryption: .sequenceIV),
            VariantSpec(
                name: "v2", width: 640, height: 360, bandwidth: 3_200_000, videoKbps: 2000, kind: .ts,
                encryption: .explicitIV("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")),
        ]
        let subtitles = [
            SubtitleSpec(language: "en", name: "English", line: "English subtitle"),
            SubtitleSpec(language: "es", name: "Español", line: "Subtítulo en español"),
        ]
        return try make(
            in: directory, seconds: seconds, specs: specs, subtitles: subtitles,
            key: (hex: keyHex, path: keyPath, uriFromVariant: "../" + keyPath))
    }

    /// One 426x240 MPEG-TS variant of video alone, and its audio in two renditions of AAC in
    /// MPEG-TS, en "English" (440 Hz, the default) and es "Español" (660 Hz), in group "aud";
    /// the two WebVTT subtitle renditions of `tsAES128`. With `encrypted`, every media segment
    /// is AES-128 encrypted with `tsAES128`'s key and an explicit IV per playlist.
    package static func tsAudioRenditions(in directory: String, seconds: Int = 6, encrypted: Bool = true) throws -> HLSFixture {
        var video = VariantSpec(
            name: "v0", width: 426, height: 240, bandwidth: 1_600_000, videoKbps: 900, kind: .ts,
            encryption: encrypted ? .explicitIV("000102030405060708090a0b0c0d0e0f") : .none)
        video.muxedAudio = false
        let audio = [
            AudioSpec(language: "en", name: "English", frequency: 440, encryption: encrypted ? .explicitIV("101112131415161718191a1b1c1d1e1f") : .none),
            AudioSpec(language: "es", name: "Español", frequency: 660, encryption: encrypted ? .explicitIV("202122232425262728292a2b2c2d2e2f") : .none),
        ]
        let subtitles = [
            SubtitleSpec(language: "en", name: "English", line: "English subtitle"),
            SubtitleSpec(language: "es", name: "Español", line: "Subtítulo en español"),
        ]
        let key = encrypted ? (hex: "2b7e151628aed2a6abf7158809cf4f3c", path: "keys/aes.key", uriFromVariant: "../keys/aes.key") : nil
        return try make(in: directory, seconds: seconds, specs: [video], subtitles: subtitles, audio: audio, key: key)
    }

    /// Fragmented MP4 (`-hls_segment_type fmp4`): one clear 426x240 variant whose playlist
    /// has an EXT-X-MAP init section (init.mp4) and .m4s segments.
    package static func fmp4(in directory: String, seconds: Int = 12) throws -> HLSFixture {
        let specs = [
            VariantSpec(name: "v0", width: 426, height: 240, bandwidth: 1_600_000, videoKbps: 900, kind: .fmp4, encryption: .none)
        ]
        return try make(in: directory, seconds: seconds, specs: specs, subtitles: [], key: nil)
    }

    /// One clear 426x240 variant in a single file, v0/media.ts (`-hls_flags single_file`):
    /// every segment is an EXT-X-BYTERANGE of it.
    package static func singleFileByteRange(in directory: String, seconds: Int = 12) throws -> HLSFixture {
        let specs = [
            VariantSpec(
                name: "v0", width: 426, height: 240, bandwidth: 1_600_000, videoKbps: 900, kind: .singleFile,
                encryption: .none)
        ]
        return try make(in: directory, seconds: seconds, specs: specs, subtitles: [], key: nil)
    }

    /// Video frames in a media file or playlist, by decoding it with ffprobe
    /// (`-count_frames`, first video stream). Playlists may name any extension (key files).
    package static func frameCount(of playlistOrFile: String) throws -> Int {
        let output = try MediaTool.run(
            "ffprobe",
            ["-v", "error"] + inputOptions(for: playlistOrFile) + [
                "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                "-of", "csv=p=0", playlistOrFile,
            ], failOnStderr: true)
        guard let count = output.split(whereSeparator: \.isNewline).lazy.compactMap({ Int($0.trimmingCharacters(in: .whitespaces)) }).first
        else {
            throw HLSFixtureError("ffprobe counted no video frames in \(playlistOrFile): '\(output)'")
        }
        return count
    }

    /// Seconds of a playlist (or media file) as ffprobe reads it (`format=duration`).
    package static func duration(of playlistOrFile: String) throws -> Double {
        let output = try MediaTool.run(
            "ffprobe",
            ["-v", "error"] + inputOptions(for: playlistOrFile) + ["-show_entries", "format=duration", "-of", "csv=p=0", playlistOrFile],
            failOnStderr: true)
        guard let seconds = output.split(whereSeparator: \.isNewline).lazy.compactMap({ Double($0.trimmingCharacters(in: .whitespaces)) }).first
        else {
            throw HLSFixtureError("ffprobe gave no duration for \(playlistOrFile): '\(output)'")
        }
        return seconds
    }

    /// Decodes a playlist (or media file) to nothing with ffmpeg, as a player would play it,
    /// and returns how many video frames came out of the video stream ffmpeg picks (the
    /// highest resolution of a master). Throws when ffmpeg fails or reports any error, e.g. a
    /// segment that does not decrypt or decode.
    package static func decodedFrames(playlist: String) throws -> Int {
        let output = try MediaTool.run(
            "ffmpeg",
            ["-nostdin", "-hide_banner", "-v", "error"] + inputOptions(for: playlist) + [
                "-i", playlist, "-fps_mode", "passthrough", "-nostats", "-progress", "pipe:1", "-f", "null", "-",
            ], failOnStderr: true)
        let frames = output.split(whereSeparator: \.isNewline).compactMap { line -> Int? in
            guard line.hasPrefix("frame=") else { return nil }
            return Int(line.dropFirst("frame=".count).trimmingCharacters(in: .whitespaces))
        }
        guard let last = frames.last else {
            throw HLSFixtureError("ffmpeg decoded \(playlist) but reported no frame count:\n\(output)")
        }
        return last
    }

    /// ffmpeg's HLS and DASH demuxers open only common media extensions unless told otherwise;
    /// key files and .vtt segments are not among them.
    static func inputOptions(for path: String) -> [String] {
        let withoutQuery = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        return withoutQuery.hasSuffix(".m3u8") || withoutQuery.hasSuffix(".mpd") ? ["-allowed_extensions", "ALL"] : []
    }
}
