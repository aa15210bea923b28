/// A media playlist: the segments of one variant or rendition.
public struct MediaPlaylist: Equatable, Sendable {
    public enum PlaylistType: String, Sendable, CaseIterable {
        case vod = "VOD"
        case event = "EVENT"
    }

    /// EXT-X-TARGETDURATION seconds; when the playlist has none, its longest segment rounded up,
    /// as players fill it.
    public var targetDuration: UInt64
    /// EXT-X-MEDIA-SEQUENCE: the first segment's sequence number.
    public var mediaSequence: UInt64
    public var segments: [Segment]
    /// False for a live playlist; stash downloads only VOD and refuses it, but parsing it is
    /// not an error so the caller can say why.
    public var hasEndList: Bool
    public var playlistType: PlaylistType?
    /// What the parser ignored or filled in (`PlaylistWarnings`), "line N: …" each.
    public var warnings: [String]

    public init(targetDuration: UInt64, mediaSequence: UInt64, segments: [Segment], hasEndList: Bool,
                playlistType: PlaylistType?, warnings: [String] = []) {
        self.targetDuration = targetDuration
        self.mediaSequence = mediaSequence
        self.segments = segments
        self.hasEndList = hasEndList
        self.playlistType = playlistType
        self.warnings = warnings
    }

    /// The sum of the EXTINF durations, in seconds.
    public var totalDuration: Double { segments.reduce(0) { $0 + $1.duration } }
}
