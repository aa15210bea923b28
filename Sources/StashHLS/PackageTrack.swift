import Foundation
import StashCore

/// One media playlist of a package laid out in its folder: the files to fetch, the keys it
/// names and the local playlist text. Internal: `PackagePlan.make` is the public face.
struct PackageTrack {
    /// Relative to the asset folder: `video`, `audio/en`, `subtitles/es`.
    let folder: String
    let source: String
    let playlist: MediaPlaylist
    /// The indices of `playlist`'s segments in the package: every one, or a time range's.
    let kept: Range<Int>

    private(set) var files: [PackageFile] = []
    private(set) var keys: [PackageKey] = []
    private(set) var text = ""

    var playlistPath: String { folder + "/index.m3u8" }

    /// Refuses what the package cannot hold (`PackagePlan.make` documents why), naming the
    /// playlist so the message says which one of several is the problem.
    static func check(_ playlist: MediaPlaylist, uri: String) throws {
        guard playlist.hasEndList else {
            throw HLSError(.unsupported, line: nil,
                           "\(uri): the media playlist has no EXT-X-ENDLIST; live streams are not supported; only VOD")
        }
        guard !playlist.segments.isEmpty else {
            throw HLSError(.noSegments, line: nil, "\(uri): the media playlist has no segments")
        }
        for (index, segment) in playlist.segments.enumerated() {
            for (key, what) in [(segment.map?.key, "the init section of segment \(index)"), (segment.key, "segment \(index)")] {
                guard let key else { continue }
                guard key.method == .aes128 else {
                    throw HLSError(.unsupported, line: nil,
                                   "\(uri): \(what) uses METHOD=\(key.method.rawValue); only AES-128 and NONE are supported for now")
                }
                // A licence key is a raw AES key whatever format the playlist names for it.
                if let format = key.keyFormat, format != "identity", key.licenseKeyID == nil, !key.isSKD {
                    throw HLSError(.unsupported, line: nil,
                                   "\(uri): \(what) uses KEYFORMAT \"\(format.prefix(200))\"; only \"identity\" is supported for now")
                }
            }
        }
    }

    init(folder: String, source: String, playlist: MediaPlaylist, window: SegmentWindow? = nil) {
        self.folder = folder
        self.source = source
        self.playlist = playlist
        kept = window?.segments(of: playlist) ?? playlist.segments.indices
        layOut()
    }

    /// Seconds of the segments in the package.
    var keptDuration: Double { playlist.segments[kept].reduce(0) { $0 + $1.duration } }

    private mutating func layOut() {
        let first = kept.lowerBound
        // A window that starts later keeps each segment's sequence number (the default AES-128
        // IV) and discontinuity sequence number (what lines renditions up, section 6.2.2): the
        // playlist starts at those of its first segment, whose own DISCONTINUITY the count
        // then holds.
        let skipsAhead = first > 0 && first < playlist.segments.count
        let discontinuities = skipsAhead ? playlist.segments[...first].filter(\.discontinuity).count : 0
        var lines = [
            "#EXTM3U",
            // EXT-X-MAP outside an I-frame playlist needs version 6 (section 7); IV and
            // decimal EXTINF need 2 and 3.
            "#EXT-X-VERSION:\(playlist.segments.contains { $0.map != nil } ? 6 : 3)",
            "#EXT-X-TARGETDURATION:\(targetDuration)",
            // Kept so each segment's sequence number, the default AES-128 IV, stays the same.
            "#EXT-X-MEDIA-SEQUENCE:\(skipsAhead ? playlist.segments[first].sequenceNumber : playlist.mediaSequence)",
        ]
        if discontinuities > 0 { lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuities)") }
        if skipsAhead {
            // Where the window begins on the stream's timeline: a side-loaded subtitle file
            // counts from the stream's start, so an export of the window moves its cues by
            // this much (`LocalMediaPlaylist.windowStart`). Players ignore a tag they do not
            // know (RFC 8216 section 4.1).
            let before = playlist.segments[..<first].reduce(Int64(0)) { $0.addingSaturating(SegmentWindow.microseconds($1.duration)) }
            lines.append("\(Self.windowStartTag):\(Self.decimal(Double(before) / 1_000_000, places: 6))")
        }
        lines.append("#EXT-X-PLAYLIST-TYPE:VOD")
        var sections: [(section: InitSection, name: String)] = []
        var keyNames: [String: String] = [:]
        var currentKey: SegmentKey?
        var currentMap: InitSection?

        func keyLine(_ key: SegmentKey?) -> String {
            guard let key else { return "#EXT-X-KEY:METHOD=NONE" }
            let name: String
            if let known = keyNames[key.uri] {
                name = known
            } else {
                name = "key\(keyNames.count).key"
                keyNames[key.uri] = name
                keys.append(PackageKey(uri: key.uri, path: "\(folder)/\(name)", licenseKeyID: key.licenseKeyID))
            }
            let iv = key.iv.map { ",IV=0x" + PackageTrack.hex($0) } ?? ""
            return "#EXT-X-KEY:METHOD=\(key.method.rawValue),URI=\"\(name)\"\(iv)"
        }

        for index in kept {
            let segment = playlist.segments[index]
            if segment.discontinuity, index != first || !skipsAhead { lines.append("#EXT-X-DISCONTINUITY") }
            if let map = segment.map, map != currentMap {
                // The key in force at the MAP line is the one that encrypts the section, so it
                // is written first, and the segments' own key after.
                if map.key != currentKey {
                    lines.append(keyLine(map.key))
                    currentKey = map.key
                }
                let name: String
                if let known = sections.first(where: { $0.section.isSameResource(as: map) }) {
                    name = known.name
                } else {
                    name = "init\(sections.count).\(Self.fileExtension(map.uri))"
                    sections.append((map, name))
                    files.append(PackageFile(url: map.uri, path: "\(folder)/\(name)", byteRange: map.byteRange,
                                             size: map.byteRange.map(ByteCount.bytes), container: map.key == nil ? .fragmentedMP4 : nil))
                }
                lines.append("#EXT-X-MAP:URI=\"\(name)\"")
                currentMap = map
            }
            if segment.key != currentKey {
                lines.append(keyLine(segment.key))
                currentKey = segment.key
            }
            let name = Self.segmentName(index) + "." + Self.fileExtension(segment.uri)
            files.append(PackageFile(url: segment.uri, path: "\(folder)/\(name)", byteRange: segment.byteRange,
                                     size: segment.byteRange.map(ByteCount.bytes), container: container(of: segment)))
            lines.append("#EXTINF:\(Self.decimal(segment.duration, places: 6)),")
            lines.append(name)
        }
        lines.append("#EXT-X-ENDLIST")
        text = lines.joined(separator: "\n") + "\n"
    }

