/// What to keep of an HLS stream: which variant, which audio and subtitle renditions, which
/// part of its timeline, and how many segments to fetch at once. Stored with the download, so
/// a restart continues with the same choice.
public struct HLSOptions: Equatable, Sendable, Codable {
    /// The quality presets of the original player: the lowest variant whose BANDWIDTH reaches
    /// the preset's minimum, else the highest; `auto` is the highest.
    public enum Quality: String, Equatable, Sendable, CaseIterable, Codable {
        case low, medium, high, auto

        /// The preset's minimum peak bitrate in bits per second; nil for `auto`.
        public var minimumBandwidth: UInt64? {
            switch self {
            case .low: return 500_000
            case .medium: return 1_500_000
            case .high: return 3_000_000
            case .auto: return nil
            }
        }
    }

    public static let defaultSegmentConcurrency = 8
    public static let maxSegmentConcurrency = 64

    public var quality: Quality
    /// Only variants at most this many pixels high; nil for no limit.
    public var maxHeight: Int?
    /// The variant whose BANDWIDTH is closest to this without going above; nil to use `quality`.
    public var bandwidth: UInt64?
    /// Subtitle languages to keep (RFC 5646 tags, matched case-insensitively on the primary
    /// subtag too, so "en" takes "en-US"); `["all"]` keeps every one; empty keeps none.
    public var subtitles: [String]
    /// Audio languages, as `subtitles`; empty keeps the default audio rendition.
    public var audio: [String]
    /// Segments fetched at once for this download.
    public var segmentConcurrency: Int
    /// Seconds into the stream where the part to keep starts; nil from the beginning. Only the
    /// segments that overlap `[start, end)` are fetched, each playlist by its own timeline.
    public var start: Double?
    /// Seconds into the stream where the part to keep ends (a segment that begins here is not
    /// fetched); nil to the end. An end past the stream's duration is set to the duration once
    /// the playlist is read, so the record says what the package holds.
    public var end: Double?

    /// True when only part of the stream is kept.
    public var hasRange: Bool { start != nil || end != nil }

    public init(quality: Quality = .auto, maxHeight: Int? = nil, bandwidth: UInt64? = nil, subtitles: [String] = [],
                audio: [String] = [], segmentConcurrency: Int = HLSOptions.defaultSegmentConcurrency, start: Double? = nil,
                end: Double? = nil) {
        self.quality = quality
        self.maxHeight = maxHeight
        self.bandwidth = bandwidth
        self.subtitles = subtitles
        self.audio = audio
        self.segmentConcurrency = segmentConcurrency
        self.start = start
        self.end = end
    }
}
