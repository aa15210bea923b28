/// What an HLS stream offers, as `stash plan` shows it before anything is downloaded.
public struct ManifestInfo: Equatable, Sendable {
    public struct VariantInfo: Equatable, Sendable {
        /// The variant's media playlist, absolute.
        public var uri: String
        /// Peak bits per second; nil when unknown (no BANDWIDTH, or a media playlist whose
        /// segment sizes are not in it).
        public var bandwidth: UInt64?
        public var averageBandwidth: UInt64?
        public var width: Int?
        public var height: Int?
        public var codecs: [String]
        public var frameRate: Double?
        /// EXT-X-KEY methods its segments use ("NONE", "AES-128", ...), in order of first use.
        public var encryption: [String]
        /// Bytes of its segments (and init sections): bandwidth x duration, or exact when
        /// every segment is a byte range. With a time range, of the segments in it.
        public var estimatedBytes: Int64
        public var sizeIsExact: Bool
        public var duration: Double

        public init(uri: String, bandwidth: UInt64?, averageBandwidth: UInt64? = nil, width: Int? = nil, height: Int? = nil,
                    codecs: [String] = [], frameRate: Double? = nil, encryption: [String] = [], estimatedBytes: Int64 = 0,
                    sizeIsExact: Bool = false, duration: Double = 0) {
            self.uri = uri
            self.bandwidth = bandwidth
            self.averageBandwidth = averageBandwidth
            self.width = width
            self.height = height
            self.codecs = codecs
            self.frameRate = frameRate
            self.encryption = encryption
            self.estimatedBytes = estimatedBytes
            self.sizeIsExact = sizeIsExact
            self.duration = duration
        }
    }

    /// An audio or subtitle rendition (EXT-X-MEDIA).
    public struct RenditionInfo: Equatable, Sendable {
        public var groupID: String
        public var language: String
        public var name: String
        public var isDefault: Bool
        public var forced: Bool
        public var uri: String

        public init(groupID: String, language: String, name: String, isDefault: Bool = false, forced: Bool = false, uri: String = "") {
            self.groupID = groupID
            self.language = language
            self.name = name
            self.isDefault = isDefault
            self.forced = forced
            self.uri = uri
        }
    }

    public var variants: [VariantInfo]
    public var audio: [RenditionInfo]
    public var subtitles: [RenditionInfo]
    /// Seconds, from the first variant's media playlist.
    public var duration: Double
    /// What stash read differently from RFC 8216 (a line ignored, a value filled in) or will not
    /// download (a live playlist), one sentence each; a media playlist's start with its URI.
    /// With a time range whose end is past the duration, the first says so.
    public var warnings: [String]
    /// The time range the sizes are for, in seconds, as a download would keep it: the start
    /// (0 when none was given) and the end (the duration when none was given or one past it).
    /// Nil for the whole stream.
    public var start: Double?
    public var end: Double?

    public init(variants: [VariantInfo] = [], audio: [RenditionInfo] = [], subtitles: [RenditionInfo] = [], duration: Double = 0,
                warnings: [String] = [], start: Double? = nil, end: Double? = nil) {
        self.variants = variants
        self.audio = audio
        self.subtitles = subtitles
        self.duration = duration
        self.warnings = warnings
        self.start = start
        self.end = end
    }
}
