extension MediaPlaylist {
    /// Parses a media playlist as players read it: where RFC 8216 says MUST but packagers
    /// break it harmlessly, the playlist is read the way ffmpeg and hls.js read it and the
    /// difference goes into `warnings`. What would download the wrong bytes stays an error.
    init(parsing text: PlaylistText) throws {
        var targetDuration: UInt64?
        var mediaSequence: UInt64 = 0
        // A negative EXT-X-MEDIA-SEQUENCE (line, text): the segments are numbered from 0.
        var negativeSequence: (line: Int, text: Substring)?
        var segments: [Segment] = []
        var hasEndList = false
        var playlistType: PlaylistType?
        var warnings = PlaylistWarnings()

        // Tags that apply to the next URI line only.
        var duration: (line: Int, seconds: Double)?
        var byteRange: (line: Int, length: UInt64, offset: UInt64?)?
        var discontinuity = false
        // Tags that apply to every segment until the next one of their kind.
        var key: (line: Int, key: SegmentKey)?
        var map: InitSection?

        for (number, line) in text.lines {
            switch line {
            case .uri(let uri):
                guard let extinf = duration else {
                    // ffmpeg and hls.js skip a URI without EXTINF: it is not a segment to them either.
                    warnings.add(line: number, "'\(uri.prefix(200))' is not preceded by EXTINF; it is ignored, as players ignore it")
                    continue
                }
                guard segments.count < HLSError.maxSegments else {
                    throw HLSError(.tooManySegments, line: number, "more than \(HLSError.maxSegments) segments; that is the limit")
                }
                let resolved = try text.resolve(uri, line: number, field: "segment URI")
                let (sequenceNumber, overflow) = mediaSequence.addingReportingOverflow(UInt64(segments.count))
                guard !overflow else {
                    throw HLSError(.invalidAttribute, line: number, "EXT-X-MEDIA-SEQUENCE \(mediaSequence) plus \(segments.count) segments exceeds 2^64")
                }
                if let negativeSequence, let key, key.key.iv == nil {
                    // The IV would be the sequence number, and players do not agree on the bytes of a
                    // negative one: whichever stash chose could decrypt to garbage.
                    throw HLSError(.invalidIV, line: number,
                                   "segment '\(uri.prefix(200))' is encrypted by the EXT-X-KEY of line \(key.line), which has no IV, so its IV is its sequence number; EXT-X-MEDIA-SEQUENCE is '\(negativeSequence.text.prefix(80))' (line \(negativeSequence.line)), and a negative sequence number has no agreed IV; the EXT-X-KEY needs IV=0x followed by 32 hex digits")
                }
                segments.append(Segment(
                    uri: resolved, duration: extinf.seconds,
                    byteRange: try byteRange.map { try Self.resolveOffset($0, uri: resolved, previous: segments.last) },
                    discontinuity: discontinuity, key: key?.key, map: map, sequenceNumber: sequenceNumber))
                duration = nil
                byteRange = nil
                discontinuity = false
            case .tag(let name, let value):
                switch name {
                case "#EXTINF":
                    if let previous = duration {
                        warnings.add(line: previous.line, "EXTINF has no segment URI after it; the EXTINF of line \(number) replaces it")
                    }
                    duration = (number, try Self.duration(value, line: number))
                case "#EXT-X-TARGETDURATION":
                    targetDuration = try Self.parseTargetDuration(value.trimmingWhitespace(), line: number, warnings: &warnings)
                case "#EXT-X-MEDIA-SEQUENCE":
                    // Segments already listed would have been numbered from the wrong base, and
                    // the number is the default IV: guessing would decrypt to garbage.
                    guard segments.isEmpty else {
                        throw HLSError(.invalidAttribute, line: number, "EXT-X-MEDIA-SEQUENCE must come before the first segment")
                    }
                    let digits = value.trimmingWhitespace()
                    if let sequence = AttributeList.decimalInteger(digits) {
                        mediaSequence = sequence
                        negativeSequence = nil
                    } else if digits.hasPrefix("-"), AttributeList.decimalInteger(digits.dropFirst()) != nil {
                        // ffmpeg and hls.js play it; only the IV needs the number, checked per segment.
                        mediaSequence = 0
                        negativeSequence = (number, digits)
                        warnings.add(line: number, "EXT-X-MEDIA-SEQUENCE '\(digits.prefix(80))' is negative; the segments are numbered from 0")
                    } else {
                        throw HLSError(.invalidAttribute, line: number, "EXT-X-MEDIA-SEQUENCE '\(value.prefix(80))' must be a decimal integer")
                    }
                case "#EXT-X-PLAYLIST-TYPE":
                    guard let type = PlaylistType(rawValue: String(value.trimmingWhitespace())) else {
                        throw HLSError(.invalidAttribute, line: number, "EXT-X-PLAYLIST-TYPE '\(value.prefix(80))' is not VOD or EVENT")
                    }
                    playlistType = type
                case "#EXT-X-BYTERANGE":
                    let range = try ByteRange.parse(value, line: number, field: "EXT-X-BYTERANGE")
                    byteRange = (number, range.length, range.offset)
                case "#EXT-X-DISCONTINUITY":
                    discontinuity = true
                case "#EXT-X-KEY":
                    key = try Self.key(AttributeList(value, tag: name, line: number), text: text).map { (number, $0) }
                case "#EXT-X-MAP":
                    map = try Self.map(AttributeList(value, tag: name, line: number), text: text, key: key?.key)
                case "#EXT-X-ENDLIST":
                    hasEndList = true
                default:
                    // Unknown and unused tags are skipped, as section 6.3.1 asks of clients.
                    continue
                }
            }
        }
        if let duration {
            warnings.add(line: duration.line, "EXTINF has no segment URI after it; it is ignored, as players ignore it")
        }
        let filled = targetDuration ?? Self.longestSegment(segments)
        if targetDuration == nil {
            warnings.add(line: nil, "the media playlist has no EXT-X-TARGETDURATION; \(filled) s, its longest segment rounded up, is used")
        }
        self.init(targetDuration: filled, mediaSequence: mediaSequence, segments: segments,
                  hasEndList: hasEndList, playlistType: playlistType, warnings: warnings.lines)
    }

