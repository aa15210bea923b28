/// What an adaptation set carries, from its `contentType`, else its `mimeType`, else its
/// codecs (`wvtt` and `stpp` are text in an MP4).
package enum MediaKind: String, Equatable, Sendable {
    case video, audio, text, other

    static func of(contentType: String?, mimeType: String?, codecs: String?) -> MediaKind {
        if let contentType, let kind = MediaKind(rawValue: contentType.lowercased()) { return kind }
        if contentType?.lowercased() == "image" { return .other }
        let mime = mimeType?.lowercased() ?? ""
        if mime.hasPrefix("video/") { return .video }
        if mime.hasPrefix("audio/") { return .audio }
        if mime.hasPrefix("text/") || mime == "application/ttml+xml" { return .text }
        let codec = codecs?.lowercased() ?? ""
        if codec.hasPrefix("wvtt") || codec.hasPrefix("stpp") { return .text }
        return .other
    }
}
