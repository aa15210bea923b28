import StashCore

/// A media playlist of a package on disk, as `PackagePlan` wrote it: what `stash export`
/// needs after a restart, when the registry is gone and only the folder remains.
///
/// It reads only what stash writes (EXT-X-KEY, EXT-X-MAP, EXT-X-MEDIA-SEQUENCE, EXTINF,
/// EXT-X-STASH-WINDOW-START and file names); every path must stay inside the folder, since a playlist edited or planted on
/// disk would otherwise make the export read or write elsewhere.
package struct LocalMediaPlaylist: Equatable, Sendable {
    /// In playback order.
    package var segments: [LocalSegment]
    /// Each init section file once, in order of first use, with the key the playlist puts in
    /// force at its first EXT-X-MAP.
    package var initSections: [LocalSegment]
    /// Each key file once, in order of first use.
    package var keyPaths: [String]
    /// Seconds on the stream's timeline where the package's first segment begins: 0 for the
    /// whole stream, the start of the first segment kept for a time window.
    package var windowStart: Double = 0

    package init(segments: [LocalSegment], initSections: [LocalSegment] = [], keyPaths: [String] = []) {
        self.segments = segments
        self.initSections = initSections
        self.keyPaths = keyPaths
    }

    /// Parses a package media playlist. Throws `HLSError`: `.unsafePath` for a path that is
    /// not a plain relative name, `.missingHeader`, `.missingTag` or `.invalidAttribute` for
    /// text stash did not write.
    package static func parse(_ text: String) throws -> LocalMediaPlaylist {
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        guard lines.first.map({ $0.trimmingWhitespace() }) == "#EXTM3U" else {
            throw HLSError(.missingHeader, line: 1, "a package playlist must start with #EXTM3U")
        }
        var mediaSequence: UInt64 = 0
        var key: (path: String, iv: [UInt8]?)?
        var map: String?
        var pendingDuration = false
        var result = LocalMediaPlaylist(segments: [])

        for (index, raw) in lines.enumerated().dropFirst() {
            let number = index + 1
            let line = raw.trimmingWhitespace()
            if line.isEmpty { continue }
            guard line.hasPrefix("#") else {
                guard pendingDuration else {
                    throw HLSError(.missingTag, line: number, "file '\(line.prefix(200))' is not preceded by EXTINF")
                }
                let path = try LocalPath.check(line, line: number)
                let sequence = mediaSequence.addingReportingOverflow(UInt64(result.segments.count)).partialValue
                result.segments.append(LocalSegment(path: path, keyPath: key?.path,
                                                    iv: key.map { $0.iv ?? Self.sequenceIV(sequence) }, initSection: map))
                pendingDuration = false
                continue
            }
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            let name = line[..<colon]
            let value = colon == line.endIndex ? line[colon...] : line[line.index(after: colon)...]
            switch name {
            case "#EXTINF":
                pendingDuration = true
            case "#EXT-X-STASH-WINDOW-START":
                guard let seconds = Double(value), seconds.isFinite, seconds >= 0, seconds <= HLSRules.maxRangeSeconds else {
                    throw HLSError(.invalidAttribute, line: number,
                                   "EXT-X-STASH-WINDOW-START '\(value.prefix(80))' must be seconds from 0 to \(HLSRules.seconds(HLSRules.maxRangeSeconds))")
                }
                result.windowStart = seconds
            case "#EXT-X-MEDIA-SEQUENCE":
                guard result.segments.isEmpty, let sequence = AttributeList.decimalInteger(value) else {
                    throw HLSError(.invalidAttribute, line: number,
                                   "EXT-X-MEDIA-SEQUENCE '\(value.prefix(80))' must be a decimal integer before the first segment")
                }
                mediaSequence = sequence
            case "#EXT-X-KEY":
                key = try Self.key(AttributeList(value, tag: name, line: number))
                if let path = key?.path, !result.keyPaths.contains(path) { result.keyPaths.append(path) }
            case "#EXT-X-MAP":
                let attributes = try AttributeList(value, tag: name, line: number)
                let path = try LocalPath.check(attributes.required("URI", attributes.quotedString)[...], line: number)
                // Section 4.3.2.4 requires an IV for an encrypted init section; for a stream that
                // has none, zero is what hls.js uses, since there is no sequence number to take.
                let section = LocalSegment(path: path, keyPath: key?.path, iv: key.map { $0.iv ?? [UInt8](repeating: 0, count: 16) })
                // Once per file: a file is one set of bytes, and the export writes each once.
                if !result.initSections.contains(where: { $0.path == path }) { result.initSections.append(section) }
                map = path
            case "#EXT-X-BYTERANGE":
                // Each range is its own file in a package; a range here would read the wrong bytes.
                throw HLSError(.invalidAttribute, line: number, "EXT-X-BYTERANGE is not used in package playlists")
            default:
                continue
            }
        }
        if pendingDuration {
            throw HLSError(.missingTag, line: nil, "the last EXTINF has no file after it")
        }
        return result
    }

    /// `text` without its EXT-X-KEY lines, for `stash export --decrypt`: the files next to it
    /// are then clear, and a key line would make players decrypt them again.
    package static func decryptedText(_ text: String) -> String {
        // Split on LF bytes, not Characters: "\r\n" is one Character, and the line ends are
        // kept as they were.
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        return lines.map { Substring(decoding: $0, as: UTF8.self) }.filter { line in
            let trimmed = line.trimmingWhitespace()
            return !(trimmed.hasPrefix("#EXT-X-KEY:") || trimmed == "#EXT-X-KEY" || trimmed == "#EXT-X-KEY\r")
        }.joined(separator: "\n")
    }

    /// Nil for METHOD=NONE.
    private static func key(_ attributes: AttributeList) throws -> (path: String, iv: [UInt8]?)? {
        let method = try attributes.required("METHOD", attributes.enumerated)
        if method == "NONE" { return nil }
        guard method == "AES-128" else {
            throw HLSError(.unsupported, line: attributes.line, "EXT-X-KEY METHOD '\(method.prefix(80))' is not NONE or AES-128")
        }
        let path = try LocalPath.check(attributes.required("URI", attributes.quotedString)[...], line: attributes.line)
        var iv: [UInt8]?
        if let hex = attributes.hexSequence("IV") {
            guard let bytes = hex.bytes, bytes.count == 16 else {
                throw HLSError(.invalidIV, line: attributes.line, "EXT-X-KEY IV '\(hex.text.prefix(80))' must be 0x followed by 32 hex digits")
            }
            iv = bytes
        }
        return (path, iv)
    }

    /// RFC 8216 section 5.2: the sequence number as a 16-byte big-endian integer.
    static func sequenceIV(_ sequence: UInt64) -> [UInt8] {
        [UInt8](repeating: 0, count: 8) + (0..<8).reversed().map { UInt8(truncatingIfNeeded: sequence >> (UInt64($0) * 8)) }
    }
}

extension Substring {
    /// Spaces and tabs at both ends; other whitespace is content.
    func trimmingWhitespace() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
