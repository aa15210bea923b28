/// One EXT-X-STREAM-INF entry of a master playlist: a rendition of the whole presentation at
/// one bitrate, with the groups of alternative audio and subtitles it plays with.
package struct Variant: Equatable, Sendable {
    /// The media playlist, resolved to an absolute http(s) URL.
    package var uri: String
    /// Peak bits per second (BANDWIDTH), the figure quality choice compares; nil when the
    /// playlist does not say, which ranks the variant after every one that does.
    package var bandwidth: UInt64?
    package var averageBandwidth: UInt64?
    package var resolution: Resolution?
    /// RFC 6381 codec strings, split from CODECS.
    package var codecs: [String]
    package var frameRate: Double?
    /// GROUP-ID of the EXT-X-MEDIA TYPE=AUDIO renditions to play with this variant.
    package var audioGroup: String?
    /// GROUP-ID of the EXT-X-MEDIA TYPE=SUBTITLES renditions to play with this variant.
    package var subtitlesGroup: String?

    package init(uri: String, bandwidth: UInt64?, averageBandwidth: UInt64? = nil, resolution: Resolution? = nil,
                codecs: [String] = [], frameRate: Double? = nil, audioGroup: String? = nil, subtitlesGroup: String? = nil) {
        self.uri = uri
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.resolution = resolution
        self.codecs = codecs
        self.frameRate = frameRate
        self.audioGroup = audioGroup
        self.subtitlesGroup = subtitlesGroup
    }
}
