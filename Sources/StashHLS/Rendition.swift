/// One EXT-X-MEDIA entry: an alternative audio, video or subtitle track, or a closed-caption
/// channel carried inside the video.
package struct Rendition: Equatable, Sendable {
    package enum MediaType: String, Sendable, CaseIterable {
        case audio = "AUDIO"
        case video = "VIDEO"
        case subtitles = "SUBTITLES"
        case closedCaptions = "CLOSED-CAPTIONS"
    }

    package var type: MediaType
    package var groupID: String
    /// RFC 5646 tag, as the playlist wrote it; `--subtitles en,es` matches against it.
    package var language: String?
    package var name: String
    package var isDefault: Bool
    package var autoselect: Bool
    package var forced: Bool
    /// The rendition's media playlist; nil for closed captions and for audio carried in the variant.
    package var uri: String?

    package init(type: MediaType, groupID: String, language: String? = nil, name: String,
                isDefault: Bool = false, autoselect: Bool = false, forced: Bool = false, uri: String? = nil) {
        self.type = type
        self.groupID = groupID
        self.language = language
        self.name = name
        self.isDefault = isDefault
        self.autoselect = autoselect
        self.forced = forced
        self.uri = uri
    }
}
