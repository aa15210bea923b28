/// A media playlist: the segments of one variant or rendition.
package struct MediaPlaylist: Equatable, Sendable {
    package enum PlaylistType: String, Sendable, CaseIterable {
        case vod = "VOD"
        case event = "EVENT"
    }

    /// EXT-X-TARGETDURATION seconds; when the playlist has none, its longest segment rounded up,
    /// as players fill it.
    package var targetDuration: UInt64
    /// EXT-X-MEDIA-SEQUENCE: the first segment's sequence number.
    package var mediaSequence: UInt64
    package var segments: [Segment]
    /// False for a live playlist; stash downloads only VOD and refuses it, but parsing it is
    /// not an error so the caller can say why.
    package var hasEndList: Bool
    package var playlistType: PlaylistType?
    /// What the parser ignored or filled in (`PlaylistWarnings`), "line N: …" each.
    package var warnings: [String]

    package init(targetDuration: UInt64, mediaSequence: UInt64, segments: [Segment], hasEndList: Bool,
                playlistType: PlaylistType?, warnings: [String] = []) {
        self.targetDuration = targetDuration
        self.mediaSequence = mediaSequence
        self.segments = segments
        self.hasEndList = hasEndList
        self.playlistType = playlistType
        self.warnings = warnings
    }

    /// The sum of the EXTINF durations, in seconds.
    package var totalDuration: Double { segments.reduce(0) { $0 + $1.duration } }
}
