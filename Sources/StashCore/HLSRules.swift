import Foundation

/// The checks an HLS download's options pass before anything is stored; each error names the
/// field, the value and the limit.
package enum HLSRules {
    package static let maxLanguages = 32
    package static let maxLanguageLength = 35

    /// A URL whose path ends in `.m3u8` or `.m3u` is an HLS stream without being told so.
    package static func looksLikePlaylist(_ uri: String) -> Bool {
        let path = (URLComponents(string: uri)?.path ?? "").lowercased()
        return path.hasSuffix(".m3u8") || path.hasSuffix(".m3u")
    }

    /// The media types RFC 8216 section 4 names for playlists, and the older ones servers send.
    package static func isPlaylistContentType(_ type: String) -> Bool {
        ["application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl"].contains(type.lowercased())
    }

    package static func validate(_ options: HLSOptions) throws {
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
}