    /// Seconds of the longest segment, rounded up: what EXT-X-TARGETDURATION would have said.
    private static func longestSegment(_ segments: [Segment]) -> UInt64 {
        // Durations are at most `HLSError.maxDurationSeconds`, so the conversion cannot trap.
        UInt64((segments.map(\.duration).max() ?? 0).rounded(.up))
    }

    /// A decimal integer of seconds; a decimal number (`10.5`, which some packagers write and
    /// players read) is rounded up with a warning, since a target must not be below a segment.
    private static func parseTargetDuration(_ value: Substring, line: Int, warnings: inout PlaylistWarnings) throws -> UInt64 {
        let seconds: Double
        if let whole = AttributeList.decimalInteger(value) {
            seconds = Double(whole)
        } else if let decimal = AttributeList.decimalFloat(value), decimal >= 0 {
            seconds = decimal.rounded(.up)
            if seconds <= HLSError.maxDurationSeconds {
                warnings.add(line: line, "EXT-X-TARGETDURATION '\(value.prefix(80))' is not a whole number; \(UInt64(seconds)) s is used")
            }
        } else {
            throw HLSError(.invalidDuration, line: line, "EXT-X-TARGETDURATION '\(value.prefix(80))' must be a decimal integer of seconds")
        }
        guard seconds <= HLSError.maxDurationSeconds else {
            throw HLSError(.invalidDuration, line: line,
                           "EXT-X-TARGETDURATION \(value.prefix(80)) s is above the limit of \(Int(HLSError.maxDurationSeconds)) s")
        }
        return UInt64(seconds)
    }

    /// `<duration>,[<title>]`. The duration ends at the comma or at a space: IPTV-style
    /// playlists put attributes after it (`10.0 tvg-id="a" group-title="b",Title`), and like the
    /// title they are for people and are dropped.
    private static func duration(_ value: Substring, line: Int) throws -> Double {
        let text = value.trimmingWhitespace().prefix { $0 != "," && $0 != " " && $0 != "\t" }
        guard let seconds = AttributeList.decimalFloat(text) else {
            throw HLSError(.invalidDuration, line: line, "EXTINF duration '\(text.prefix(80))' is not a decimal number of seconds")
        }
        guard seconds >= 0 else {
            throw HLSError(.invalidDuration, line: line, "EXTINF duration '\(text.prefix(80))' is negative")
        }
        guard seconds <= HLSError.maxDurationSeconds else {
            throw HLSError(.invalidDuration, line: line,
                           "EXTINF duration '\(text.prefix(80))' s is above the limit of \(Int(HLSError.maxDurationSeconds)) s")
        }
        return seconds
    }

