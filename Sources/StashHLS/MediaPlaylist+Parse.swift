extension MediaPlaylist {
    init(parsing text: PlaylistText) throws {
        var targetDuration: UInt64?
        var mediaSequence: UInt64 = 0
        var segments: [Segment] = []
        var hasEndList = false
        var playlistType: PlaylistType?

        // Tags that apply to the next URI line only.
        var duration: (line: Int, seconds: Double)?
        var byteRange: (line: Int, length: UInt64, offset: UInt64?)?
        var discontinuity = false
        // Tags that apply to every segment until the next one of their kind.
        var key: SegmentKey?
        var map: InitSection?

        for (number, line) in text.lines {
            switch line {
            case .uri(let uri):
                guard let extinf = duration else {
                    throw HLSError(.missingTag, line: number, "segment URI '\(uri.prefix(200))' is not preceded by EXTINF")
                }
                guard segments.count < HLSError.maxSegments else {
                    throw HLSError(.tooManySegments, line: number, "more than \(HLSError.maxSegments) segments; that is the limit")
                }
                let resolved = try text.resolve(uri, line: number, field: "segment URI")
                let (sequenceNumber, overflow) = mediaSequence.addingReportingOverflow(UInt64(segments.count))
                guard !overflow else {
                    throw HLSError(.invalidAttribute, line: number, "EXT-X-MEDIA-SEQUENCE \(mediaSequence) plus \(segments.count) segments exceeds 2^64")
                }
                segments.append(Segment(
                    uri: resolved, duration: extinf.seconds,
                    byteRange: try byteRange.map { try Self.resolveOffset($0, uri: resolved, previous: segments.last) },
                    discontinuity: discontinuity, key: key, map: map, sequenceNumber: sequenceNumber))
                duration = nil
                byteRange = nil
                discontinuity = false
            case .tag(let name, let value):
                switch name {
                case "#EXTINF":
                    // `<duration>,[<title>]`; the title is for people and is dropped.
                    let seconds = value.prefix { $0 != "," }
                    duration = (number, try Self.duration(seconds, tag: name, line: number))
                case "#EXT-X-TARGETDURATION":
                    guard let seconds = AttributeList.decimalInteger(value) else {
                        throw HLSError(.invalidDuration, line: number, "EXT-X-TARGETDURATION '\(value.prefix(80))' must be a decimal integer of seconds")
                    }
                    guard Double(seconds) <= HLSError.maxDurationSeconds else {
                        throw HLSError(.invalidDuration, line: number,
                                       "EXT-X-TARGETDURATION \(seconds) s is above the limit of \(Int(HLSError.maxDurationSeconds)) s")
                    }
                    targetDuration = seconds
                case "#EXT-X-MEDIA-SEQUENCE":
                    // Segments already listed would have been numbered from the wrong base, and
                    // the number is the default IV: guessing would decrypt to garbage.
                    guard segments.isEmpty else {
                        throw HLSError(.invalidAttribute, line: number, "EXT-X-MEDIA-SEQUENCE must come before the first segment")
                    }
                    guard let sequence = AttributeList.decimalInteger(value) else {
                        throw HLSError(.invalidAttribute, line: number, "EXT-X-MEDIA-SEQUENCE '\(value.prefix(80))' must be a decimal integer")
                    }
                    mediaSequence = sequence
                case "#EXT-X-PLAYLIST-TYPE":
                    guard let type = PlaylistType(rawValue: String(value)) else {
                        throw HLSError(.invalidAttribute, line: number, "EXT-X-PLAYLIST-TYPE '\(value.prefix(80))' is not VOD or EVENT")
                    }
                    playlistType = type
                case "#EXT-X-BYTERANGE":
                    let range = try ByteRange.parse(value, line: number, field: "EXT-X-BYTERANGE")
                    byteRange = (number, range.length, range.offset)
                case "#EXT-X-DISCONTINUITY":
                    discontinuity = true
                case "#EXT-X-KEY":
                    key = try Self.key(AttributeList(value, tag: name, line: number), text: text)
                case "#EXT-X-MAP":
                    map = try Self.map(AttributeList(value, tag: name, line: number), text: text, key: key)
                case "#EXT-X-ENDLIST":
                    hasEndList = true
                default:
                    // Unknown and unused tags are skipped, as section 6.3.1 asks of clients.
                    continue
                }
            }
        }
        if let duration {
            throw HLSError(.missingTag, line: duration.line, "EXTINF has no segment URI after it")
        }
        guard let targetDuration else {
            throw HLSError(.missingTag, line: nil, "the media playlist has no EXT-X-TARGETDURATION; it is required")
        }
        self.init(targetDuration: targetDuration, mediaSequence: mediaSequence, segments: segments,
                  hasEndList: hasEndList, playlistType: playlistType)
    }

    private static func duration(_ text: Substring, tag: Substring, line: Int) throws -> Double {
        guard let seconds = AttributeList.decimalFloat(text) else {
            throw HLSError(.invalidDuration, line: line, "\(tag) duration '\(text.prefix(80))' is not a decimal number of seconds")
        }
        guard seconds >= 0 else {
            throw HLSError(.invalidDuration, line: line, "\(tag) duration '\(text.prefix(80))' is negative")
        }
        guard seconds <= HLSError.maxDurationSeconds else {
            throw HLSError(.invalidDuration, line: line,
                           "\(tag) duration '\(text.prefix(80))' s is above the limit of \(Int(HLSError.maxDurationSeconds)) s")
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
