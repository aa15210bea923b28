import Foundation

/// A playlist split into numbered lines, after the `#EXTM3U` check, with the URL its relative
/// URIs resolve against. Both playlist parsers read it.
struct PlaylistText {
    enum Line {
        /// `#EXT...` with the name before the first ':' and the text after it.
        case tag(name: Substring, value: Substring)
        case uri(Substring)
    }

    enum Kind { case master, media }

    /// Non-blank, non-comment lines with their 1-based numbers.
    let lines: [(number: Int, line: Line)]
    let baseURL: URL

    init(_ text: String, baseURL: String) throws {
        guard let base = URL(string: baseURL), Self.isHTTP(base) else {
            throw HLSError(.invalidURI, line: nil, "base URL '\(baseURL.prefix(200))' is not an absolute http(s) URL")
        }
        self.baseURL = base
        // Lines end in LF or CRLF (section 4.1). Swift reads CRLF as one Character, so both
        // separators are named; a lone CR is not a line end.
        let raw = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        // Some packagers write a UTF-8 byte-order mark or spaces after the tag; neither is
        // content, so neither fails the header.
        let first = raw.first.map { Self.trimmed($0.hasPrefix("\u{FEFF}") ? $0.dropFirst() : $0) }
        guard first == "#EXTM3U" else {
            throw HLSError(.missingHeader, line: 1, "the first line is '\((first ?? "").prefix(80))'; a playlist must start with #EXTM3U")
        }
        var lines: [(Int, Line)] = []
        for (index, text) in raw.enumerated().dropFirst() {
            let trimmed = Self.trimmed(text)
            if trimmed.isEmpty { continue }
            if trimmed.hasPrefix("#EXT") {
                let colon = trimmed.firstIndex(of: ":") ?? trimmed.endIndex
                let value = colon == trimmed.endIndex ? trimmed[colon...] : trimmed[trimmed.index(after: colon)...]
                lines.append((index + 1, .tag(name: trimmed[..<colon], value: value)))
            } else if !trimmed.hasPrefix("#") {
                lines.append((index + 1, .uri(trimmed)))
            }
        }
        self.lines = lines
    }

    /// `line` without the spaces and tabs around it, as a slice of the playlist's text:
    /// Foundation's trimming makes a new string per line, which for a 100,000-segment
    /// playlist is a few hundred thousand allocations kept alive by the parsed lines.
    private static func trimmed(_ line: Substring) -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = line.firstIndex(where: { !isBlank($0) }), let last = line.lastIndex(where: { !isBlank($0) }) else {
            return line[line.endIndex...]
        }
        return line[first...last]
    }

    /// Decides the playlist type from its tags; a playlist with both kinds is ambiguous and
    /// would be parsed differently by different players, so it is refused.
    func kind() throws -> Kind {
        var masterTag: (Int, Substring)?
        var mediaTag: (Int, Substring)?
        for (number, line) in lines {
            guard case .tag(let name, _) = line else { continue }
            switch name {
            case "#EXT-X-STREAM-INF", "#EXT-X-MEDIA", "#EXT-X-I-FRAME-STREAM-INF":
                masterTag = masterTag ?? (number, name)
            case "#EXTINF", "#EXT-X-TARGETDURATION", "#EXT-X-MEDIA-SEQUENCE", "#EXT-X-ENDLIST":
                mediaTag = mediaTag ?? (number, name)
            default:
                continue
            }
            if let master = masterTag, let media = mediaTag {
                throw HLSError(.mixedPlaylist, line: max(master.0, media.0),
                               "\(master.1) (line \(master.0)) and \(media.1) (line \(media.0)) cannot be in one playlist")
            }
        }
        return masterTag == nil ? .media : .master
    }

    /// Resolves `uri` against the base URL (RFC 3986 section 5.2) and refuses anything that
    /// is not http(s) afterwards: the fetch workers speak only HTTP, and a `file:` or `data:`
    /// URI in a downloaded playlist must never reach them.
    func resolve(_ uri: Substring, line: Int, field: String) throws -> String {
        guard let url = URL(string: String(uri), relativeTo: baseURL)?.absoluteURL else {
            throw HLSError(.invalidURI, line: line, "\(field) '\(uri.prefix(200))' is not a valid URI")
        }
        guard Self.isHTTP(url) else {
            throw HLSError(.invalidURI, line: line,
                           "\(field) '\(url.absoluteString.prefix(200))' is not http or https; only those schemes are fetched")
        }
        return url.absoluteString
    }

    private static func isHTTP(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return !(url.host ?? "").isEmpty
    }
}
