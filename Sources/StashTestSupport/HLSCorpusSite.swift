import Foundation

/// A corpus playlist laid out in a directory for `TestHTTPServer.serveDirectory`, with real
/// media behind every URI it names, so ffmpeg can play it and stash can download it:
///
/// - an absolute http(s) URI is moved onto the test server (`http://media.example.com/a.ts`
///   becomes `<origin><prefix>/hosts/media.example.com/a.ts`), since the corpus keeps the
///   RFC's examples as they are written;
/// - a segment is `segment` (one MPEG-TS second that ffmpeg made, `makeSegment`); a segment
///   whose file name starts with `aes` is it encrypted with AES-128 under `key` and `iv`, so a
///   corpus playlist with such segments names `IV=0x` + `iv`;
/// - an EXT-X-KEY URI is `key`;
/// - a media playlist the corpus does not hold (a variant or rendition of a master) is a VOD
///   playlist of two segments of its own.
package struct HLSCorpusSite: Sendable {
    /// The AES-128 key of every key URI.
    package static let key: [UInt8] = Array(0..<16)
    /// The IV `aes*` segments are encrypted with, as a playlist writes it after `0x`.
    package static let iv = "A0A1A2A3A4A5A6A7A8A9AAABACADAEAF"

    package let directory: String
    /// The corpus playlist, relative to `directory`.
    package let playlistPath: String
    /// Every segment, key and playlist file made, relative to `directory`.
    package let segmentPaths: Set<String>
    package let keyPaths: Set<String>
    package let playlistPaths: Set<String>

    /// Lays out `entry` in `directory`, to be served at `origin` + `prefix` (`http://127.0.0.1:8080`,
    /// `/c/name`). URIs that are not http(s) (`file:`, `data:`, `skd:`) are left alone.
    package static func make(_ entry: HLSCorpusEntry, in directory: String, origin: String, prefix: String,
                            segment: [UInt8]) throws -> HLSCorpusSite {
        let base = origin + prefix + "/"
        var files = Files(directory: directory, segment: segment)
        var pending = [(path: entry.name, text: rewriteHosts(entry.text, to: base + "hosts/"))]
        try files.write(entry.name, Array(pending[0].text.utf8))
        files.playlists.insert(entry.name)
        while let (path, text) = pending.popLast() {
            guard let playlistURL = URL(string: base + path) else { continue }
            for reference in references(in: text) {
                guard let url = URL(string: reference.uri, relativeTo: playlistURL)?.absoluteURL,
                      url.absoluteString.hasPrefix(base) else { continue }
                let relative = url.absoluteString.dropFirst(base.count).prefix { $0 != "?" && $0 != "#" }
                guard let local = relative.removingPercentEncoding, !local.isEmpty, !files.made(local) else { continue }
                switch reference.kind {
                case .key:
                    try files.write(local, key)
                    files.keys.insert(local)
                case .playlist:
                    let stub = stubPlaylist(for: local)
                    try files.write(local, Array(stub.utf8))
                    files.playlists.insert(local)
                    pending.append((local, stub))
                case .segment:
                    let name = local.split(separator: "/").last ?? ""
                    try files.write(local, name.hasPrefix("aes") ? try encrypt(segment) : segment)
                    files.segments.insert(local)
                }
            }
        }
        return HLSCorpusSite(directory: directory, playlistPath: entry.name, segmentPaths: files.segments, keyPaths: files.keys,
                             playlistPaths: files.playlists)
    }

    /// One second of 64x64 video at 10 frames per second in MPEG-TS, made by ffmpeg.
    package static func makeSegment(in scratch: String) throws -> [UInt8] {
        let path = scratch + "/corpus-segment.ts"
        try MediaTool.run("ffmpeg", [
            "-nostdin", "-hide_banner", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=10:duration=1",
            "-c:v", "libx264", "-preset", "ultrafast", "-threads:v", "1", "-g", "10", "-flags:v", "+bitexact", "-fflags", "+bitexact",
            "-f", "mpegts", path,
        ])
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// What ffprobe reads of the HLS stream at `url`: the duration it reports, after reading
    /// every packet (which makes it fetch every segment). `-f hls` because ffmpeg detects HLS
    /// only by EXT-X-TARGETDURATION, EXT-X-MEDIA-SEQUENCE or EXT-X-STREAM-INF, while a player
    /// knows from the URL; without it ffmpeg refuses a playlist with none of them.
    package static func ffprobeDuration(_ url: String) throws -> Double {
        let output = try MediaTool.run("ffprobe", [
            "-v", "error", "-f", "hls", "-count_packets", "-show_entries", "format=duration", "-of", "csv=p=0", url,
        ], failOnStderr: true)
        let text = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let seconds = Double(text) else { throw HLSFixtureError("ffprobe gave no duration for \(url): '\(text)'") }
        return seconds
    }

    /// `text` with every `http://host/` and `https://host/` replaced by `base` + `host/`.
    static func rewriteHosts(_ text: String, to base: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let match = rest.range(of: #"https?://[A-Za-z0-9.-]+/"#, options: .regularExpression) {
            let host = rest[match].split(separator: "/").last ?? ""
            result += rest[..<match.lowerBound] + base + host + "/"
            rest = rest[match.upperBound...]
        }
        return result + rest
    }

    private enum Kind { case segment, key, playlist }

    /// The URIs a playlist names: URI lines, and URI attributes of tags.
    private static func references(in text: String) -> [(uri: String, kind: Kind)] {
        var found: [(String, Kind)] = []
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if !line.hasPrefix("#") {
                found.append((line, isPlaylist(line) ? .playlist : .segment))
                continue
            }
            var rest = Substring(line)
            while let start = rest.range(of: "URI=\"") {
                let value = rest[start.upperBound...].prefix { $0 != "\"" }
                let kind: Kind = line.hasPrefix("#EXT-X-KEY") ? .key : isPlaylist(value) ? .playlist : .segment
                found.append((String(value), kind))
                rest = rest[start.upperBound...].dropFirst(value.count)
            }
        }
        return found
    }

    private static func isPlaylist<Text: StringProtocol>(_ uri: Text) -> Bool {
        (uri.split(separator: "?").first ?? "").hasSuffix(".m3u8")
    }

    /// Two segments next to the playlist, named after it: `low/video.m3u8` has `video-0.ts`
    /// and `video-1.ts` in `low/`.
    private static func stubPlaylist(for path: String) -> String {
        let stem = (path.split(separator: "/").last ?? "").replacingOccurrences(of: ".m3u8", with: "")
        return """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXTINF:2.000,
            \(stem)-0.ts
            #EXTINF:1.500,
            \(stem)-1.ts
            #EXT-X-ENDLIST

            """
    }

    /// AES-128-CBC with PKCS#7 padding, as HLS encrypts a whole segment (RFC 8216 section 5.2).
    private static func encrypt(_ bytes: [UInt8]) throws -> [UInt8] {
        let scratch = try DaemonProcess.makeTemporaryDirectory(prefix: "corpus-aes")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try Data(bytes).write(to: URL(fileURLWithPath: scratch + "/clear"))
        try MediaTool.run("openssl", [
            "enc", "-aes-128-cbc", "-K", key.map { String(format: "%02x", $0) }.joined(), "-iv", iv,
            "-in", scratch + "/clear", "-out", scratch + "/sealed",
        ])
        return Array(try Data(contentsOf: URL(fileURLWithPath: scratch + "/sealed")))
    }

    /// The files made so far.
    private struct Files {
        let directory: String
        let segment: [UInt8]
        var segments = Set<String>()
        var keys = Set<String>()
        var playlists = Set<String>()

        func made(_ path: String) -> Bool {
            segments.contains(path) || keys.contains(path) || playlists.contains(path)
        }

        func write(_ path: String, _ bytes: [UInt8]) throws {
            let full = directory + "/" + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: full))
        }
    }
}
