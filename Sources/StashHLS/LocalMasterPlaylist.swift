import Foundation

/// The master playlist of a package on disk, read and edited in place: which subtitle
/// renditions it names (GetSubtitles) and the same master without some of them
/// (RemoveSubtitles, which works offline and so cannot plan the package again).
package enum LocalMasterPlaylist {
    /// The subtitle renditions a package's master lists, with their playlists' local paths in
    /// `uri`: what GetSubtitles answers, read from the package itself.
    package static func subtitles(_ text: String) throws -> [Rendition] {
        try renditions(.subtitles, in: text)
    }

    /// What a package holds, as its master lists it: the variant's media playlist and the
    /// audio and subtitle renditions, each with its playlist's local path in `uri` (what an
    /// export to one file reads). Throws `HLSError` for a master without a variant.
    package static func contents(_ text: String) throws -> (variant: String, audio: [Rendition], subtitles: [Rendition]) {
        var variant: String?
        var afterStreamInf = false
        for (index, line) in lines(text) where !line.isEmpty {
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                afterStreamInf = true
            } else if afterStreamInf && !line.hasPrefix("#") {
                variant = try LocalPath.check(line, line: index + 1)
                break
            }
        }
        guard let variant else {
            throw HLSError(.missingTag, line: nil, "the package's master names no variant (EXT-X-STREAM-INF and its URI)")
        }
        return (variant, try renditions(.audio, in: text), try renditions(.subtitles, in: text))
    }

    /// The renditions of `type` with a URI, in the master's order.
    private static func renditions(_ type: Rendition.MediaType, in text: String) throws -> [Rendition] {
        var found: [Rendition] = []
        for (index, line) in lines(text) where line.hasPrefix("#EXT-X-MEDIA:") {
            let attributes = try AttributeList(line.dropFirst("#EXT-X-MEDIA:".count), tag: "#EXT-X-MEDIA", line: index + 1)
            guard try attributes.enumerated("TYPE").map(String.init) == type.rawValue, let uri = try attributes.quotedString("URI") else { continue }
            found.append(Rendition(
                type: type, groupID: try attributes.quotedString("GROUP-ID") ?? "",
                language: try attributes.quotedString("LANGUAGE"), name: try attributes.quotedString("NAME") ?? "",
                isDefault: try attributes.flag("DEFAULT"), autoselect: try attributes.flag("AUTOSELECT"),
                forced: try attributes.flag("FORCED"), uri: try LocalPath.check(uri[...], line: index + 1)))
        }
        return found
    }

    /// The subtitle renditions of `renditions` that `language` names, by the rule the choice
    /// at download time uses ("en" also takes "en-US").
    package static func matching(_ language: String, in renditions: [Rendition]) -> [Rendition] {
        MasterPlaylist.matching(language, in: renditions)
    }

    /// The master without the EXT-X-MEDIA lines whose URI is in `paths`. A variant's
    /// SUBTITLES (or AUDIO) attribute goes too when no rendition of its group is left, since
    /// RFC 8216 section 4.3.4.2 requires a named group to exist.
    package static func removing(_ paths: Set<String>, from text: String) throws -> String {
        var kept: [Substring] = []
        var groupsLeft: [String: Set<String>] = ["SUBTITLES": [], "AUDIO": []]
        var removedGroups: [String: Set<String>] = ["SUBTITLES": [], "AUDIO": []]
        let all = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, raw) in all.enumerated() {
            let line = raw.trimmingWhitespace()
            if line.hasPrefix("#EXT-X-MEDIA:") {
                let attributes = try AttributeList(line.dropFirst("#EXT-X-MEDIA:".count), tag: "#EXT-X-MEDIA", line: index + 1)
                let type = String(try attributes.enumerated("TYPE") ?? "")
                let group = try attributes.quotedString("GROUP-ID") ?? ""
                if let uri = try attributes.quotedString("URI"), paths.contains(uri) {
                    removedGroups[type, default: []].insert(group)
                    continue
                }
                groupsLeft[type, default: []].insert(group)
            }
            kept.append(raw)
        }
        return kept.map { raw -> String in
            let line = raw.trimmingWhitespace()
            guard line.hasPrefix("#EXT-X-STREAM-INF:") else { return String(raw) }
            var edited = String(line)
            for type in ["SUBTITLES", "AUDIO"] {
                for group in removedGroups[type, default: []] where !groupsLeft[type, default: []].contains(group) {
                    edited = edited.replacingOccurrences(of: ",\(type)=\"\(group)\"", with: "")
                }
            }
            return edited
        }.joined(separator: "\n")
    }

    private static func lines(_ text: String) -> [(Int, Substring)] {
        text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.enumerated().map { ($0, $1.trimmingWhitespace()) }
    }
}