    /// Section 4.3.2.2: without `@offset` a range starts where the previous segment's range of
    /// the same resource ended; anything else has no defined start.
    private static func resolveOffset(_ range: (line: Int, length: UInt64, offset: UInt64?), uri: String,
                                      previous: Segment?) throws -> ByteRange {
        if let offset = range.offset { return ByteRange(length: range.length, offset: offset) }
        guard let previous, previous.uri == uri, let previousRange = previous.byteRange else {
            throw HLSError(.invalidByteRange, line: range.line,
                           "EXT-X-BYTERANGE \(range.length) has no @offset and the previous segment is not a range of '\(uri.prefix(200))'")
        }
        guard previousRange.end <= ByteRange.limit - range.length else {
            throw HLSError(.invalidByteRange, line: range.line, "EXT-X-BYTERANGE \(range.length) continues past byte \(ByteRange.limit), the largest file position")
        }
        return ByteRange(length: range.length, offset: previousRange.end)
    }

    /// The key for the following segments; nil for METHOD=NONE, which ends encryption.
    private static func key(_ attributes: AttributeList, text: PlaylistText) throws -> SegmentKey? {
        let methodName = try attributes.required("METHOD", attributes.enumerated)
        if methodName == "NONE" { return nil }
        guard let method = SegmentKey.Method(rawValue: String(methodName)) else {
            throw HLSError(.invalidAttribute, line: attributes.line,
                           "EXT-X-KEY METHOD '\(methodName.prefix(80))' is not NONE, AES-128 or SAMPLE-AES")
        }
        let uri = try attributes.required("URI", attributes.quotedString)
        var iv: [UInt8]?
        if let hex = attributes.hexSequence("IV") {
            guard let bytes = hex.bytes, bytes.count == 16 else {
                throw HLSError(.invalidIV, line: attributes.line, "EXT-X-KEY IV '\(hex.text.prefix(80))' must be 0x followed by 32 hex digits")
            }
            iv = bytes
        }
        var licenseKeyID: [UInt8]?
        if let hex = attributes.hexSequence("KEYID") {
            guard let bytes = hex.bytes, bytes.count == 16 else {
                throw HLSError(.invalidAttribute, line: attributes.line, "EXT-X-KEY KEYID '\(hex.text.prefix(80))' must be 0x followed by 32 hex digits")
            }
            licenseKeyID = bytes
        }
        let keyFormat = try attributes.quotedString("KEYFORMAT")
        if SKDURI.isSKD(uri[...]) {
            // Not a URL to fetch: the id a licence server knows the key by.
            let skd = try SKDURI(parsing: uri[...], line: attributes.line)
            return SegmentKey(method: method, uri: String(uri), iv: iv ?? skd.iv, keyFormat: keyFormat, licenseKeyID: skd.keyID)
        }
        return SegmentKey(
            method: method,
            uri: try text.resolve(uri[...], line: attributes.line, field: "EXT-X-KEY URI"),
            iv: iv,
            keyFormat: keyFormat,
            licenseKeyID: licenseKeyID)
    }

    private static func map(_ attributes: AttributeList, text: PlaylistText, key: SegmentKey?) throws -> InitSection {
        let uri = try attributes.required("URI", attributes.quotedString)
        let byteRange = try attributes.quotedString("BYTERANGE").map { value in
            let range = try ByteRange.parse(value[...], line: attributes.line, field: "EXT-X-MAP BYTERANGE")
            // An init section has no previous range to continue, so a missing offset means the start.
            return ByteRange(length: range.length, offset: range.offset ?? 0)
        }
        return InitSection(uri: try text.resolve(uri[...], line: attributes.line, field: "EXT-X-MAP URI"), byteRange: byteRange,
                           key: key)
    }
}