    /// RFC 8216 section 3: fMP4 with EXT-X-MAP; without it MPEG-TS, packed audio (by its
    /// extension) or WebVTT (a subtitle rendition). Nil for an encrypted segment (`PackageFile.container`).
    private func container(of segment: Segment) -> SegmentContainer? {
        guard segment.key == nil else { return nil }
        if segment.map != nil { return .fragmentedMP4 }
        let ext = Self.fileExtension(segment.uri)
        if folder.hasPrefix("subtitles/") || ext == "vtt" || ext == "webvtt" { return .webVTT }
        if ["aac", "ac3", "ec3", "eac3", "mp3"].contains(ext) { return .packedAudio }
        return .mpegTS
    }

    /// Section 4.3.3.1: every EXTINF rounded must fit; a source that broke this is repaired
    /// rather than copied, since strict players refuse such a playlist.
    private var targetDuration: UInt64 {
        let longest = playlist.segments.map { UInt64($0.duration.rounded()) }.max() ?? 0
        return max(playlist.targetDuration, longest)
    }

    /// The package's own tag for where a time window begins on the stream's timeline.
    static let windowStartTag = "#EXT-X-STASH-WINDOW-START"

    /// `seg00000`: five digits hold `HLSError.maxSegments` segments and keep names sorted.
    static func segmentName(_ index: Int) -> String {
        let digits = String(index)
        return "seg" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }

    /// The URL path's extension, lowercased, when it is 1 to 5 of [a-z0-9]; else "seg". Only
    /// such names reach the file system, whatever the server's URLs look like.
    static func fileExtension(_ uri: String) -> String {
        let path = URL(string: uri)?.path ?? ""
        let last = path.split(separator: "/").last ?? ""
        guard let dot = last.lastIndex(of: ".") else { return "seg" }
        let ext = last[last.index(after: dot)...].lowercased()
        guard (1...5).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return "seg" }
        return ext
    }

    /// `value` with at most `places` decimals and no trailing zeros: "10", "9.5", "6.006".
    static func decimal(_ value: Double, places: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let product = (value * Double(scale)).rounded()
        // Durations are at most a day (HLSError.maxDurationSeconds), far inside Int64 at this
        // scale; only a hostile FRAME-RATE gets here, and it is written without decimals.
        guard product.magnitude < 9e18 else { return String(format: "%.0f", value) }
        let scaled = Int64(product)
        let whole = scaled / scale
        var fraction = String(scaled % scale)
        guard fraction != "0" else { return String(whole) }
        fraction = String(repeating: "0", count: places - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole).\(fraction)"
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}

extension InitSection {
    /// Same bytes to fetch, whatever key the playlist put before it.
    func isSameResource(as other: InitSection) -> Bool { uri == other.uri && byteRange == other.byteRange }
}
