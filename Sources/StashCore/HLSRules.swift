import Foundation

/// The checks an HLS download's options pass before anything is stored; each error names the
/// field, the value and the limit.
package enum HLSRules {
    package static let maxLanguages = 32
    package static let maxLanguageLength = 35
    /// The latest time a range may name: the longest stream a playlist may describe
    /// (StashHLS's 100,000 segments of at most a day each). A larger value can only be a
    /// mistake, and the check keeps every range far inside what the window's microsecond
    /// arithmetic holds.
    package static let maxRangeSeconds: Double = 100_000 * 86_400

    /// A URL whose path ends in `.m3u8` or `.m3u` (HLS) or `.mpd` (DASH) is a stream without
    /// being told so; which of the two it is, planning reads from what the server sends.
    package static func looksLikePlaylist(_ uri: String) -> Bool {
        looksLikePlaylist(path: URLComponents(string: uri)?.path ?? "")
    }

    /// As `looksLikePlaylist(_:)` for a URL's decoded path.
    package static func looksLikePlaylist(path: String) -> Bool {
        let path = path.lowercased()
        return path.hasSuffix(".m3u8") || path.hasSuffix(".m3u") || path.hasSuffix(".mpd")
    }

    /// The media types RFC 8216 section 4 names for playlists, the older ones servers send,
    /// and DASH's (ISO/IEC 23009-1 annex C).
    package static func isPlaylistContentType(_ type: String) -> Bool {
        ["application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl", "application/dash+xml"]
            .contains(type.lowercased())
    }

    package static func validate(_ options: HLSOptions) throws {
        try validateRange(start: options.start, end: options.end)
        guard (1...HLSOptions.maxSegmentConcurrency).contains(options.segmentConcurrency) else {
            throw StashError.invalidArgument("hls.segment_concurrency \(options.segmentConcurrency) is outside 1...\(HLSOptions.maxSegmentConcurrency)")
        }
        if let height = options.maxHeight, !(1...100_000).contains(height) {
            throw StashError.invalidArgument("hls.max_height \(height) is outside 1...100000")
        }
        for (field, languages) in [("subtitles", options.subtitles), ("audio", options.audio)] {
            guard languages.count <= maxLanguages else {
                throw StashError.invalidArgument("hls.\(field) lists \(languages.count) languages; the limit is \(maxLanguages)")
            }
            // RFC 5646 tags are letters, digits and '-'; "all" takes every rendition.
            for language in languages {
                guard !language.isEmpty, language.count <= maxLanguageLength,
                      language.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                    throw StashError.invalidArgument("hls.\(field) '\(language.prefix(60))' is not a language tag (1 to \(maxLanguageLength) letters, digits and '-') or 'all'")
                }
            }
            if languages.contains(where: { $0.lowercased() == "all" }), languages.count > 1 {
                throw StashError.invalidArgument("hls.\(field) 'all' cannot be combined with other languages (\(languages.joined(separator: ",")))")
            }
        }
    }

    /// What can be checked of a time range before the stream's duration is known: each value a
    /// number of seconds from 0 to `maxRangeSeconds`, and the start before the end.
    package static func validateRange(start: Double?, end: Double?) throws {
        for (field, value) in [("start", start), ("end", end)] {
            guard let value else { continue }
            guard value.isFinite, value >= 0, value <= maxRangeSeconds else {
                throw StashError.invalidArgument("hls.\(field) \(seconds(value)) is not a time in the stream: it must be a number of seconds from 0 to \(seconds(maxRangeSeconds))")
            }
        }
        if let end, end <= start ?? 0 {
            throw StashError.invalidArgument("hls.end \(seconds(end)) must be after hls.start \(seconds(start ?? 0)): the range [start, end) would hold nothing")
        }
    }

    /// "60", "60.5", "nan", "1e+308": a time as a message shows it.
    package static func seconds(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && value.magnitude < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
