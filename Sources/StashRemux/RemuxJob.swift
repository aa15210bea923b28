import StashCore

/// What `Remuxer` writes into one file: the media inputs (the variant's playlist, then each
/// audio rendition) and the subtitle tracks, in the file's track order.
package struct RemuxJob {
    package var format: ExportFormat
    package var media: [MediaTrackInput]
    package var subtitles: [SubtitleTrackInput]

    package init(format: ExportFormat, media: [MediaTrackInput], subtitles: [SubtitleTrackInput] = []) {
        self.format = format
        self.media = media
        self.subtitles = subtitles
    }
}

/// The media of one playlist: its init section and segments, read as one stream.
package struct MediaTrackInput {
    package enum Role: Sendable {
        /// The variant: its video, and any audio muxed with it.
        case main
        /// An audio rendition: its audio only.
        case audio
    }

    package var source: ChunkSource
    /// For messages: `video`, `audio/es`.
    package var name: String
    package var role: Role
    /// The rendition's LANGUAGE (RFC 5646); nil takes the stream's own tag, if any.
    package var language: String?
    package var title: String
    package var isDefault: Bool

    package init(source: ChunkSource, name: String, role: Role, language: String? = nil, title: String = "", isDefault: Bool = false) {
        self.source = source
        self.name = name
        self.role = role
        self.language = language
        self.title = title
        self.isDefault = isDefault
    }
}

/// A subtitle track: a rendition's WebVTT segments, or a side-loaded file, one chunk each.
package struct SubtitleTrackInput {
    package var source: ChunkSource
    package var name: String
    package var format: SubtitleFormat
    package var language: String?
    package var title: String
    package var isDefault: Bool
    package var forced: Bool
    /// True for an HLS rendition: its cue times are on the media's clock (X-TIMESTAMP-MAP).
    /// False for a side-loaded file, whose zero is the start of the stream.
    package var onMediaClock: Bool
    /// For a side-loaded file: microseconds of its clock where the file written begins (a
    /// time window's start on the stream's timeline; 0 for the whole stream).
    package var startsAt: Int64

    package init(
        source: ChunkSource, name: String, format: SubtitleFormat, language: String?, title: String = "", isDefault: Bool = false,
        forced: Bool = false, onMediaClock: Bool, startsAt: Int64 = 0
    ) {
        self.source = source
        self.name = name
        self.format = format
        self.language = language
        self.title = title
        self.isDefault = isDefault
        self.forced = forced
        self.onMediaClock = onMediaClock
        self.startsAt = startsAt
    }
}
